"""The rank metrics over document ids, on rows whose values are computed by hand."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pytest
from retrieval_helpers import expected, retrieved, score_one

from ragjudge.metrics import create_metric

LOG3 = math.log2(3)
RANK_METRICS = ("hit_at_k", "recall_at_k", "precision_at_k", "mrr", "ndcg_at_k")


def values(k: int | None) -> list[dict[str, Any]]:
    """Every rank metric with cutoff ``k`` (``mrr`` without one when None)."""
    return [{"metric": name, **({} if k is None else {"k": k})} for name in RANK_METRICS]


async def all_values(
    k: int, found: list[str], wanted: list[dict[str, Any]]
) -> dict[str, float | None]:
    return {
        spec["metric"]: (await score_one(spec, retrieved(*found), wanted)).value
        for spec in values(k)
    }


async def test_binary_relevance_at_3() -> None:
    got = await all_values(3, ["a", "x", "b", "y", "c"], expected("a", "b", "c", "d"))
    ideal = 1 + 1 / LOG3 + 1 / 2  # four relevant documents, three places
    assert got == pytest.approx(
        {
            "hit_at_k": 1.0,
            "recall_at_k": 2 / 4,
            "precision_at_k": 2 / 3,
            "mrr": 1.0,
            "ndcg_at_k": (1 + 1 / 2) / ideal,
        }
    )


async def test_a_repeated_document_counts_once_at_its_first_place() -> None:
    got = await all_values(3, ["x", "a", "a", "b"], expected("a", "b"))
    assert got == pytest.approx(
        {
            "hit_at_k": 1.0,
            "recall_at_k": 1 / 2,
            "precision_at_k": 1 / 3,  # the repeat of a holds its place but gains nothing
            "mrr": 1 / 2,
            "ndcg_at_k": (1 / LOG3) / (1 + 1 / LOG3),
        }
    )


async def test_grades_are_the_gains_and_grade_0_is_not_relevant() -> None:
    got = await all_values(3, ["b", "a", "c"], expected(("a", 3), ("b", 1), ("c", 0)))
    assert got == pytest.approx(
        {
            "hit_at_k": 1.0,
            "recall_at_k": 1.0,
            "precision_at_k": 2 / 3,
            "mrr": 1.0,
            "ndcg_at_k": (1 + 3 / LOG3) / (3 + 1 / LOG3),
        }
    )
    only_grade_0 = await all_values(3, ["c", "x"], expected(("a", 3), ("c", 0)))
    assert only_grade_0 == {name: 0.0 for name in RANK_METRICS}


async def test_a_document_listed_twice_keeps_its_highest_grade() -> None:
    score = await score_one(
        {"metric": "ndcg_at_k", "k": 2}, retrieved("b", "a"), expected(("a", 1), ("b", 1), ("a", 2))
    )
    assert score.value == pytest.approx((1 + 2 / LOG3) / (2 + 1 / LOG3))


async def test_k_beyond_the_list() -> None:
    got = await all_values(10, ["a"], expected("a", "b"))
    assert got == pytest.approx(
        {
            "hit_at_k": 1.0,
            "recall_at_k": 1 / 2,
            "precision_at_k": 1 / 10,
            "mrr": 1.0,
            "ndcg_at_k": 1 / (1 + 1 / LOG3),
        }
    )


async def test_mrr_without_and_with_a_cutoff() -> None:
    found = retrieved("x", "y", "a")
    assert (await score_one("mrr", found, expected("a"))).value == pytest.approx(1 / 3)
    assert (await score_one({"metric": "mrr", "k": 2}, found, expected("a"))).value == 0.0


async def test_document_ids_are_trimmed_and_compared_exactly() -> None:
    found = retrieved(" a ", "B")
    score = await score_one({"metric": "recall_at_k", "k": 2}, found, expected("a", "b"))
    assert score.value == 0.5
    assert score.details["found"] == ["a"] and score.details["missing"] == ["b"]
    assert score.rationale == "1 of 2 relevant documents in the top 2"


@pytest.mark.parametrize("name", RANK_METRICS)
async def test_an_empty_retrieval_is_0(name: str) -> None:
    assert (await score_one(name, [], expected("a"))).value == 0.0


@pytest.mark.parametrize("name", RANK_METRICS)
async def test_an_empty_expected_list_is_not_applicable(name: str) -> None:
    score = await score_one(name, retrieved("a"), [])
    assert score.value is None and score.error is None
    assert score.skipped == "expected_retrieved_context is empty: no document to find"


async def test_expected_documents_all_graded_0_are_not_applicable() -> None:
    score = await score_one("ndcg_at_k", retrieved("a"), expected(("a", 0)))
    assert score.value is None and score.skipped and "grade 0" in score.skipped


@pytest.mark.parametrize("name", RANK_METRICS)
async def test_no_expected_list_is_an_error(name: str) -> None:
    score = await score_one(name, retrieved("a"), None)
    assert score.value is None and score.error == "no expected_retrieved_context"


async def test_no_retrieved_context_is_an_error() -> None:
    score = await score_one("hit_at_k", None, expected("a"))
    assert score.value is None and score.error and "no retrieved context" in score.error


@pytest.mark.parametrize(
    ("grade", "problem"),
    [("high", "must be a number of 0 or more, not 'high'"), (-1, "must be 0 or more, not -1")],
)
async def test_a_bad_grade_is_an_error_naming_the_item(grade: Any, problem: str) -> None:
    score = await score_one("ndcg_at_k", retrieved("a"), expected("a", ("b", grade)))
    assert score.value is None
    assert score.error == f"expected_retrieved_context[1].grade ('b') {problem}"


@pytest.mark.parametrize("name", ["recall_at_k", "mrr"])
def test_a_bad_cutoff_names_the_metric_and_the_option(name: str) -> None:
    with pytest.raises(ValueError, match=rf"metric '{name}': option 'k' must be at least 1"):
        create_metric({"metric": name, "k": 0})


def test_contexts_given_as_text_have_no_document_names(tmp_path: Path) -> None:
    import ragjudge as rj

    row = {"request": "q", "response": "r", "retrieved_context": ["a"]}
    with pytest.warns(rj.RunFailedWarning, match="ndcg_at_k: no value at all"):
        result = rj.evaluate(
            [{**row, "expected_retrieved_context": ["a"]}],
            metrics=["ndcg_at_k"],
            store=tmp_path / "r.db",
            progress=False,
        )
    (summary,) = result.summaries
    assert summary.mean is None and summary.errors == 1
    assert "text without doc_uris" in result.errors[0].example


def test_a_run_by_name_with_grades_from_the_rows(tmp_path: Path) -> None:
    import ragjudge as rj

    rows = [
        {
            "request": "q1",
            "response": "r",
            "retrieved_context": [{"doc_uri": "b"}, {"doc_uri": "a"}],
            "expected_retrieved_context": [{"doc_uri": "a", "grade": 2}, {"doc_uri": "b"}],
        },
        {
            "request": "q2",
            "response": "r",
            "retrieved_context": [{"doc_uri": "x"}, {"doc_uri": "c"}],
            "expected_retrieved_context": [{"doc_uri": "c"}],
        },
    ]
    result = rj.evaluate(
        rows,
        metrics=[{"metric": "ndcg_at_k", "k": 2}, "mrr"],
        store=tmp_path / "r.db",
        progress=False,
    )
    means = {s.metric: s.mean for s in result.summaries}
    first = (1 + 2 / LOG3) / (2 + 1 / LOG3)
    assert means == pytest.approx({"ndcg_at_k": (first + 1 / LOG3) / 2, "mrr": (1 + 1 / 2) / 2})
