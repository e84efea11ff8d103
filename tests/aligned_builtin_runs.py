"""A stored run of the built-in ``correctness`` metric with a scripted judge that has a
known systematic error, and people's labels of it: the judge accepts any answer that
names the right author, even with the wrong year, while the people fail those. Shown a
worked example of a failing answer (its ``examples`` option), the judge checks the year
too. Shared by the align tests of the API and of the command line."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import ragjudge as rj
from aligned_runs import kinds, rows
from ragjudge.models import ChatMessage
from ragjudge.models.scripted import ReplyScript, ScriptedProvider, prompt_text
from ragjudge.store import Store
from ragjudge.store._labels import Label

SCORE = "response/llm_judged/correctness/rating"
ENTRY: dict[str, Any] = {"metric": "correctness", "if_missing": "error"}
_RESPONSE = re.compile(r"<<<BEGIN RESPONSE>>>\n(.*?)\n<<<END RESPONSE>>>", re.DOTALL)


def expected_rows(count: int) -> list[dict[str, Any]]:
    """The evaluation set with the expected response: Shakespeare, in 16NN."""
    return [
        {**row, "expected_response": f"Shakespeare wrote it in 16{i:02d}."}
        for i, row in enumerate(rows(count))
    ]


def judge_reply(messages: list[ChatMessage]) -> str:
    """The scripted judge: lenient on the year unless a worked example fails an answer."""
    prompt = prompt_text(messages)
    found = _RESPONSE.findall(prompt)
    if not found:
        return "OK"
    response = found[-1]
    careful = "Answer: no\n" in prompt
    passes = "Shakespeare" in response and (not careful or ", in 16" in response)
    return f"Rationale: checked.\nAnswer: {'yes' if passes else 'no'}"


def scripted_judge() -> ScriptedProvider:
    """A fresh scripted judge (its ``calls`` list every prompt it answered)."""
    return ScriptedProvider(ReplyScript(function=judge_reply))


def write_data(folder: Path, count: int) -> Path:
    """The evaluation set as ``works.jsonl`` in ``folder``."""
    data = folder / "works.jsonl"
    lines = (json.dumps(r) for r in expected_rows(count))
    data.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return data


def labelled_builtin_run(folder: Path, count: int = 40) -> tuple[Store, str]:
    """A run of ``count`` samples judged by ``correctness``, every one labelled by the
    people: yes for the right answers only, a comment on each wrong year."""
    path = folder / "runs.db"
    rj.evaluate(
        data=str(write_data(folder, count)),
        metrics=[ENTRY],
        judge=scripted_judge(),
        store=str(path),
        cache=False,
    )
    store = Store(path, write=True)
    run_id = store.runs()[0].run_id
    store.save_labels(
        [
            Label(
                run_id=run_id,
                request_id=f"w{i:02d}",
                metric=SCORE,
                annotator="reviewer",
                kind="yesno",
                value=kind == "right",
                comment="the year is wrong" if kind == "wrong year" else None,
            )
            for i, kind in enumerate(kinds(count))
        ]
    )
    return store, run_id
