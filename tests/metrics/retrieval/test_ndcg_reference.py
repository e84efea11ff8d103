"""``ndcg_at_k`` against scikit-learn's ``ndcg_score`` on random rankings and grades."""

from __future__ import annotations

import random

import pytest

from ragjudge.metrics import MetricContext, create_metric
from ragjudge.schema import ContextChunk, Output, Sample

metrics = pytest.importorskip("sklearn.metrics", reason="scikit-learn (the dev extra) compares")


def random_case(rng: random.Random) -> tuple[dict[str, int], list[str], int]:
    """Grades of a pool of documents (some not expected: 0) and a ranking of them all,
    so every document has a place, as scikit-learn ranks every document it is given."""
    pool = [f"doc{i}" for i in range(rng.randint(2, 12))]
    grades = {doc: rng.choice([0, 0, 1, 2, 3]) for doc in pool}
    if not any(grades.values()):
        grades[rng.choice(pool)] = 1
    ranking = pool[:]
    rng.shuffle(ranking)
    return grades, ranking, rng.randint(1, len(pool) + 2)


def ndcg_by_the_metric(grades: dict[str, int], ranking: list[str], k: int) -> float | None:
    wanted = [{"doc_uri": doc, "grade": grade} for doc, grade in grades.items() if grade]
    sample = Sample.model_validate(
        {"request_id": "r", "request": "q", "expected_retrieved_context": wanted}
    )
    output = Output(retrieved_context=[ContextChunk(doc_uri=doc) for doc in ranking])
    (score,) = create_metric({"metric": "ndcg_at_k", "k": k}).score_now(
        sample, output, MetricContext()
    )
    return score.value


@pytest.mark.parametrize("seed", range(200))
def test_ndcg_equals_scikit_learn(seed: int) -> None:
    grades, ranking, k = random_case(random.Random(seed))
    true_gains = [[grades[doc] for doc in ranking]]
    ranked_first_highest = [list(range(len(ranking), 0, -1))]
    reference = metrics.ndcg_score(true_gains, ranked_first_highest, k=k)
    assert ndcg_by_the_metric(grades, ranking, k) == pytest.approx(reference, abs=1e-12)
