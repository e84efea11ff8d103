from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from rich.console import Console
from scipy import stats as scipy_stats

from conftest import shared_data
from ragjudge.api import evaluate
from ragjudge.datasets import load_mtrag_human
from ragjudge.meta._evaluation import MetaTable, human_score, meta_evaluate, meta_for_run
from ragjudge.schema import Sample, Score, ScoreMeaning
from ragjudge.store._store import Store
from ragjudge.terminal import render_meta

# --- human scores -----------------------------------------------------------------------


def test_annotator_dict_of_strings_is_averaged() -> None:
    assert human_score({"ann1": "4", "ann2": "3"}) == pytest.approx(3.5)
    assert human_score({"a": 4, "b": 1, "c": 2}, combine="median") == 2.0


def test_lists_numbers_and_numeric_strings() -> None:
    assert human_score([1, 2, 4]) == pytest.approx(7 / 3)
    assert human_score([1, 2, 4], combine="median") == 2.0
    assert human_score(3) == 3.0
    assert human_score(2.5) == 2.5
    assert human_score(" 4 ") == 4.0
    assert human_score(np.int64(2)) == 2.0


def test_mtrag_annotation_records_are_read_through_their_value() -> None:
    raw = {
        "46542882": {"timestamp": 1728569383.0, "duration": 467.0, "value": "4"},
        "47200615": {"timestamp": 1728856279.0, "duration": 596.0, "value": "2"},
    }
    assert human_score(raw) == pytest.approx(3.0)


def test_json_text_of_a_dict_or_list_is_parsed() -> None:
    # The score frame keeps dict metadata as JSON text.
    assert human_score('{"ann1": "4", "ann2": "3"}') == pytest.approx(3.5)
    assert human_score("[1, 3]") == pytest.approx(2.0)


@pytest.mark.parametrize("empty", [None, math.nan, "", "  ", [], {}, {"a": None}])
def test_missing_human_scores_are_none(empty: Any) -> None:
    assert human_score(empty) is None


@pytest.mark.parametrize("bad", ["maybe", {"a": "good"}, "{not json", math.inf, object()])
def test_values_that_are_not_labels_raise(bad: Any) -> None:
    with pytest.raises(ValueError, match="label"):
        human_score(bad)


@pytest.mark.parametrize(
    ("value", "expected"),
    [(True, 1.0), ("Yes", 1.0), ("no.", 0.0), ("はい", 1.0), ("いいえ", 0.0), ("ＹＥＳ", 1.0)],
)
def test_booleans_and_yes_no_words_are_labels(value: Any, expected: float) -> None:
    assert human_score(value) == expected


def test_unknown_combine_raises() -> None:
    with pytest.raises(ValueError, match="combine"):
        human_score(3, combine="max")  # type: ignore[arg-type]


# --- meta_evaluate on a hand-made frame ---------------------------------------------------

HUMAN = {
    "s1": {"a": "1", "b": "2"},
    "s2": {"a": "2", "b": "2"},
    "s3": {"a": "3", "b": "4"},
    "s4": {"a": "4", "b": "4"},
    "s5": {"a": "4", "b": "3"},
    "s6": None,
}
ACCURACY = {
    "s1": [1.0, 2.0],
    "s2": [2.0, 2.0],
    "s3": [3.0, 5.0],
    "s4": [5.0, 5.0],
    "s5": [4.0, 4.0],
}
ACCURACY["s6"] = [1.0, 1.0]
SIMILARITY = {"s1": 0.2, "s2": 0.1, "s3": 0.5, "s4": 0.3, "s5": 0.9, "s6": 0.4}


def hand_frame() -> pd.DataFrame:
    """Two trials of 'accuracy' and one of 'similarity' per sample; s6 has no human
    score; 'similarity' failed on s2."""
    rows: list[tuple[str, int, str, float, str | None]] = []
    for sample_id, trials in ACCURACY.items():
        for trial, value in enumerate(trials):
            rows.append((sample_id, trial, "accuracy", value, None))
    for sample_id, value in SIMILARITY.items():
        failed = sample_id == "s2"
        rows.append(
            (
                sample_id,
                0,
                "similarity",
                math.nan if failed else value,
                "timeout" if failed else None,
            )
        )
    frame = pd.DataFrame(rows, columns=["sample_id", "trial", "metric", "value", "error"])
    # As in a store's score frame: dicts as JSON text, None kept.
    frame["metadata.quality"] = frame["sample_id"].map(lambda s: as_json_text(HUMAN[s]))
    frame["metadata.product"] = frame["sample_id"].map(
        lambda s: "db" if s in ("s1", "s2", "s3") else "os"
    )
    frame["metadata.other_tool"] = frame["sample_id"].map(lambda s: SIMILARITY[s] * 2)
    return frame


def as_json_text(value: Any) -> str | None:
    return None if value is None else json.dumps(value)


def human_means() -> dict[str, float]:
    return {s: float(np.mean([float(v) for v in h.values()])) for s, h in HUMAN.items() if h}


