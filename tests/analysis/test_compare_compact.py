"""compare reads each run as compact per-sample arrays: the same differences,
intervals, p-values, drop counts and paired pass rates as the score frame gives
(trials averaged, errors and excluded values left out, samples in one run only)."""

from __future__ import annotations

import random
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path

import pytest

from ragjudge.analysis._compare import compare_runs
from ragjudge.analysis._paired_passes import paired_pass_rates
from ragjudge.analysis._passes import run_passes, sample_passes
from ragjudge.schema import Sample, Score, ScoreMeaning
from ragjudge.stats import paired_difference, sample_means
from ragjudge.store._store import Store

MEANINGS = {
    "acc": ScoreMeaning(low=0.0, high=1.0, threshold=0.5, excluded=(0.0,)),
    "f1": ScoreMeaning(low=0.0, high=1.0, threshold=0.7),
    "loss": ScoreMeaning(low=0.0, high=5.0, direction="lower"),
}


def random_run(store: Store, seed: int, samples: int) -> str:
    """A run of three scores over ``samples`` samples (a few missing per run), two
    trials each, with errors, excluded values and scores that did not apply."""
    rng = random.Random(seed)
    ids = [f"q{i:03d}" for i in range(samples) if rng.random() > 0.05]
    run_id = store.create_run(
        name=f"run {seed}",
        config={"metrics": list(MEANINGS)},
        versions={},
        samples=[Sample(request_id=i, request="q", response="a") for i in ids],
        trials=2,
        meanings=MEANINGS,
    )
    for sample_id in ids:
        for trial in range(2):
            store.save_scores(run_id, sample_id, trial, [_score(rng, m) for m in MEANINGS])
    store.set_status(run_id, "completed")
    return run_id


def _score(rng: random.Random, metric: str) -> Score:
    roll = rng.random()
    if roll < 0.06:
        return Score.failed(metric, "judge timed out")
    if roll < 0.09:
        return Score.not_applicable(metric, "no reference")
    if metric == "acc":
        return Score(metric=metric, value=rng.choice([0.0, 0.5, 1.0]))
    if metric == "loss":
        return Score(metric=metric, value=round(rng.uniform(0, 5), 2))
    return Score(metric=metric, value=round(rng.random(), 3))


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    with Store(tmp_path / "runs.db") as s:
        yield s


def frame_reference(
    store: Store, run_a: str, run_b: str, metric: str, exclude: Mapping[str, Sequence[float]]
) -> tuple[list[float], list[float], dict[str, int]]:
    """The paired values and drop counts as read from the two runs' score frames."""
    frames = [store.score_frame(r, metadata=False) for r in (run_a, run_b)]
    kept = [sample_means(f, exclude)[metric] for f in frames]
    valid = [sample_means(f)[metric] for f in frames]
    seen = [list(f.loc[f["metric"] == metric, "sample_id"].drop_duplicates()) for f in frames]
    a_values: list[float] = []
    b_values: list[float] = []
    counts = {"missing_a": 0, "missing_b": 0, "errors": 0, "excluded": 0}
    for sample_id in dict.fromkeys([*seen[0], *seen[1]]):
        if sample_id not in seen[0]:
            counts["missing_a"] += 1
        elif sample_id not in seen[1]:
            counts["missing_b"] += 1
        elif any(sample_id not in v.index for v in valid):
            counts["errors"] += 1
        elif any(sample_id not in k.index for k in kept):
            counts["excluded"] += 1
        else:
            a_values.append(float(kept[0][sample_id]))
            b_values.append(float(kept[1][sample_id]))
    return a_values, b_values, counts


@pytest.mark.parametrize("seeds", [(1, 2), (3, 4), (5, 6)])
def test_compact_reads_give_the_score_frames_comparison(
    store: Store, seeds: tuple[int, int]
) -> None:
    run_a, run_b = (random_run(store, seed, 120) for seed in seeds)
    comparison = compare_runs(store, run_a, store, run_b, n_resamples=300)
    first_seen = store.score_frame(run_a, metadata=False)["metric"].drop_duplicates()
    assert [r.metric for r in comparison.rows] == list(first_seen)
    assert sorted(first_seen) == ["acc", "f1", "loss"]
    for found in comparison.rows:
        exclude = {"acc": [0.0]}
        a_values, b_values, counts = frame_reference(store, run_a, run_b, found.metric, exclude)
        expected = paired_difference(
            a_values, b_values, n_resamples=300, lower_is_better=found.metric == "loss"
        )
        assert found.paired == expected
        assert found.paired.n > 50
        assert {r: getattr(found, r) for r in counts} == counts
    assert sum(r.errors for r in comparison.rows) > 0
    acc = next(r for r in comparison.rows if r.metric == "acc")
    assert acc.excluded > 0
    assert acc.missing_a + acc.missing_b > 0


def test_paired_pass_rates_are_those_of_the_runs_sample_passes(store: Store) -> None:
    run_a, run_b = random_run(store, 7, 150), random_run(store, 8, 150)
    comparison = compare_runs(store, run_a, store, run_b, n_resamples=50)
    expected = paired_pass_rates(
        sample_passes(store.scores(run_a), MEANINGS),
        sample_passes(store.scores(run_b), MEANINGS),
        ["acc", "f1", "loss"],
    )
    assert [p.metric for p in comparison.pass_rates] == ["acc", "f1"]
    assert comparison.pass_rates == expected
    assert all(p.n > 50 for p in comparison.pass_rates)


def test_a_runs_passes_read_compactly_are_those_of_its_scores(store: Store) -> None:
    run_id = random_run(store, 9, 150)
    expected = sample_passes(store.scores(run_id), MEANINGS)
    found = run_passes(store, run_id, MEANINGS)
    assert found == expected
    assert list(found) == list(expected)
    assert sorted(found) == ["acc", "f1"]
    assert list(found["f1"]) == list(expected["f1"])  # sample order
    assert set(found["f1"].values()) == {True, False, None}
