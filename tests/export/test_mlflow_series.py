import asyncio
import json
from pathlib import Path

import pytest

from ragjudge.config import EvalConfig
from ragjudge.export._mlflow import export_to_mlflow
from ragjudge.run._runner import run_evaluation
from ragjudge.store._store import Store


def test_incremental_runs_are_logged_at_their_step_in_the_series(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    mlflow = pytest.importorskip("mlflow", reason="needs the mlflow extra")
    monkeypatch.chdir(tmp_path)
    log = tmp_path / "log.jsonl"
    config = EvalConfig(
        data=str(log), metrics=["exact_match"], store=str(tmp_path / "r.db"), incremental=True
    )
    run_ids = []
    for first, last in ((0, 3), (3, 5)):
        with log.open("a", encoding="utf-8") as f:
            for i in range(first, last):
                f.write(
                    json.dumps(
                        {
                            "request_id": f"q{i}",
                            "request": "q",
                            "response": "Paris",
                            "expected_response": "Paris",
                        }
                    )
                    + "\n"
                )
        run_ids.append(asyncio.run(run_evaluation(config, progress=False)).run_id)
    uri = f"sqlite:///{tmp_path / 'mlflow.db'}"
    with Store(tmp_path / "r.db") as store:
        logged = [export_to_mlflow(store, run_id, tracking_uri=uri) for run_id in run_ids]
    client = mlflow.MlflowClient(tracking_uri=uri)
    steps = []
    for one in logged:
        assert one.metrics, one
        name = next(iter(one.metrics))
        (point,) = client.get_metric_history(one.run_id, name)
        steps.append(point.step)
    assert steps == [0, 1]
