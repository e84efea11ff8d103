"""``align`` against a scripted judge with a known systematic error (it passes any
answer naming the right author, whatever the year, while the people fail a wrong
year): agreement before and after, cross-validated; no candidate sees a held-out
label; the proposed judge runs as a judge file; the plan calls nothing."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

import ragjudge as rj
from aligned_runs import METRIC, REWRITTEN, judge_reply, kinds, labelled_run, scripted_judge
from ragjudge.align import CANDIDATES, AlignSettings, align_judge, align_plan
from ragjudge.errors import ConfigError
from ragjudge.models import ModelError
from ragjudge.models.scripted import ReplyScript, ScriptedProvider
from ragjudge.store import Store


async def test_every_candidate_agrees_more_with_the_people_on_labels_it_never_saw(
    tmp_path: Path,
) -> None:
    store, run_id = labelled_run(tmp_path, 40)
    found = await align_judge(store, run_id, METRIC, provider=scripted_judge())

    assert found.plan.labelled == 40 and found.plan.disagreements == 16
    assert [c.name for c in found.candidates] == list(CANDIDATES)
    for result in found.candidates:
        assert result.before.n == result.after.n == 40  # every label held out once
        assert result.before.accuracy.value == pytest.approx(0.6)
        assert result.after.accuracy.value == pytest.approx(1.0)
        assert result.after.kappa.value == pytest.approx(1.0)
        assert result.before.kappa.value is not None and result.before.kappa.value < 0.5
    assert found.best is not None and found.best.name == "examples"  # the cheapest of a tie
    assert found.spec is not None and all(e["verdict"] == "no" for e in found.spec["examples"])


async def test_labels_on_a_scale_are_compared_as_values_too(tmp_path: Path) -> None:
    store, run_id = labelled_run(tmp_path, 40, on_scale=True)
    settings = AlignSettings(candidates=("examples",))
    found = await align_judge(store, run_id, METRIC, settings, provider=scripted_judge())

    [result] = found.candidates
    assert result.before.accuracy.value == pytest.approx(0.6)
    assert result.after.accuracy.value == pytest.approx(1.0)
    assert result.before.exact is not None and result.after.exact is not None
    # the judge says 2 where the people say 1 for a wrong author: passes agree, values not
    assert result.before.exact.value == pytest.approx(0.4)
    assert result.after.exact.value == pytest.approx(0.8)
    assert result.after.weighted_kappa is not None and result.after.weighted_kappa.value
    assert found.spec is not None and {e["verdict"] for e in found.spec["examples"]} == {1}


async def test_no_candidate_is_shown_a_label_of_the_fold_it_is_measured_on(
    tmp_path: Path,
) -> None:
    store, run_id = labelled_run(tmp_path, 30)
    found = await align_judge(
        store, run_id, METRIC, AlignSettings(folds=3), provider=scripted_judge()
    )

    for result in found.candidates:
        held = [i for fold in result.folds for i in fold.held_out]
        assert sorted(held) == sorted(f"w{i:02d}" for i in range(30))  # each once
        for fold in result.folds:
            assert fold.shown, "a candidate that learned nothing tests nothing"
            assert not set(fold.shown) & set(fold.held_out)


async def test_rewritten_criteria_come_from_the_judge_model_and_reach_the_judge(
    tmp_path: Path,
) -> None:
    store, run_id = labelled_run(tmp_path, 20)
    judge = scripted_judge()
    settings = AlignSettings(folds=2, candidates=("criteria",))
    found = await align_judge(store, run_id, METRIC, settings, provider=judge)

    assert found.spec is not None and found.spec["criteria"] == REWRITTEN
    rewrites = [c for c in judge.calls if "New criteria:" in str(c)]
    assert len(rewrites) == 3  # one per fold and one from every label
    assert all("<<<BEGIN CASE 1 RESPONSE>>>" in str(c) for c in rewrites)
    assert found.calls == 20 + 3


async def test_the_proposed_judge_file_runs_and_agrees_with_the_people(tmp_path: Path) -> None:
    store, run_id = labelled_run(tmp_path, 40)
    found = await align_judge(store, run_id, METRIC, provider=scripted_judge())
    assert found.spec is not None
    spec = tmp_path / "judge.yaml"
    spec.write_text(yaml.safe_dump(found.spec), encoding="utf-8")

    await rj.aevaluate(
        data=str(tmp_path / "works.jsonl"),
        metrics=[{"metric": "custom_judge", "name": METRIC, "spec": str(spec)}],
        judge=scripted_judge(),
        store=str(tmp_path / "adopted.db"),
        cache=False,
    )
    with Store(tmp_path / "adopted.db") as adopted:
        values = adopted.sample_means(adopted.runs()[0].run_id, METRIC)
    assert values == {f"w{i:02d}": float(kind == "right") for i, kind in enumerate(kinds(40))}


async def test_a_sample_the_candidate_could_not_judge_is_left_out_of_both_sides(
    tmp_path: Path,
) -> None:
    store, run_id = labelled_run(tmp_path, 20)
    refused = ModelError("no", kind="client", status=400)
    judge = ScriptedProvider(ReplyScript(function=judge_reply), errors=[refused] * 3)
    settings = AlignSettings(folds=2, candidates=("examples",))
    found = await align_judge(store, run_id, METRIC, settings, provider=judge)

    [result] = found.candidates
    assert sum(f.scored for f in result.folds) == 17
    assert result.before.n == result.after.n == 17


async def test_aligning_again_asks_the_judge_nothing_through_the_runs_reply_cache(
    tmp_path: Path,
) -> None:
    store, run_id = labelled_run(tmp_path, 20, cache=True)
    settings = AlignSettings(folds=2)
    first, second = scripted_judge(), scripted_judge()
    once = await align_judge(store, run_id, METRIC, settings, provider=first)
    again = await align_judge(store, run_id, METRIC, settings, provider=second)

    assert len(first.calls) == once.calls > 0
    assert second.calls == [] and again.calls == once.calls
    assert again.spec == once.spec
    uncached = await align_judge(
        store, run_id, METRIC, AlignSettings(folds=2, cache=False), provider=second
    )
    assert len(second.calls) == uncached.calls


async def test_a_judge_read_from_a_file_named_relative_to_the_config_is_aligned(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    store, run_id = labelled_run(tmp_path, 20, judge_file=True)
    monkeypatch.chdir(tmp_path.parent)  # align reads the file where the run found it
    settings = AlignSettings(folds=2, candidates=("examples",))
    found = await align_judge(store, run_id, METRIC, settings, provider=scripted_judge())

    assert found.spec is not None and found.spec["scale"] == "yes/no"
    assert found.spec["criteria"] == "The response names who wrote the work."
    assert "spec" not in found.spec  # a self-contained judge file


def test_the_plan_counts_the_calls_and_calls_nothing(tmp_path: Path) -> None:
    store, run_id = labelled_run(tmp_path, 20)
    plan = align_plan(store, run_id, METRIC, AlignSettings(folds=4))

    assert plan.calls == 20 * 3 + 4 + 1 and plan.cost is None  # the scripted judge is free
    assert store.runs()[0].run_id == run_id and len(store.runs()) == 1


@pytest.mark.parametrize(
    ("metric", "labelled", "folds", "message"),
    [
        ("rihgt", 20, 5, "no score 'rihgt'; did you mean 'right'?"),
        (METRIC, 0, 5, "has no labels of right"),
        (METRIC, 7, 5, "7 labelled samples are too few for 5 folds"),
    ],
)
def test_a_score_it_cannot_align_is_named_with_why(
    tmp_path: Path, metric: str, labelled: int, folds: int, message: str
) -> None:
    store, run_id = labelled_run(tmp_path, 20, labelled=labelled)
    with pytest.raises(ConfigError, match=message):
        align_plan(store, run_id, metric, AlignSettings(folds=folds))
