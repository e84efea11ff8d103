"""The recorded-dialogue metrics through a whole evaluation, the judge being the local
OpenAI-compatible test server (real HTTP): values equal the verdicts counted by hand."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import ragjudge as rj
from ragjudge.models.scripted import ReplyScript, prompt_text
from ragjudge.testing.server import OpenAITestServer

ROWS = [
    {
        "request_id": "kept",
        "request": {
            "messages": [
                {"role": "user", "content": "I am vegetarian."},
                {"role": "assistant", "content": "Noted."},
                {"role": "user", "content": "Suggest a dinner."},
            ]
        },
        "response": "A mushroom risotto.",
    },
    {
        "request_id": "forgot",
        "request": {
            "messages": [
                {"role": "user", "content": "I am vegetarian."},
                {"role": "assistant", "content": "Noted."},
                {"role": "user", "content": "Suggest a dinner."},
                {"role": "assistant", "content": "A steak."},
                {"role": "user", "content": "And a dessert?"},
            ]
        },
        "response": "A fruit salad.",
    },
]


def judge(messages: list[dict[str, Any]]) -> str:
    """Turn 2 of the dialogue that offers a steak forgets; every other turn keeps."""
    prompt = prompt_text(messages)
    turns = prompt.count("<<<BEGIN ASSISTANT ")
    verdicts = [
        {"turn": n, "reason": "checked", "verdict": "no" if n == 2 and "steak" in prompt else "yes"}
        for n in range(1, turns + 1)
    ]
    return json.dumps({"verdicts": verdicts})


def test_knowledge_retention_over_http(tmp_path: Path) -> None:
    with OpenAITestServer(replies=ReplyScript(function=judge)) as server:
        result = rj.evaluate(
            ROWS,
            metrics=["knowledge_retention"],
            judge={"model": "openai/judge", "base_url": server.base_url, "preflight": False},
            cache=False,
            store=tmp_path / "r.db",
            progress=False,
        )
    frame = result.to_pandas().set_index("request_id")
    assert frame.loc["kept", "knowledge_retention"] == 1.0  # 2 of 2 turns keep it
    assert frame.loc["forgot", "knowledge_retention"] == pytest.approx(2 / 3)  # 2 of 3
    [summary] = result.summaries
    assert summary.mean == pytest.approx((1.0 + 2 / 3) / 2)
