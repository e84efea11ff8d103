"""The Python API a notebook user meets: per-subset summaries, the documented async
entry point, plain functions as metrics."""

from __future__ import annotations

import asyncio
import inspect
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

import ragjudge as rj
from ragjudge.schema import Output, Sample

ROWS = [
    {
        "request": "What is SQL?",
        "response": "A query language.",
        "expected_response": "A query language.",
        "lang": "en",
    },
    {
        "request": "What is a join?",
        "response": "It merges.",
        "expected_response": "It combines rows of tables.",
        "lang": "en",
    },
    {
        "request": "SQLとは?",
        "response": "問い合わせ言語です。",
        "expected_response": "問い合わせ言語です。",
        "lang": "ja",
    },
]


def run(tmp_path: Path, **kwargs: Any) -> rj.EvaluationResult:
    kwargs.setdefault("metrics", ["exact_match"])
    return rj.evaluate(ROWS, store=tmp_path / "r.db", progress=False, **kwargs)


def test_summary_by_gives_rows_per_subset(tmp_path: Path) -> None:
    result = run(tmp_path, metrics=["exact_match", "token_f1"], by="metadata.lang")

    frame = result.summary(by="metadata.lang")

    assert list(frame.columns[:3]) == ["lang", "metric", "mean"]
    assert list(zip(frame["lang"], frame["metric"], strict=True)) == [
        ("(all)", "exact_match"),
        ("(all)", "token_f1"),
        ("en", "exact_match"),
        ("en", "token_f1"),
        ("ja", "exact_match"),
        ("ja", "token_f1"),
    ]
    exact = frame[frame["metric"] == "exact_match"].set_index("lang")
    assert exact.loc["en", "mean"] == 0.5 and exact.loc["ja", "mean"] == 1.0
    assert exact.loc["en", "n"] == 2


def test_summary_by_a_key_the_run_was_not_broken_down_by(tmp_path: Path) -> None:
    result = run(tmp_path)

    frame = result.summary(by="lang")

    assert set(frame["lang"]) == {"(all)", "en", "ja"}
    assert result.summary().equals(frame[frame["lang"] == "(all)"].drop(columns="lang"))


def test_aevaluate_is_the_documented_async_entry_point(tmp_path: Path) -> None:
    assert inspect.iscoroutinefunction(rj.aevaluate)
    assert "aevaluate" in (rj.__doc__ or "") and "aevaluate" in rj.__all__

    async def app() -> rj.EvaluationResult:
        return await rj.aevaluate(
            ROWS, metrics=["exact_match"], store=tmp_path / "r.db", progress=False
        )

    result = asyncio.run(app())

    assert result.summary()["mean"].iloc[0] == pytest.approx(2 / 3)


def test_evaluate_takes_a_dict_of_columns(tmp_path: Path) -> None:
    columns = {
        "question": [row["request"] for row in ROWS],
        "answer": [row["response"] for row in ROWS],
        "contexts": [["SQL is a query language."], ["A join merges tables."], ["SQL。"]],
        "ground_truth": [row["expected_response"] for row in ROWS],
    }
    result = rj.evaluate(columns, metrics=["exact_match"], store=tmp_path / "r.db", progress=False)
    assert result.summary().set_index("metric").loc["exact_match", "mean"] == pytest.approx(2 / 3)
    frame = result.to_pandas()
    assert sorted(frame["request"]) == sorted(row["request"] for row in ROWS)


def test_evaluate_names_columns_of_unequal_length(tmp_path: Path) -> None:
    columns = {"question": ["q1", "q2"], "answer": ["a1"]}
    with pytest.raises(rj.DatasetError, match=r"'question' has 2.*'answer' has 1"):
        rj.evaluate(columns, metrics=["exact_match"], store=tmp_path / "r.db", progress=False)


def test_a_plain_function_is_a_metric(tmp_path: Path) -> None:
    def brevity(sample: Sample, output: Output) -> float:
        """1 for answers of at most three words."""
        return float(len((output.response or "").split()) <= 3)

    async def mentions_sql(sample: Sample, output: Output) -> bool:
        return "SQL" in (output.response or "") or "SQL" in sample.request.query

    result = run(tmp_path, metrics=["exact_match", brevity, mentions_sql])

    summary = result.summary().set_index("metric")
    assert summary.loc["brevity", "mean"] == pytest.approx(1.0)
    assert summary.loc["mentions_sql", "mean"] == pytest.approx(2 / 3)
    assert result.meanings["brevity"].description == "1 for answers of at most three words."


def test_a_function_that_returns_no_number_is_an_error_not_a_score(tmp_path: Path) -> None:
    def broken(sample: Sample, output: Output) -> Any:
        return None if sample.metadata["lang"] == "ja" else 1.0

    result = run(tmp_path, metrics=[broken])

    (summary,) = result.summaries
    assert (summary.n, summary.errors) == (2, 1)
    assert "returned None, not a number" in result.errors[0].example


def test_a_lambda_needs_a_name(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="has no name"):
        run(tmp_path, metrics=[lambda sample, output: 1.0])


def test_a_function_named_in_a_config(tmp_path: Path) -> None:
    (tmp_path / "my_checks.py").write_text(
        "def short(sample, output):\n    return float(len(output.response) < 12)\n"
    )
    pd.DataFrame(ROWS).to_json(tmp_path / "set.jsonl", orient="records", lines=True)
    (tmp_path / "eval.yaml").write_text("data: set.jsonl\nmetrics: ['my_checks:short']\n")

    from ragjudge.config import load_config
    from ragjudge.run._runner import run_evaluation

    result = asyncio.run(run_evaluation(load_config(tmp_path / "eval.yaml"), progress=False))

    assert result.summary().set_index("metric").loc["short", "mean"] == pytest.approx(2 / 3)


def test_evaluate_has_the_signature_and_docs_of_aevaluate() -> None:
    import inspect

    import ragjudge as rj

    assert inspect.signature(rj.evaluate) == inspect.signature(rj.aevaluate)
    assert "metrics" in inspect.signature(rj.evaluate).parameters
    assert rj.evaluate.__name__ == "evaluate"
    assert (rj.evaluate.__doc__ or "").startswith("Evaluate ``data``")
    assert not inspect.iscoroutinefunction(rj.evaluate)


def test_a_misspelt_metric_name_is_refused_with_the_closest_name(tmp_path: Path) -> None:
    rows = [{"request": "q", "response": "a", "expected_response": "a"}]
    with pytest.raises(rj.ConfigError, match=r"metrics: unknown metric 'rouge_k'; did you mean"):
        rj.evaluate(rows, metrics=["rouge_k"], store=tmp_path / "r.db", progress=False)
