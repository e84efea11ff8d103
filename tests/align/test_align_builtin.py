"""align on a built-in yes/no metric: worked examples only, measured by
cross-validation, proposed as the metric's entry for the config's metrics list; other
built-in judges are refused with the reason."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

import ragjudge as rj
from aligned_builtin_runs import SCORE, labelled_builtin_run, scripted_judge, write_data
from aligned_runs import kinds
from ragjudge.align import AlignSettings, align_judge, align_plan
from ragjudge.config import EvalConfig
from ragjudge.errors import ConfigError
from ragjudge.store import Store


async def test_worked_examples_teach_correctness_the_year_on_labels_it_never_saw(
    tmp_path: Path,
) -> None:
    store, run_id = labelled_builtin_run(tmp_path)
    found = await align_judge(store, run_id, SCORE, provider=scripted_judge())

    assert found.plan.builtin == "correctness"
    assert found.plan.candidates == ("examples",)
    [result] = found.candidates
    assert result.before.n == result.after.n == 40
    # the judge passes every "Shakespeare" answer: the 16 wrong years are its errors
    assert result.before.accuracy.value == pytest.approx(24 / 40)
    assert result.after.accuracy.value == pytest.approx(1.0)
    for fold in result.folds:
        assert not set(fold.shown) & set(fold.held_out)
    assert found.spec is not None
    assert found.spec["metric"] == "correctness" and found.spec["if_missing"] == "error"
    verdicts = {e["verdict"] for e in found.spec["examples"]}
    assert verdicts == {"no"}  # the judge never fails an answer the people pass
    assert all("the year is wrong" in e["reason"] for e in found.spec["examples"])


async def test_the_proposed_entry_loads_in_a_config_and_runs(tmp_path: Path) -> None:
    store, run_id = labelled_builtin_run(tmp_path)
    found = await align_judge(store, run_id, SCORE, provider=scripted_judge())
    assert found.spec is not None
    entry = yaml.safe_load(yaml.safe_dump(found.spec))
    config = EvalConfig.model_validate({"data": str(write_data(tmp_path, 10)), "metrics": [entry]})

    result = rj.evaluate(
        data=config.data,
        metrics=config.metrics,
        judge=scripted_judge(),
        store=str(tmp_path / "after.db"),
        cache=False,
    )
    stored = Store(tmp_path / "after.db").scores(result.run_id)
    values = {rid: score.value for rid, _, score in stored if score.metric == SCORE}
    # with the worked examples the judge checks the year: only the right answers pass
    assert values == {f"w{i:02d}": float(k == "right") for i, k in enumerate(kinds(10))}


def test_rewritten_criteria_are_refused_for_a_built_in_metric(tmp_path: Path) -> None:
    store, run_id = labelled_builtin_run(tmp_path, count=10)
    settings = AlignSettings(folds=2, candidates=("criteria",))
    with pytest.raises(ConfigError, match="rewritten criteria apply to custom judges only"):
        align_plan(store, run_id, SCORE, settings)


def test_a_judge_asked_several_questions_per_sample_is_refused(tmp_path: Path) -> None:
    data = tmp_path / "works.jsonl"
    row = {
        "request": "Who wrote it?",
        "response": "Shakespeare.",
        "retrieved_context": [{"doc_uri": "d1", "content": "Shakespeare wrote it."}],
    }
    data.write_text(
        "\n".join(json.dumps({**row, "request_id": f"r{i}"}) for i in range(4)), encoding="utf-8"
    )
    rj.evaluate(
        data=str(data),
        metrics=["faithfulness"],
        judge=scripted_judge(),
        store=str(tmp_path / "runs.db"),
        cache=False,
    )
    store = Store(tmp_path / "runs.db")
    run_id = store.runs()[0].run_id
    with pytest.raises(ConfigError, match="several questions per sample") as caught:
        align_plan(store, run_id, "faithfulness", AlignSettings(folds=2))
    assert "custom judge" in str(caught.value)
