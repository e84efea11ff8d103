from __future__ import annotations

import json
import math
from collections.abc import Iterator, Mapping, Sequence
from io import StringIO
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from rich.console import Console
from typer.testing import CliRunner

from ragjudge.analysis._compare import Comparison, MetricComparison, compare_runs
from ragjudge.cli import app
from ragjudge.errors import AnalysisError
from ragjudge.metrics._stored import record_missing_meanings
from ragjudge.schema import Sample, Score, ScoreMeaning
from ragjudge.stats import bootstrap_ci
from ragjudge.store._store import RunNotFound, Store
from ragjudge.terminal import render_comparison

# Per sample: one value per trial; a str is an error message for that trial.
Results = Mapping[str, Mapping[str, Sequence[float | str]]]


def stored_run(
    store: Store,
    results: Results,
    *,
    metadata: Mapping[str, dict[str, Any]] | None = None,
    config: dict[str, Any] | None = None,
    name: str | None = None,
    meanings: Mapping[str, ScoreMeaning] | None = None,
) -> str:
    """A run holding ``results[metric][sample_id]`` (trial values in order). Without
    ``meanings`` the run is stored as an older version stored it, and its meanings are
    recorded from ``config`` as the command line records them."""
    sample_ids = list(dict.fromkeys(sid for per_sample in results.values() for sid in per_sample))
    for sid in metadata or {}:
        if sid not in sample_ids:
            sample_ids.append(sid)
    samples = [
        Sample(request_id=sid, request="q", response="a", metadata=(metadata or {}).get(sid, {}))
        for sid in sample_ids
    ]
    run_id = store.create_run(
        name=name,
        config=config or {"metrics": list(results)},
        versions={},
        samples=samples,
        trials=1,
        meanings=meanings,
    )
    for metric, per_sample in results.items():
        for sid, trials in per_sample.items():
            for trial, value in enumerate(trials):
                score = (
                    Score.failed(metric, value)
                    if isinstance(value, str)
                    else Score(metric=metric, value=value)
                )
                store.save_scores(run_id, sid, trial, [score])
    store.set_status(run_id, "completed")
    if meanings is None:
        record_missing_meanings(store)  # what the command line does for such a run
    return run_id


def single(values: Sequence[float]) -> dict[str, list[float | str]]:
    return {f"s{i}": [v] for i, v in enumerate(values)}


def row(comparison: Comparison, metric: str) -> MetricComparison:
    (found,) = [r for r in comparison.rows if r.metric == metric]
    return found


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    with Store(tmp_path / "runs.db") as s:
        yield s


# --- paired differences -------------------------------------------------------------------


def test_b_one_higher_everywhere_gives_difference_one_with_a_zero_width_interval(
    store: Store,
) -> None:
    a_values = [1.0, 2.0, 3.0, 4.0, 2.0, 3.0]
    a = stored_run(store, {"acc": single(a_values)})
    b = stored_run(store, {"acc": single([v + 1 for v in a_values])})
    result = row(compare_runs(store, a, store, b), "acc")
    p = result.paired
    assert p.n == 6
    assert p.mean_a == pytest.approx(2.5) and p.mean_b == pytest.approx(3.5)
    assert p.difference == pytest.approx(1.0)
    assert p.ci is not None and (p.ci.low, p.ci.high) == pytest.approx((1.0, 1.0))
    assert (p.better, p.equal, p.worse) == (1.0, 0.0, 0.0)
    # exact sign-flip test: only "all +" and "all −" are as extreme as the observed sum
    assert p.p_value == pytest.approx(2 / 2**6)
    assert result.winner == "B" and result.significant
    assert result.direction == "higher" and result.dropped == 0


def test_mixed_differences_match_a_hand_computation(store: Store) -> None:
    a = stored_run(store, {"acc": single([1, 2, 3, 4])})
    b = stored_run(store, {"acc": single([2, 2, 5, 3])})
    p = row(compare_runs(store, a, store, b, seed=3), "acc").paired
    # differences 1, 0, 2, -1
    assert p.difference == pytest.approx(0.5)
    assert (p.better, p.equal, p.worse) == (0.5, 0.25, 0.25)
    # of the 8 sign patterns of (1, 2, -1), six have |sum| >= 2 (the zero doubles both counts)
    assert p.p_value == pytest.approx(0.75)
    assert p.ci == bootstrap_ci([1.0, 0.0, 2.0, -1.0], seed=3)
    assert p.ci is not None and -1 <= p.ci.low < 0.5 < p.ci.high <= 2


