import asyncio
import json
from pathlib import Path

from ragjudge.config import EvalConfig
from ragjudge.report._run import run_report_html
from ragjudge.run._runner import run_evaluation
from ragjudge.store._store import Store


def append_rows(log: Path, first: int, last: int) -> None:
    with log.open("a", encoding="utf-8") as f:
        for i in range(first, last):
            row = {
                "request_id": f"q{i}",
                "request": f"q {i}?",
                "response": "Paris",
                "expected_response": "Paris",
            }
            f.write(json.dumps(row) + "\n")


def test_the_run_page_draws_the_series_of_an_incremental_run(tmp_path: Path) -> None:
    log = tmp_path / "log.jsonl"
    config = EvalConfig(
        data=str(log), metrics=["exact_match"], store=str(tmp_path / "r.db"), incremental=True
    )
    append_rows(log, 0, 3)
    first = asyncio.run(run_evaluation(config, progress=False)).run_id
    append_rows(log, 3, 5)
    second = asyncio.run(run_evaluation(config, progress=False)).run_id
    with Store(tmp_path / "r.db") as store:
        later = run_report_html(store, second)
        earlier = run_report_html(store, first)
    assert "Over time" in later and "exact_match over time" in later
    assert first[-6:] in later and "n=2" in later and "n=3" in later
    assert "Over time" not in earlier
