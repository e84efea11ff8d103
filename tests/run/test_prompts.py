"""The judge calls one metric makes for one sample, built with the dry run's stand-in
judge: the config's options for the metric are kept, and the chosen row is the one shown."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from ragjudge.config import EvalConfig
from ragjudge.run._prompts import metric_prompts, only_metric


def test_only_metric_keeps_the_configs_entry_for_it_and_every_row() -> None:
    config = EvalConfig(
        data="set.jsonl",
        metrics=["rouge_l", {"metric": "likert", "name": "rating"}],
        limit=1,
        trials=3,
    )

    chosen = only_metric(config, "rating")

    assert chosen.metrics == [{"metric": "likert", "name": "rating"}]
    assert (chosen.limit, chosen.trials) == (None, 1)
    assert only_metric(config, "safety").metrics == ["safety"]


def test_the_calls_are_those_of_the_chosen_row(tmp_path: Path) -> None:
    rows = [
        {"request_id": f"r{i}", "request": f"question {i}", "response": f"answer {i}"}
        for i in range(3)
    ]
    data = tmp_path / "set.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    config = EvalConfig(data=str(data), target={"kind": "data"}, metrics=["relevance_to_query"])

    found = asyncio.run(metric_prompts(config, row=3))

    assert (found.request_id, found.needs_judge, found.stand_in_response) == ("r2", True, False)
    (call,) = found.calls
    text = "\n".join(str(m["content"]) for m in call.messages)
    assert "question 2" in text and "answer 2" in text and "answer 1" not in text
