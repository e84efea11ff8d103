"""The RAGChecker meta-evaluation loader on the shared file."""

from __future__ import annotations

from collections import Counter

from conftest import shared_data
from ragjudge.loading import load_samples


def test_two_samples_per_question_with_both_annotators_labels() -> None:
    samples = load_samples(
        shared_data("ragchecker", "human_labeled_data.json"), format="ragchecker"
    )
    assert len(samples) == 560  # 280 questions × two systems
    first, second = samples[0], samples[1]
    assert (first.request_id, second.request_id) == ("0::model1", "0::model2")
    assert first.request.query == second.request.query
    assert first.response != second.response and first.references == second.references
    assert first.metadata["pair"] == "0" and first.metadata["side"] == "model1"
    assert len(first.metadata["correctness_label"]) == 2  # one per annotator
    datasets = Counter(s.metadata["dataset"] for s in samples[::2])
    assert datasets["kiwi"] == 28 and sum(datasets.values()) == 280