def test_identical_runs_differ_by_zero_with_p_one(store: Store) -> None:
    a = stored_run(store, {"acc": single([1, 3, 5])})
    b = stored_run(store, {"acc": single([1, 3, 5])})
    result = row(compare_runs(store, a, store, b), "acc")
    assert result.paired.difference == 0.0
    assert result.paired.p_value == 1.0 and result.paired.wilcoxon_p == 1.0
    assert result.winner is None and not result.significant
    assert result.paired.equal == 1.0


def test_trials_are_averaged_per_sample_before_pairing(store: Store) -> None:
    a = stored_run(store, {"acc": {"s1": [1, 3], "s2": [4, 4]}})
    b = stored_run(store, {"acc": {"s1": [5], "s2": [2, 3, 4]}})
    p = row(compare_runs(store, a, store, b), "acc").paired
    assert p.n == 2
    assert (p.mean_a, p.mean_b) == pytest.approx((3.0, 4.0))  # A: 2, 4; B: 5, 3
    assert p.difference == pytest.approx(1.0)  # differences 3, -1
    assert (p.better, p.worse) == (0.5, 0.5)


def test_errors_and_missing_samples_are_dropped_and_counted(store: Store) -> None:
    a = stored_run(
        store,
        {"acc": {"s1": [1], "s2": ["judge timeout"], "s3": [3], "s4": [4], "s5": [2, "bad"]}},
    )
    b = stored_run(
        store, {"acc": {"s1": [2], "s2": [5], "s3": ["unparseable"], "s5": [4], "s6": [1]}}
    )
    result = row(compare_runs(store, a, store, b), "acc")
    assert (result.missing_a, result.missing_b, result.errors, result.excluded) == (1, 1, 2, 0)
    # s1 (1 → 2) and s5 (the failed trial is left out: 2 → 4) remain
    assert result.paired.n == 2
    assert result.paired.difference == pytest.approx(1.5)
    assert result.dropped == 4


def test_excluded_values_leave_samples_out(store: Store) -> None:
    a = stored_run(store, {"answer_accuracy": {"s1": [3], "s2": [0], "s3": [4, 0]}})
    b = stored_run(store, {"answer_accuracy": {"s1": [5], "s2": [4], "s3": [2]}})
    plain = row(compare_runs(store, a, store, b, exclude={}), "answer_accuracy")
    assert plain.paired.n == 3 and plain.excluded == 0
    # by default the runs' configs say what answer_accuracy leaves out
    comparison = compare_runs(store, a, store, b)
    result = row(comparison, "answer_accuracy")
    # s2's only value is the excluded 0; s3's 0 trial is dropped, leaving 4
    assert result.excluded == 1 and result.paired.n == 2
    assert result.paired.mean_a == pytest.approx(3.5)
    assert result.paired.difference == pytest.approx(0.0)  # +2 and -2
    assert comparison.excluded_values == {"answer_accuracy": [0.0]}


def test_lower_is_better_flips_the_verdict(store: Store) -> None:
    meanings = {
        "mqa.lscore": ScoreMeaning(direction="lower", high=None),
        "mqa.wscore": ScoreMeaning(high=5),
    }
    a = stored_run(
        store,
        {"mqa.lscore": single([3, 4, 5, 2]), "mqa.wscore": single([2, 3, 3, 4])},
        meanings=meanings,
    )
    b = stored_run(
        store,
        {"mqa.lscore": single([2, 3, 4, 1]), "mqa.wscore": single([3, 4, 4, 5])},
        meanings=meanings,
    )
    comparison = compare_runs(store, a, store, b)
    fewer_turns = row(comparison, "mqa.lscore")
    assert fewer_turns.direction == "lower"
    assert fewer_turns.paired.difference == pytest.approx(-1.0)
    assert fewer_turns.winner == "B" and fewer_turns.significant
    assert fewer_turns.paired.better == 1.0  # B needs fewer turns everywhere
    assert row(comparison, "mqa.wscore").direction == "higher"
    assert comparison.lower_is_better == ["mqa.lscore"]
    custom = compare_runs(store, a, store, b, lower_is_better={"mqa.wscore"})
    assert row(custom, "mqa.wscore").winner == "A"
    assert row(custom, "mqa.lscore").winner == "A"
    assert custom.lower_is_better == ["mqa.wscore"]


