"""meta with agreement, annotators, pairs, PPI and the correlation table, from a frame,
from a stored run and from the command line."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from ragjudge.cli import app
from ragjudge.meta._evaluation import meta_evaluate
from ragjudge.schema import Sample, Score, ScoreMeaning
from ragjudge.stats import binary_agreement, ppi_estimate
from ragjudge.store._store import Store
from ragjudge.terminal import correlation_table, correlation_table_markdown

runner = CliRunner()


def frame_of(
    values: dict[str, dict[str, float]], metadata: dict[str, dict[str, Any]]
) -> pd.DataFrame:
    """A score frame: ``values[metric][sample]``, one trial, metadata as JSON text
    where it is a dict or a list (as a store keeps it)."""
    rows = [
        (sample, 0, metric, value, None)
        for metric, per_sample in values.items()
        for sample, value in per_sample.items()
    ]
    frame = pd.DataFrame(rows, columns=["sample_id", "trial", "metric", "value", "error"])
    keys = sorted({k for m in metadata.values() for k in m})
    for key in keys:
        frame[f"metadata.{key}"] = frame["sample_id"].map(
            lambda s, key=key: _stored(metadata.get(s, {}).get(key))
        )
    return frame


def _stored(value: Any) -> Any:
    return json.dumps(value, ensure_ascii=False) if isinstance(value, dict | list) else value


IDS = [f"s{i}" for i in range(8)]
JUDGE = dict(zip(IDS, [1, 1, 0, 1, 0, 0, 1, 0], strict=True))
VERDICTS = ["yes", "はい", "no", True, "いいえ", "yes", "yes", False]


def test_yes_no_labels_give_binary_agreement() -> None:
    frame = frame_of({"ok": JUDGE}, {s: {"human": v} for s, v in zip(IDS, VERDICTS, strict=True)})
    table = meta_evaluate(
        frame, "human", meanings={"ok": ScoreMeaning(binary=True)}, n_resamples=200
    )
    (block,) = table.blocks
    assert block.kind == "binary" and block.n == 8
    (row,) = block.rows
    assert row.agreement is not None and row.agreement.binary is not None
    labels = [1.0, 1, 0, 1, 0, 1, 1, 0]
    expected = binary_agreement(list(JUDGE.values()), labels, threshold=0.5, n_resamples=200)
    assert row.agreement.binary == expected
    assert row.agreement.binary.accuracy.value == pytest.approx(7 / 8)
    json.dumps(table.to_dict(), allow_nan=False)


def test_annotator_columns_majority_and_their_agreement() -> None:
    metadata = {
        "s0": {"a": "yes", "b": "yes", "c": "no"},
        "s1": {"a": "no", "b": "no", "c": "no"},
        "s2": {"a": "yes", "b": "yes", "c": "yes"},
        "s3": {"a": "yes", "b": "no"},  # no majority: left out
        "s4": {"a": "no", "b": "no", "c": "yes"},
    }
    frame = frame_of({"judge": {s: float(i % 2) for i, s in enumerate(metadata)}}, metadata)
    table = meta_evaluate(frame, "ok=a,b,c", combine="majority", n_resamples=200)
    (block,) = table.blocks
    assert block.human == "ok" and block.kind == "binary"
    assert (block.n, block.missing, block.no_majority) == (4, 1, 1)
    assert block.annotators is not None
    assert (block.annotators.samples, block.annotators.raters) == (4, 3)
    assert block.annotators.left_out == 1


def test_an_ordinal_judge_on_the_labels_scale_gets_weighted_kappa() -> None:
    human = dict(zip(IDS, [[5, 4], [4, 4], [3], [2, 2], [1, 2], [5], [3, 3], [4, 5]], strict=True))
    judge = dict(zip(IDS, [5, 4, 3, 3, 1, 4, 3, 4], strict=True))
    lexical = dict(zip(IDS, [0.9, 0.7, 0.5, 0.4, 0.1, 0.8, 0.5, 0.6], strict=True))
    frame = frame_of({"judge": judge, "rouge": lexical}, {s: {"h": v} for s, v in human.items()})
    table = meta_evaluate(frame, "h", n_resamples=200)
    (block,) = table.blocks
    assert block.kind == "ordinal"
    judge_row, rouge_row = block.rows
    assert judge_row.agreement is not None and judge_row.agreement.ordinal is not None
    # human means 4.5 4 3 2 1.5 5 3 4.5 round half up to 5 4 3 2 2 5 3 5
    assert judge_row.agreement.ordinal.exact.value == pytest.approx(4 / 8)
    assert judge_row.agreement.ordinal.within_one.value == pytest.approx(8 / 8)
    assert rouge_row.agreement is not None and rouge_row.agreement.ordinal is None
    assert rouge_row.agreement.note is not None and "scale" in rouge_row.agreement.note
    accepted = meta_evaluate(frame, "h", acceptable=4, n_resamples=200)
    binary = accepted.blocks[0].rows[1].agreement
    assert binary is not None and binary.binary is not None
    assert binary.binary.positives == 4  # 4.5, 4, 5, 4.5
    assert binary.binary.threshold is None  # no meaning, no --threshold
    with_threshold = meta_evaluate(
        frame, "h", acceptable=4, thresholds={"rouge": 0.65}, n_resamples=200
    )
    found = with_threshold.blocks[0].rows[1].agreement
    assert found is not None and found.binary is not None
    assert found.binary.accuracy.value == pytest.approx(7 / 8)


def pair_frame() -> pd.DataFrame:
    values = {"f1": {}, "em": {}}
    metadata: dict[str, dict[str, Any]] = {}
    prefs = [[1, 2], [-1, -1], [0, 0], [2, 1], [-2, 0]]
    diffs = [0.3, -0.2, 0.1, -0.1, 0.0]
    for i, (pref, diff) in enumerate(zip(prefs, diffs, strict=True)):
        for side, value in (("model1", 0.5), ("model2", 0.5 + diff)):
            sample = f"p{i}::{side}"
            values["f1"][sample] = value
            values["em"][sample] = 0.0
            metadata[sample] = {"pair": f"p{i}", "label": pref, "dataset": "a" if i < 3 else "b"}
    return frame_of(values, metadata)


def test_pairs_compare_differences_with_preferences() -> None:
    table = meta_evaluate(pair_frame(), "label", pairs="pair", n_resamples=200)
    (block,) = table.blocks
    assert block.n == 5
    f1, em = block.rows
    assert f1.mean == pytest.approx(np.mean([0.3, -0.2, 0.1, -0.1, 0.0]))
    assert f1.agreement is not None and f1.agreement.preference is not None
    # preferred pairs p0 (+, +0.3 ✓), p1 (−, −0.2 ✓), p3 (+, −0.1 ✗), p4 (−, tie ½)
    assert f1.agreement.preference.n == 4
    assert f1.agreement.preference.agreement.value == pytest.approx(2.5 / 4)
    assert em.agreement is not None and em.agreement.preference is not None
    assert em.agreement.preference.agreement.value == pytest.approx(0.5)  # all ties
    grouped = meta_evaluate(pair_frame(), "label", pairs="pair", by="dataset", n_resamples=200)
    assert [(b.group, b.n) for b in grouped.blocks] == [("a", 3), ("b", 2)]


def test_pairs_must_hold_two_samples_with_one_label() -> None:
    frame = pair_frame()
    frame.loc[frame["sample_id"] == "p0::model2", "metadata.label"] = "[0, 0]"
    with pytest.raises(ValueError, match=r"pair 'p0'.*different 'label'"):
        meta_evaluate(frame, "label", pairs="pair")
    frame = pair_frame()
    frame.loc[frame["sample_id"] == "p0::model2", "metadata.pair"] = "p1"
    with pytest.raises(ValueError, match="holds 1 sample"):
        meta_evaluate(frame, "label", pairs="pair")
    with pytest.raises(ValueError, match="PPI"):
        meta_evaluate(pair_frame(), "label", pairs="pair", ppi=True)


def ppi_frame() -> tuple[pd.DataFrame, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(5)
    truth = rng.integers(1, 6, 300).astype(float)
    judge = np.clip(truth + rng.integers(0, 2, 300), 1, 5)
    labelled = np.where(np.arange(300) % 5 == 0, truth, np.nan)
    ids = [f"s{i:03d}" for i in range(300)]
    metadata = {
        s: {"h": None if math.isnan(h) else int(h)} for s, h in zip(ids, labelled, strict=True)
    }
    frame = frame_of({"judge": dict(zip(ids, judge, strict=True))}, metadata)
    return frame, judge, labelled


def test_ppi_rows_use_every_judged_sample() -> None:
    frame, judge, labelled = ppi_frame()
    table = meta_evaluate(
        frame,
        "h",
        ppi=True,
        acceptable=4,
        meanings={"judge": ScoreMeaning(low=1, high=5)},
        n_resamples=200,
    )
    (block,) = table.blocks
    assert (block.n, block.missing) == (60, 240)
    (row,) = block.rows
    assert row.ppi is not None and row.ppi.mean is not None and row.ppi.rate is not None
    assert row.ppi.mean == ppi_estimate(judge, labelled)
    assert (row.ppi.mean.labelled, row.ppi.mean.total) == (60, 300)
    # the acceptance rate: human ≥ 4 against the judge's verdict at the middle of 1–5
    target = np.where(np.isnan(labelled), np.nan, (labelled >= 4).astype(float))
    assert row.ppi.threshold == 3.0
    assert row.ppi.rate == ppi_estimate((judge >= 3).astype(float), target)
    fewer = meta_evaluate(frame, "h", ppi=True, ppi_labels=20, n_resamples=200)
    mean = fewer.blocks[0].rows[0].ppi
    assert mean is not None and mean.mean is not None and mean.mean.labelled == 20
    assert fewer.blocks[0].n == 60  # correlations still see every label
    json.dumps(table.to_dict(), allow_nan=False)


def test_correlation_table_and_markdown() -> None:
    human = dict(zip(IDS, [[5, 4], [4, 4], [3], [2, 2], [1, 2], [5], [3, 3], [4, 5]], strict=True))
    judge = dict(zip(IDS, [5, 4, 3, 3, 1, 4, 3, 4], strict=True))
    metadata = {s: {"h": v, "ok": v[0] >= 4} for s, v in human.items()}
    table = meta_evaluate(frame_of({"judge": judge}, metadata), ["h", "ok"], n_resamples=200)
    grid = correlation_table(table)
    assert grid.headers == [
        "metric",
        "mean",
        "n",
        "h: Pearson r",
        "h: agreement",
        "ok: Pearson r",
        "ok: agreement",
    ]
    rows = [r for r in grid.rows if r is not None]
    assert [r[0] for r in rows] == ["(human) h", "(human) ok", "judge"]
    assert rows[0][3] == "1.000" and rows[1][5] == "1.000"
    assert rows[2][4].startswith("0.") and "[" in rows[2][4]  # the weighted kappa
    text = correlation_table_markdown(table)
    assert "| judge | 3.375 | 8 |" in text
    assert "**Agreement with binary labels" in text and "**Agreement with ordinal labels" in text
    assert "h (ordinal) agreement: quadratic-weighted κ" in text


def test_the_earlier_names_of_the_correlation_table_still_import() -> None:
    from ragjudge.terminal import figure2_grid, figure2_markdown

    assert figure2_grid is correlation_table
    assert figure2_markdown is correlation_table_markdown


# --------------------------------------------------------------------------- the command


def stored(tmp_path: Path) -> tuple[Path, str]:
    path = tmp_path / "runs.db"
    with Store(path) as store:
        samples = [
            Sample(
                request_id=s,
                request="q",
                response="a",
                metadata={"ok": v, "lang": "ja" if i % 2 else "en"},
            )
            for i, (s, v) in enumerate(zip(IDS, VERDICTS, strict=True))
        ]
        run_id = store.create_run(
            name="t",
            config={},
            versions={},
            samples=samples,
            trials=1,
            meanings={"judge": ScoreMeaning(binary=True)},
        )
        for s, value in JUDGE.items():
            store.save_scores(run_id, s, 0, [Score(metric="judge", value=float(value))])
    return path, run_id


def test_cli_prints_agreement_and_writes_the_table(tmp_path: Path) -> None:
    path, run_id = stored(tmp_path)
    result = runner.invoke(app, ["meta", run_id, "--human", "ok", "--store", str(path)])
    assert result.exit_code == 0, result.output
    assert "Agreement with binary labels" in result.output and "0.875" in result.output
    out = tmp_path / "docs" / "table.md"
    result = runner.invoke(
        app,
        [
            "meta",
            run_id,
            "--human",
            "ok",
            "--store",
            str(path),
            "--table-out",
            str(out),
            "--by",
            "lang",
        ],
    )
    assert result.exit_code == 0, result.output
    text = out.read_text(encoding="utf-8")
    assert "| lang | metric | mean | n | ok: Pearson r | ok: agreement |" in text
    assert "| en | (human) ok |" in text
    result = runner.invoke(
        app, ["meta", run_id, "--human", "ok", "--store", str(path), "--ppi", "--json"]
    )
    assert result.exit_code == 0, result.output
    rate = json.loads(result.stdout)["blocks"][0]["rows"][0]["ppi"]["rate"]
    assert rate["labelled"] == 8 and rate["ppi"]["value"] == pytest.approx(5 / 8)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--combine", "max"], "--combine must be one of mean, median, majority"),
        (["--threshold", "judge=high"], "--threshold takes VALUE or METRIC=VALUE"),
        (["--kind", "likert"], "--kind must be one of"),
        (["--human", "nope"], "no sample has metadata key 'nope'"),
        (["--kind", "ordinal"], "a yes/no value in a label read as ordinal"),
    ],
)
def test_cli_errors_are_messages(tmp_path: Path, args: list[str], message: str) -> None:
    path, run_id = stored(tmp_path)
    result = runner.invoke(app, ["meta", run_id, "--human", "ok", "--store", str(path), *args])
    assert result.exit_code == 2
    assert message in result.output
