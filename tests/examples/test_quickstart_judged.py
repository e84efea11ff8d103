"""The quickstart's judged config: E3 sees contexts retrieved with the question and
the reference, E2 (as the paper means it) the chunks the app answered from."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from conftest import QUICKSTART
from ragjudge.config import load_config
from ragjudge.models.scripted import ReplyScript, ScriptedProvider
from ragjudge.run._runner import run_evaluation


async def test_e2_shows_the_judge_the_contexts_the_app_answered_from(tmp_path: Path) -> None:
    config = load_config(QUICKSTART / "eval-judged.yaml", limit=2)
    config = config.model_copy(update={"store": str(tmp_path / "runs.db")})
    judge = ScriptedProvider(ReplyScript(default="Feedback: fine. [RESULT] 4"))
    result = await run_evaluation(config, judge_provider=judge, progress=False, use_cache=False)

    frame = result.to_pandas()
    assert set(frame["accuracy_e2"]) == {4.0} and set(frame["accuracy_e3"]) == {4.0}
    with sqlite3.connect(tmp_path / "runs.db") as conn:
        scores = {
            (sample, metric): json.loads(details)
            for sample, metric, details in conn.execute(
                "SELECT request_id, metric, details_json FROM scores WHERE metric LIKE 'accuracy_%'"
            )
        }
        outputs = {
            sample: json.loads(output)
            for sample, output in conn.execute("SELECT request_id, output_json FROM outputs")
        }
    assert len(scores) == 4  # two questions, two variants
    for (sample, metric), details in scores.items():
        own = [c["doc_uri"] for c in outputs[sample]["retrieved_context"]]
        if metric == "accuracy_e2":
            assert details["contexts"] == "retrieved"
            assert details["context_doc_uris"] == own
        else:
            assert details["contexts"] == "reference"