def test_old_runs_get_their_directions_from_the_config(store: Store) -> None:
    config = {"metrics": [{"metric": "multiturn", "name": "mqa"}]}
    a = stored_run(store, {"mqa.lscore": single([3, 4, 5, 2])}, config=config)
    b = stored_run(store, {"mqa.lscore": single([2, 3, 4, 1])}, config=config)
    assert row(compare_runs(store, a, store, b), "mqa.lscore").direction == "lower"


def test_per_subset_tables_use_run_a_metadata(store: Store) -> None:
    meta_a = {"s0": {"product": "db"}, "s1": {"product": "db"}, "s2": {"product": "os"}}
    meta_a["s3"] = {}
    a = stored_run(store, {"acc": single([1, 2, 3, 4])}, metadata=meta_a)
    # run B's metadata disagrees; run A's wins
    meta_b = {sid: {"product": "other"} for sid in meta_a}
    b = stored_run(store, {"acc": single([2, 4, 3, 3])}, metadata=meta_b)
    comparison = compare_runs(store, a, store, b, by="product")
    assert list(comparison.subsets) == ["db", "os", "(none)"]
    (db,) = comparison.subsets["db"]
    assert db.paired.n == 2 and db.paired.difference == pytest.approx(1.5)
    (os_,) = comparison.subsets["os"]
    assert os_.paired.n == 1 and os_.paired.difference == 0.0 and os_.paired.ci is None
    (none,) = comparison.subsets["(none)"]
    assert none.paired.difference == pytest.approx(-1.0)
    assert row(comparison, "acc").paired.n == 4
    with pytest.raises(ValueError, match="no sample has metadata key 'topic'"):
        compare_runs(store, a, store, b, by="topic")


def test_list_valued_metadata_gives_one_subset_per_combination(store: Store) -> None:
    meta = {
        "s0": {"type": ["Factoid"]},
        "s1": {"type": ["Factoid", "Keyword"]},
        "s2": {"type": ["Factoid"]},
        "s3": {"type": []},
    }
    a = stored_run(store, {"acc": single([1, 2, 3, 4])}, metadata=meta)
    b = stored_run(store, {"acc": single([2, 2, 4, 4])})
    comparison = compare_runs(store, a, store, b, by="type")
    assert list(comparison.subsets) == ["Factoid", "Factoid, Keyword", "(none)"]
    (factoid,) = comparison.subsets["Factoid"]
    assert factoid.paired.n == 2 and factoid.paired.difference == pytest.approx(1.0)


def test_runs_in_two_store_files(tmp_path: Path) -> None:
    with Store(tmp_path / "qa.db") as qa, Store(tmp_path / "mqa.db") as mqa:
        a = stored_run(qa, {"acc": single([1, 2, 3])}, name="QA")
        b = stored_run(mqa, {"acc": single([3, 3, 3])}, name="MQA")
        comparison = compare_runs(qa, a[:12], mqa, b[:12])
    assert comparison.run_a.run_id == a and comparison.run_b.run_id == b
    assert comparison.run_a.store.endswith("qa.db") and comparison.run_b.name == "MQA"
    assert row(comparison, "acc").paired.difference == pytest.approx(1.0)


def test_metric_selection_and_metrics_in_one_run_only(store: Store) -> None:
    a = stored_run(store, {"acc": single([1, 2]), "rouge_l": single([0.1, 0.2])})
    b = stored_run(store, {"acc": single([2, 2]), "bleu": single([0.3, 0.4])})
    comparison = compare_runs(store, a, store, b)
    assert [r.metric for r in comparison.rows] == ["acc"]
    assert (comparison.only_a, comparison.only_b) == (["rouge_l"], ["bleu"])
    assert [r.metric for r in compare_runs(store, a, store, b, metrics=["acc"]).rows] == ["acc"]
    with pytest.raises(ValueError, match="not in both runs: rouge_l; shared metrics: acc"):
        compare_runs(store, a, store, b, metrics=["rouge_l"])