def test_trials_are_averaged_before_correlating() -> None:
    table = meta_evaluate(hand_frame(), "quality")
    (block,) = table.blocks
    assert block.human == "quality" and block.group is None
    assert block.missing == 1 and block.n == 5
    assert block.human_mean == pytest.approx(np.mean(list(human_means().values())))
    accuracy = next(r for r in block.rows if r.metric == "accuracy")
    per_sample = {s: float(np.mean(v)) for s, v in ACCURACY.items() if s != "s6"}
    human = human_means()
    ids = sorted(per_sample)
    x = [per_sample[s] for s in ids]
    y = [human[s] for s in ids]
    assert accuracy.n == 5 and accuracy.unpaired == 0
    assert accuracy.mean == pytest.approx(np.mean(x))
    assert accuracy.correlations["pearson"].estimate == pytest.approx(np.corrcoef(x, y)[0, 1])
    spearman = accuracy.correlations["spearman"].estimate
    assert spearman == pytest.approx(scipy_stats.spearmanr(x, y)[0])


def test_failed_metric_values_leave_the_pair_and_are_counted() -> None:
    (block,) = meta_evaluate(hand_frame(), "quality").blocks
    similarity = next(r for r in block.rows if r.metric == "similarity")
    assert similarity.n == 4 and similarity.unpaired == 1
    assert similarity.mean == pytest.approx(np.mean([0.2, 0.5, 0.3, 0.9]))


def test_median_combines_annotators() -> None:
    frame = hand_frame()
    frame["metadata.quality"] = frame["sample_id"].map(
        lambda s: json.dumps([1, 2, 4]) if s == "s1" else as_json_text(HUMAN[s])
    )
    mean_block = meta_evaluate(frame, "quality").blocks[0]
    median_block = meta_evaluate(frame, "quality", combine="median").blocks[0]
    assert mean_block.human_mean != median_block.human_mean
    assert median_block.human_mean == pytest.approx((2 + 2 + 3.5 + 4 + 3.5) / 5)


def test_excluded_values_are_dropped_before_averaging_trials() -> None:
    frame = hand_frame()
    (block,) = meta_evaluate(frame, "quality", exclude={"accuracy": [5.0]}).blocks
    accuracy = next(r for r in block.rows if r.metric == "accuracy")
    # s4 had only 5s and drops out; s3 keeps its 3.
    assert accuracy.n == 4 and accuracy.unpaired == 1
    assert accuracy.mean == pytest.approx(np.mean([1.5, 2.0, 3.0, 4.0]))


def test_several_human_keys_give_separate_blocks() -> None:
    frame = hand_frame()
    frame["metadata.second"] = frame["sample_id"].map(lambda s: 5 if s == "s1" else [1, 2])
    table = meta_evaluate(frame, ["quality", "second"])
    assert [b.human for b in table.blocks] == ["quality", "second"]
    assert table.blocks[1].n == 6 and table.blocks[1].missing == 0
    assert table.blocks[1].human_mean == pytest.approx((5 + 5 * 1.5) / 6)


def test_by_gives_one_block_per_group() -> None:
    table = meta_evaluate(hand_frame(), "quality", by="product")
    assert [(b.group, b.n, b.missing) for b in table.blocks] == [("db", 3, 0), ("os", 2, 1)]
    db_accuracy = next(r for r in table.blocks[0].rows if r.metric == "accuracy")
    assert db_accuracy.n == 3


def test_extra_scores_from_metadata_become_rows() -> None:
    (block,) = meta_evaluate(hand_frame(), "quality", extra=["other_tool"]).blocks
    assert [r.metric for r in block.rows] == ["accuracy", "similarity", "other_tool"]
    other = block.rows[2]
    assert other.n == 5
    assert other.mean == pytest.approx(2 * np.mean([0.2, 0.1, 0.5, 0.3, 0.9]))
    ids = ["s1", "s2", "s3", "s4", "s5"]  # s6 has no human score
    x = [2 * SIMILARITY[s] for s in ids]
    y = [human_means()[s] for s in ids]
    kendall = other.correlations["kendall"].estimate
    assert kendall == pytest.approx(scipy_stats.kendalltau(x, y).statistic)


def test_unknown_human_key_and_bad_values_are_errors() -> None:
    with pytest.raises(ValueError, match=r"no sample has metadata key 'nope'.*product"):
        meta_evaluate(hand_frame(), "nope")
    frame = hand_frame()
    frame["metadata.quality"] = frame["sample_id"].map(lambda s: "great" if s == "s3" else "3")
    with pytest.raises(ValueError, match="sample 's3', metadata 'quality'"):
        meta_evaluate(frame, "quality")
    with pytest.raises(ValueError, match="lacks column"):
        meta_evaluate(hand_frame().drop(columns="error"), "quality")


def test_same_data_same_table() -> None:
    first = meta_evaluate(hand_frame(), "quality", seed=4).to_dict()
    assert first == meta_evaluate(hand_frame(), "quality", seed=4).to_dict()


