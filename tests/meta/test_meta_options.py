"""The options of a meta-evaluation for real data sets: the row filter, the level of
the correlations, a named positive class for text labels, human values that mean
"could not judge", the 0.5 threshold of yes/no extra scores, seed and resamples — in
``meta_evaluate`` and on the command line."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from scipy import stats as scipy_stats
from typer.testing import CliRunner

from conftest import shared_data
from ragjudge.api import evaluate
from ragjudge.cli import app
from ragjudge.datasets import load_mtrag_human
from ragjudge.meta._evaluation import meta_evaluate
from ragjudge.schema import Sample, Score, ScoreMeaning
from ragjudge.store._store import Store

runner = CliRunner()

IDS = [f"s{i}" for i in range(8)]
JUDGE = [0.9, 0.8, 0.2, 0.7, 0.1, 0.3, 0.6, 0.4]
ATTRIBUTION = [
    "Fully attributable",
    "fully attributable ",
    "Not attributable",
    "Fully attributable",
    "Partially attributable",
    "Not attributable",
    "Partially attributable",
    "Not attributable",
]
# 0 means "could not judge" (seed 000's scale); s6 and s7 were judged by nobody.
SCORE = [
    {"a": 5, "b": 0},
    {"a": 4},
    {"a": 1},
    {"a": 5},
    {"a": 2},
    {"a": 2},
    {"a": 0},
    {"a": 0, "b": 0},
]
SPLIT = ["test", "test", "test", "test", "dev", "dev", "dev", "dev"]
OTHER = [1, 1, 0, 1, 1, 0, 0, 0]  # another system's yes/no


def frame() -> pd.DataFrame:
    rows = [(s, 0, "judge", v, None) for s, v in zip(IDS, JUDGE, strict=True)]
    out = pd.DataFrame(rows, columns=["sample_id", "trial", "metric", "value", "error"])
    columns: dict[str, list[Any]] = {
        "attribution": ATTRIBUTION,
        "score": [json.dumps(v) for v in SCORE],
        "split": SPLIT,
        "other": OTHER,
    }
    for key, values in columns.items():
        out[f"metadata.{key}"] = out["sample_id"].map(dict(zip(IDS, values, strict=True)))
    return out


def test_a_named_positive_class_makes_text_labels_yes_or_no() -> None:
    table = meta_evaluate(
        frame(),
        "attribution",
        positive="Fully attributable",
        meanings={"judge": ScoreMeaning(low=0, high=1)},
    )
    (block,) = table.blocks
    assert block.kind == "binary" and block.n == 8
    assert block.human_mean == pytest.approx(3 / 8)
    (row,) = block.rows
    assert row.agreement is not None and row.agreement.binary is not None
    # The judge is above 0.5 exactly on s0, s1, s3 (the fully attributable ones) and s6.
    assert row.agreement.binary.accuracy.value == pytest.approx(7 / 8)
    assert table.to_dict()["positive"] == "Fully attributable"


def test_text_labels_without_a_positive_class_are_refused() -> None:
    with pytest.raises(ValueError, match="sample 's0', metadata 'attribution'"):
        meta_evaluate(frame(), "attribution")


def test_could_not_judge_values_are_left_out_and_counted() -> None:
    kept = meta_evaluate(frame(), "score", exclude_human={"score": [0]}, kind="numeric")
    (block,) = kept.blocks
    # s0 keeps annotator a's 5; s6 and s7 had only zeros: left out, counted.
    assert (block.n, block.missing, block.left_out) == (6, 2, 2)
    assert block.human_mean == pytest.approx(np.mean([5, 4, 1, 5, 2, 2]))
    (row,) = block.rows
    expected = scipy_stats.pearsonr(JUDGE[:6], [5, 4, 1, 5, 2, 2]).statistic
    assert row.correlations["pearson"].estimate == pytest.approx(expected)
    assert kept.to_dict()["blocks"][0]["left_out"] == 2
    # Without the declaration the zeros are scores like any other.
    (plain,) = meta_evaluate(frame(), "score", kind="numeric").blocks
    assert (plain.n, plain.left_out) == (8, 0)
    assert plain.human_mean == pytest.approx(np.mean([2.5, 4, 1, 5, 2, 2, 0, 0]))


def test_could_not_judge_for_every_label_with_a_star() -> None:
    (block,) = meta_evaluate(frame(), "score", exclude_human={"*": [0]}, kind="numeric").blocks
    assert block.left_out == 2


def test_where_keeps_only_the_matching_samples() -> None:
    table = meta_evaluate(
        frame(), "attribution", positive="Fully attributable", where="split == test"
    )
    (block,) = table.blocks
    assert block.n == 4 and block.human_mean == pytest.approx(3 / 4)
    assert table.to_dict()["where"] == "split == test"
    with pytest.raises(ValueError, match="--where 'split == train' matches no sample"):
        meta_evaluate(frame(), "attribution", positive="Fully attributable", where="split == train")
    with pytest.raises(ValueError, match="no sample has metadata key 'lang'"):
        meta_evaluate(frame(), "attribution", positive="Fully attributable", where="lang == en")


def test_a_yes_no_extra_score_is_acceptable_at_one_half() -> None:
    table = meta_evaluate(frame(), "attribution", positive="Fully attributable", extra=["other"])
    other = next(r for r in table.blocks[0].rows if r.metric == "other")
    assert other.agreement is not None and other.agreement.binary is not None
    # other says yes on s0, s1, s3 (fully) and s4 (partially): 7 of 8 right.
    assert other.agreement.binary.accuracy.value == pytest.approx(7 / 8)
    assert table.settings.thresholds == {"other": 0.5}
    given = meta_evaluate(
        frame(), "attribution", positive="Fully attributable", extra=["other"], thresholds={"*": 2}
    )
    assert given.settings.thresholds == {"*": 2}


def test_seed_and_resamples_reach_the_intervals() -> None:
    def interval(**options: Any) -> Any:
        table = meta_evaluate(frame(), "score", kind="numeric", **options)
        return table.blocks[0].rows[0].correlations["spearman"]

    assert interval(seed=1).ci == interval(seed=1).ci
    assert interval(seed=1).ci != interval(seed=2).ci
    assert interval(n_resamples=300).resamples <= 300 < interval().resamples


def test_levels_do_not_combine_with_pairs_or_ppi() -> None:
    with pytest.raises(ValueError, match="the system level does not combine"):
        meta_evaluate(frame(), "score", level="system", group="split", ppi=True)


# --- the command line ---------------------------------------------------------------------


def stored(tmp_path: Path) -> tuple[Path, str]:
    path = tmp_path / "runs.db"
    with Store(path) as store:
        samples = [
            Sample(
                request_id=s,
                request="q",
                response="a",
                metadata={"attribution": a, "score": sc, "split": sp, "other": o},
            )
            for s, a, sc, sp, o in zip(IDS, ATTRIBUTION, SCORE, SPLIT, OTHER, strict=True)
        ]
        run_id = store.create_run(
            name="t",
            config={},
            versions={},
            samples=samples,
            trials=1,
            meanings={"judge": ScoreMeaning(low=0, high=1)},
        )
        for s, value in zip(IDS, JUDGE, strict=True):
            store.save_scores(run_id, s, 0, [Score(metric="judge", value=value)])
    return path, run_id


def meta_json(path: Path, run_id: str, *args: str) -> dict[str, Any]:
    result = runner.invoke(app, ["meta", run_id, "--store", str(path), "--json", *args])
    assert result.exit_code == 0, result.output
    found: dict[str, Any] = json.loads(result.stdout)
    return found


def test_cli_options_reach_the_meta_evaluation(tmp_path: Path) -> None:
    path, run_id = stored(tmp_path)
    found = meta_json(
        path,
        run_id,
        *("--human", "score", "--exclude-human", "score=0", "--kind", "numeric"),
        *("--where", "split in (test, dev)", "--seed", "4", "--resamples", "250"),
        *("--level", "system", "--group", "split"),
    )
    assert (found["seed"], found["resamples"], found["level"], found["group"]) == (
        4,
        250,
        "system",
        "split",
    )
    assert found["excluded_human"] == {"score": [0.0]}
    block = found["blocks"][0]
    assert (block["n"], block["left_out"]) == (6, 2)
    assert block["rows"][0]["pearson"]["n"] == 2  # two groups: test and dev
    positive = meta_json(
        path,
        run_id,
        "--human",
        "attribution",
        "--positive",
        "Fully attributable",
        "--extra",
        "other",
    )
    assert positive["thresholds"] == {"other": 0.5}


def test_cli_prints_the_level_and_the_left_out_samples(tmp_path: Path) -> None:
    path, run_id = stored(tmp_path)
    args = ["meta", run_id, "--store", str(path), "--human", "score", "--exclude-human", "0"]
    result = runner.invoke(
        app, [*args, "--kind", "numeric", "--level", "summary", "--group", "split"]
    )
    assert result.exit_code == 0, result.output
    assert "summary level: correlation within each split, averaged" in result.output
    assert "n (split)" in result.output
    assert "2 where the annotators could not judge" in result.output


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--where", "split = test"], "--where 'split = test': cannot read '= test'"),
        (["--where", "split =="], "ends too early"),
        (["--level", "document"], "--level must be one of sample, summary, system"),
        (["--level", "summary"], "the summary level needs --group KEY"),
        (["--exclude-human", "score=none"], "--exclude-human takes VALUE or LABEL=VALUE"),
        (["--level", "system", "--group", "missing_key"], "no sample has metadata key"),
    ],
)
def test_cli_bad_options_are_messages(tmp_path: Path, args: list[str], message: str) -> None:
    path, run_id = stored(tmp_path)
    result = runner.invoke(
        app, ["meta", run_id, "--human", "score", "--kind", "numeric", "--store", str(path), *args]
    )
    assert result.exit_code == 2, result.output
    assert message in result.output
    assert "Traceback" not in result.output


# --- on the MTRAG human labels ----------------------------------------------------------


@pytest.mark.slow
def test_summary_and_system_levels_on_mtrag(tmp_path: Path) -> None:
    rows = []
    for sample in load_mtrag_human(shared_data("mtrag-human")):
        row = sample.model_dump(mode="json", exclude_none=True)
        row["request"] = row["request"]["original"]
        rows.append(row)
    run = evaluate(rows, metrics=["token_f1"], store=tmp_path / "runs.db", progress=False)
    path = tmp_path / "runs.db"
    summary = meta_json(
        path,
        run.run_id,
        *("--human", "completeness", "--level", "summary", "--group", "task_id"),
        *("--resamples", "500"),
    )
    row = summary["blocks"][0]["rows"][0]
    # 477 answers to 159 inputs, three systems each; inputs whose three answers tie on
    # either side have no correlation.
    assert summary["blocks"][0]["n"] == 477
    assert row["pearson"]["n"] in range(100, 160) and row["pearson"]["p_value"] is None
    system = meta_json(
        path, run.run_id, "--human", "completeness", "--level", "system", "--group", "model_id"
    )
    assert system["blocks"][0]["rows"][0]["spearman"]["estimate"] == pytest.approx(1.0)
    filtered = meta_json(
        path, run.run_id, "--human", "completeness", "--where", "collection == govt"
    )
    assert 0 < filtered["blocks"][0]["n"] < 477