def test_unknown_run_and_unusable_runs_raise_clear_errors(store: Store) -> None:
    a = stored_run(store, {"acc": single([1, 2])})
    with pytest.raises(KeyError, match="no run 'nope'"):
        compare_runs(store, a, store, "nope")
    with pytest.raises(KeyError, match="no run 'nope'"):
        compare_runs(store, "nope", store, a)
    empty = store.create_run(name=None, config={}, versions={}, samples=[], trials=1)
    with pytest.raises(ValueError, match="no scores"):
        compare_runs(store, a, store, empty)
    other = stored_run(store, {"acc": {"x1": [1.0]}})
    with pytest.raises(ValueError, match="share no request_id"):
        compare_runs(store, a, store, other)
    unrelated = stored_run(store, {"bleu": single([1, 2])})
    with pytest.raises(ValueError, match="share no metric"):
        compare_runs(store, a, store, unrelated)


def test_what_runs_cannot_answer_is_an_analysis_error(store: Store) -> None:
    a = stored_run(store, {"acc": single([1, 2])})
    other = stored_run(store, {"acc": {"x1": [1.0]}})
    unrelated = stored_run(store, {"bleu": single([1, 2])})
    for b, message in ((other, "share no request_id"), (unrelated, "share no metric")):
        with pytest.raises(AnalysisError, match=message):
            compare_runs(store, a, store, b)
    with pytest.raises(AnalysisError, match="no sample has metadata key 'topic'"):
        compare_runs(store, a, store, a, by="topic")
    with pytest.raises(RunNotFound, match="no run 'nope'"):
        compare_runs(store, a, store, "nope")


# --- outputs ------------------------------------------------------------------------------


def comparison_with_subsets(store: Store) -> Comparison:
    meta = {f"s{i}": {"product": "db" if i < 3 else "os"} for i in range(6)}
    meanings = {"lscore": ScoreMeaning(direction="lower", low=1, high=None)}
    a = stored_run(
        store,
        {"acc": single([1, 2, 3, 4, 2, 0]), "lscore": single([3, 3, 2, 1, 3, 2])},
        metadata=meta,
        name="QA",
        meanings=meanings,
    )
    b = stored_run(
        store,
        {"acc": single([2, 3, 4, 5, 3, 5]), "lscore": single([3, 2, 2, 1, 3, 2])},
        name="MQA",
        meanings=meanings,
    )
    return compare_runs(store, a, store, b, by="product", exclude={"acc": [0.0]})


def test_to_frame_has_overall_and_subset_rows(store: Store) -> None:
    frame = comparison_with_subsets(store).to_frame()
    assert frame["group"].isna().tolist() == [True, True, False, False, False, False]
    assert list(frame["group"][2:]) == ["db", "db", "os", "os"]
    assert list(frame["metric"]) == ["acc", "lscore"] * 3
    overall = frame.iloc[0]
    assert overall["difference"] == pytest.approx(1.0) and overall["n"] == 5
    assert overall["excluded"] == 1 and overall["winner"] == "B"
    assert bool(overall["ci_excludes_zero"])
    assert frame["n"].dtype == np.int64 and frame["ci_low"].dtype == np.float64
    assert frame.iloc[1]["direction"] == "lower"


def test_to_dict_is_json_without_nan(store: Store) -> None:
    comparison = comparison_with_subsets(store)
    data = comparison.to_dict()
    text = json.dumps(data, allow_nan=False)  # raises on NaN
    again = json.loads(text)
    assert again["run_a"]["name"] == "QA" and again["by"] == "product"
    assert again["excluded_values"] == {"acc": [0.0]}
    assert [m["metric"] for m in again["metrics"]] == ["acc", "lscore"]
    assert set(again["subsets"]) == {"db", "os"}
    assert again["metrics"][0]["difference"] == pytest.approx(1.0)
    assert "sign-flip" in again["test"]
    # a single pair has no interval: None, not NaN
    a = stored_run(store, {"acc": single([1.0])})
    b = stored_run(store, {"acc": single([2.0])})
    (single_pair,) = compare_runs(store, a, store, b).to_dict()["metrics"]
    assert single_pair["ci_low"] is None and single_pair["n"] == 1
    assert single_pair["wilcoxon_p"] is not None