def test_to_frame_and_to_dict() -> None:
    table = meta_evaluate(hand_frame(), ["quality"], by="product")
    frame = table.to_frame()
    assert len(frame) == 4
    assert {"human", "group", "metric", "mean", "n", "pearson", "pearson_low", "kendall_p"} <= set(
        frame.columns
    )
    assert frame["pearson"].dtype == np.float64
    data = table.to_dict()
    text = json.dumps(data, allow_nan=False)  # no NaN leaks into JSON
    assert json.loads(text)["blocks"][0]["rows"][0]["metric"] == "accuracy"
    assert data["by"] == "product" and data["combine"] == "mean"


def test_render_meta_shows_the_human_row_first() -> None:
    table = meta_evaluate(hand_frame(), "quality")
    console = Console(width=160, record=True)
    console.print(render_meta(table))
    text = console.export_text()
    lines = [line for line in text.splitlines() if "quality" in line or "accuracy" in line]
    assert "(human score)" in lines[0] and "1.000" in lines[0]
    assert any("accuracy" in line for line in lines[1:])
    assert "1 sample(s) without a human score left out" in text
    assert "Pearson [95% CI]" in text


# --- meta_for_run -------------------------------------------------------------------------


def stored_run(
    tmp_path: Path, config: dict[str, Any], meanings: dict[str, ScoreMeaning] | None = None
) -> tuple[Store, str]:
    store = Store(tmp_path / "runs.db")
    samples = [
        Sample(
            request_id=sample_id,
            request="q",
            response="a",
            metadata={"quality": HUMAN[sample_id], "product": "db" if i < 3 else "os"},
        )
        for i, sample_id in enumerate(HUMAN)
    ]
    run_id = store.create_run(
        name="t", config=config, versions={}, samples=samples, trials=1, meanings=meanings
    )
    for sample_id, trials in ACCURACY.items():
        for trial, value in enumerate(trials):
            store.save_scores(run_id, sample_id, trial, [Score(metric="accuracy", value=value)])
    return store, run_id


def test_meta_for_run_reads_dict_metadata_from_the_samples(tmp_path: Path) -> None:
    store, run_id = stored_run(tmp_path, {"metrics": ["accuracy"]})
    with store:
        table = meta_for_run(store, run_id[:10], ["quality"], by="product")
    assert isinstance(table, MetaTable)
    assert table.run_id == run_id
    assert [(b.group, b.n, b.missing) for b in table.blocks] == [("db", 3, 0), ("os", 2, 1)]
    (all_samples,) = meta_evaluate(hand_frame(), "quality").blocks  # same numbers from a frame
    with Store(tmp_path / "runs.db") as again:
        (block,) = meta_for_run(again, run_id, ["quality"]).blocks
    assert block.rows[0].correlations == all_samples.rows[0].correlations


def test_meta_for_run_leaves_out_what_the_runs_metrics_exclude(tmp_path: Path) -> None:
    store, run_id = stored_run(
        tmp_path, {"metrics": ["accuracy"]}, {"accuracy": ScoreMeaning(high=5, excluded=(5.0,))}
    )
    with store:
        table = meta_for_run(store, run_id, ["quality"])
    accuracy = table.blocks[0].rows[0]
    assert accuracy.n == 4 and accuracy.unpaired == 1
    assert table.excluded_values == {"accuracy": [5.0]}


def test_meta_for_run_errors(tmp_path: Path) -> None:
    store, run_id = stored_run(tmp_path, {"metrics": ["accuracy"]})
    with store:
        with pytest.raises(KeyError):
            meta_for_run(store, "no-such-run", ["quality"])
        with pytest.raises(ValueError, match="no sample has metadata key 'completeness'"):
            meta_for_run(store, run_id, ["completeness"])
        empty = store.create_run(name=None, config={}, versions={}, samples=[], trials=1)
        with pytest.raises(ValueError, match="no scores"):
            meta_for_run(store, empty, ["quality"])


# --- on the MTRAG human-evaluation data -------------------------------------------------


@pytest.mark.slow
def test_rouge_l_against_mtrag_human_completeness(tmp_path: Path) -> None:
    samples = load_mtrag_human(shared_data("mtrag-human"))
    rows = [sample_row(s) for s in samples]
    result = evaluate(rows, metrics=["rouge_l"], store=tmp_path / "runs.db", progress=False)
    with Store(tmp_path / "runs.db") as store:
        table = meta_for_run(
            store, result.run_id, ["completeness", "faithfulness"], extra=["auto.RougeL"]
        )
    completeness, faithfulness = table.blocks
    assert (completeness.n, completeness.missing) == (477, 0)
    ours, theirs = completeness.rows
    assert ours.metric == "rouge_l" and theirs.metric == "auto.RougeL"
    # Our ROUGE-L agrees with the file's own within tokenisation differences.
    assert ours.mean == pytest.approx(theirs.mean, abs=0.02)
    for row in (*completeness.rows, *faithfulness.rows):
        ci = row.correlations["spearman"].ci
        assert row.n == 477 and ci is not None and ci.low > 0


def sample_row(sample: Sample) -> dict[str, Any]:
    row = sample.model_dump(mode="json", exclude_none=True)
    row["request"] = row["request"]["original"]
    return row
