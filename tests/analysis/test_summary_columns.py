"""The run summary read from score columns in pages is the summary of the whole score
frame: every figure, interval, count, error group and subset, in the same order."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from ragjudge.analysis._columns import ColumnSummary, UnknownKeyError, summarize_columns
from ragjudge.analysis._meanings import exclusions, run_meanings
from ragjudge.analysis._results import frame_summary, summarize_run
from ragjudge.schema import Sample, Score, ScoreMeaning
from ragjudge.store import _scores as store_scores
from ragjudge.store._store import Store

ERRORS = (
    "parse error: no [RESULT] in the reply",
    "judge call failed: [timeout] read timed out",
    "no response to judge",
    "ValueError: bad input",
    "something else went wrong",
)


def _metadata(rng: random.Random, i: int) -> dict[str, object]:
    metadata: dict[str, object] = {}
    if i % 7:
        metadata["lang"] = rng.choice(["en", "ja", "fr"])
    if i % 3:
        metadata["tier"] = rng.choice([1, 2, 3])  # an integer key with gaps
    metadata["kind"] = rng.choice([["a"], ["a", "b"], [], "plain"])
    metadata["metadata.odd"] = "x" if i % 2 else "y"
    return metadata


def _scores(rng: random.Random, i: int, trial: int) -> list[Score]:
    """Varied scores of one sample and trial; ``zeta`` is stored first, ``late`` only
    from the fifth sample, ``skippy`` does not apply to every sample."""
    scores = [Score(metric="zeta", value=rng.choice([0.1, 0.2, 0.3, 1 / 3, 0.7]))]
    if rng.random() < 0.15:
        scores.append(Score.failed("alpha", rng.choice(ERRORS[:2])))
    else:
        scores.append(Score(metric="alpha", value=float(rng.randint(0, 5))))
    scores += [
        Score(metric="multi.a", value=rng.random()),
        Score(metric="multi.b", value=rng.choice([0.0, 1.0])),
    ]
    if i % 4 == 0:
        scores.append(Score(metric="skippy", value=None, skipped="no reference"))
    else:
        scores.append(Score(metric="skippy", value=float(i % 3)))
    if i >= 4:
        scores.append(Score(metric="late", value=float(trial % 2)))
    scores.append(Score.failed("broken", rng.choice(ERRORS)))
    return scores


def _stored_run(store: Store, *, samples: int, trials: int, seed: int) -> str:
    rng = random.Random(seed)
    rows = [
        Sample(request_id=f"s{i}", request=f"q{i}", metadata=_metadata(rng, i))
        for i in range(samples)
    ]
    meanings = {"alpha": ScoreMeaning(low=0, high=5, excluded=(0.0,))}
    run_id = store.create_run(
        name=None,
        config={"seed": seed},
        versions={},
        samples=rows,
        trials=trials,
        meanings=meanings,
    )
    for trial in range(trials):
        for i in rng.sample(range(samples), samples):  # stored out of sample order
            store.save_scores(run_id, f"s{i}", trial, _scores(rng, i, trial))
    # An empty error message (Score refuses one; a store can still hold it): grouped
    # as an error, yet the value counts.
    with store._conn:
        store._conn.execute(
            "UPDATE scores SET error = '' WHERE run_id = ? AND metric = 'zeta'"
            " AND request_id IN ('s1', 's2')",
            (run_id,),
        )
    return run_id


def _both(store: Store, run_id: str, by: str | None) -> tuple[ColumnSummary, ColumnSummary]:
    run = store.run(run_id)
    exclude = exclusions(run_meanings(run))
    seed = int(run.config["seed"])
    frame = frame_summary(store, run_id, exclude=exclude, seed=seed, by=by)
    columns = summarize_columns(store, run_id, exclude=exclude, seed=seed, by=by)
    return frame, columns


@pytest.mark.parametrize("trials", [1, 3])
@pytest.mark.parametrize("page_rows", [7, 10_000])
@pytest.mark.parametrize("by", [None, "lang", "metadata.tier", "kind", "metadata.odd"])
def test_the_column_summary_is_the_frame_summary(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, trials: int, page_rows: int, by: str | None
) -> None:
    monkeypatch.setattr(store_scores, "PAGE_ROWS", page_rows)
    with Store(tmp_path / "runs.db") as store:
        run_id = _stored_run(store, samples=40, trials=trials, seed=5)
        frame, columns = _both(store, run_id, by)
    assert columns == frame
    names = [s.metric for s in columns.summaries]
    assert names == ["zeta", "alpha", "multi.a", "multi.b", "broken", "skippy", "late"]
    assert {g.metric for g in columns.errors} == {"zeta", "alpha", "broken"}
    assert next(s for s in columns.summaries if s.metric == "zeta").errors == 0
    assert (by is None) == (not columns.subsets)
    alpha = next(s for s in columns.summaries if s.metric == "alpha")
    assert alpha.excluded > 0 and alpha.errors > 0 and alpha.ci is not None
    assert (alpha.trial_sd is None) == (trials == 1)


def test_a_page_ending_inside_a_sample_changes_nothing(tmp_path: Path) -> None:
    with Store(tmp_path / "runs.db") as store:
        run_id = _stored_run(store, samples=25, trials=4, seed=11)
        names: list[str] = []
        pages = list(store.score_pages(run_id, names, page_rows=5))
        assert len(pages) > 1 and sum(len(p) for p in pages) > 5
        frame, columns = _both(store, run_id, None)
    assert columns == frame


def test_a_key_no_scored_sample_has_is_refused_only_when_there_are_scores(
    tmp_path: Path,
) -> None:
    with Store(tmp_path / "runs.db") as store:
        run_id = _stored_run(store, samples=5, trials=1, seed=2)
        with pytest.raises(UnknownKeyError):
            summarize_columns(store, run_id, exclude={}, seed=0, by="nope")
        samples = [
            Sample(request_id="a", request="q", metadata={"only": 1}),
            Sample(request_id="b", request="q"),
        ]
        empty = store.create_run(name=None, config={}, versions={}, samples=samples, trials=1)
        store.save_scores(empty, "a", 0, [Score(metric="m", value=None, skipped="n/a")])
        assert summarize_columns(store, empty, exclude={}, seed=0, by="only") == ColumnSummary([])
        store.save_scores(empty, "b", 0, [Score(metric="m", value=1.0)])
        with pytest.raises(UnknownKeyError):  # its one sample with the key has no score
            summarize_columns(store, empty, exclude={}, seed=0, by="only")
        with pytest.raises(UnknownKeyError):
            frame_summary(store, empty, exclude={}, seed=0, by="only")


def test_summarize_run_gives_the_frame_s_json(tmp_path: Path) -> None:
    with Store(tmp_path / "runs.db") as store:
        run_id = _stored_run(store, samples=30, trials=2, seed=3)
        result = summarize_run(store, run_id, by="lang")
        frame, _ = _both(store, run_id, "lang")
    payload = result.to_dict()
    assert [m["metric"] for m in payload["metrics"]] == [s.metric for s in frame.summaries]
    assert [m["mean"] for m in payload["metrics"]] == [s.mean for s in frame.summaries]
    assert list(payload["subsets"]) == list(frame.subsets)
    assert payload["errors_by_cause"] == [g.to_dict() for g in frame.errors]
    assert payload["metrics"][-1]["metric"] == "late"


def test_by_a_column_of_the_score_frame_groups_as_the_frame_did(tmp_path: Path) -> None:
    with Store(tmp_path / "runs.db") as store:
        run_id = _stored_run(store, samples=12, trials=2, seed=4)
        result = summarize_run(store, run_id, by="trial")
        exclude = exclusions(run_meanings(store.run(run_id)))
        frame = frame_summary(store, run_id, exclude=exclude, seed=4, by="trial")
    assert list(result.subsets) == ["0", "1"]
    assert result.subsets == frame.subsets