def render(comparison: Comparison) -> str:
    buffer = StringIO()
    Console(width=220, file=buffer, color_system=None).print(render_comparison(comparison))
    return buffer.getvalue()


def test_rendered_table_marks_the_better_run_and_the_subsets(store: Store) -> None:
    text = render(comparison_with_subsets(store))
    lines = text.splitlines()
    acc = next(line for line in lines if " acc " in line and "(all)" in line)
    assert "+1.000" in acc and "B better" in acc
    assert "100% / 0% / 0%" in acc and "excluded 1" in acc
    # B needs one turn fewer on one sample: the interval touches 0, no verdict
    assert any("lscore ↓" in line and "no clear difference" in line for line in lines)
    assert any(line.lstrip("│ ").startswith("db") for line in lines)
    assert any(line.lstrip("│ ").startswith("os") for line in lines)
    assert "A = " in text and "(QA)" in text and "(MQA)" in text
    assert "B better / B worse: the interval of B − A excludes 0" in text
    assert "acc: 0" in text  # the excluded values


def test_rendering_keeps_brackets_in_names_literal(store: Store) -> None:
    meta = {"s0": {"set": "[red]x[/red]"}, "s1": {"set": "[red]x[/red]"}}
    a = stored_run(store, {"acc": single([1, 2])}, metadata=meta)
    b = stored_run(store, {"acc": single([1, 2])})
    store.set_status(b, "interrupted")
    text = render(compare_runs(store, a, store, b, by="set"))
    assert "[red]x[/red]" in text
    assert f"{b} [interrupted] in" in text


# --- command ------------------------------------------------------------------------------


def test_compare_command_prints_json_and_a_table(tmp_path: Path) -> None:
    with Store(tmp_path / "a.db") as sa, Store(tmp_path / "b.db") as sb:
        config = {"metrics": ["answer_accuracy"]}
        a = stored_run(sa, {"answer_accuracy": single([3, 0, 4])}, config=config)
        b = stored_run(sb, {"answer_accuracy": single([4, 5, 5])}, config=config)
    stores = ["--store", str(tmp_path / "a.db"), "--store-b", str(tmp_path / "b.db")]
    result = CliRunner().invoke(app, ["compare", a[:10], b[:10], *stores, "--json"])
    assert result.exit_code == 0, result.output
    (accuracy,) = json.loads(result.stdout)["metrics"]
    # the config's answer_accuracy excludes 0, so s1 is left out
    assert accuracy["n"] == 2 and accuracy["excluded"] == 1
    assert accuracy["difference"] == pytest.approx(1.0)
    table = CliRunner().invoke(app, ["compare", a, b, *stores, "--metric", "answer_accuracy"])
    assert table.exit_code == 0 and "answer_accuracy " in table.stdout


def test_compare_command_errors(tmp_path: Path) -> None:
    missing = CliRunner().invoke(app, ["compare", "a", "b", "--store", str(tmp_path / "no.db")])
    assert missing.exit_code == 2 and "no store" in missing.output
    assert not (tmp_path / "no.db").exists()
    with Store(tmp_path / "runs.db") as s:
        a = stored_run(s, {"acc": single([1.0])})
    unknown = CliRunner().invoke(app, ["compare", a, "zzz", "--store", str(tmp_path / "runs.db")])
    assert unknown.exit_code == 2 and "no run 'zzz'" in unknown.output


def test_shares_and_p_values_are_finite_for_many_samples(store: Store) -> None:
    rng = np.random.default_rng(7)
    base = rng.integers(1, 6, size=60).astype(float)
    better = np.clip(base + rng.integers(0, 2, size=60), 1, 5)
    a = stored_run(store, {"acc": single(base.tolist())})
    b = stored_run(store, {"acc": single(better.tolist())})
    p = row(compare_runs(store, a, store, b), "acc").paired
    assert p.n == 60 and p.p_value is not None and 0 < p.p_value < 0.01
    assert p.better is not None and p.equal is not None and p.worse == 0.0
    assert math.isclose(p.better + p.equal, 1.0)
