"""The one table of renamed scores: an old name is replaced as a whole name, also
inside a renamed instance's ``NAME.`` prefix and a named judge's ``@JUDGE`` suffix;
every other name is left as it is."""

from __future__ import annotations

import pytest

from ragjudge._util.score_names import RENAMED_SCORES, current_score_name


@pytest.mark.parametrize(
    ("given", "current"),
    [
        (
            "retrieval/llm_judged/chunk_relevance_precision",
            "retrieval/llm_judged/chunk_relevance/precision",
        ),
        ("agent/input_token_count", "agent/total_input_token_count"),
        ("agent/output_token_count", "agent/total_output_token_count"),
        ("mine.agent/input_token_count@big", "mine.agent/total_input_token_count@big"),
        ("agent/total_input_token_count", "agent/total_input_token_count"),
        ("myagent/input_token_count", "myagent/input_token_count"),
        ("agent/input_token_counts", "agent/input_token_counts"),
        ("rouge_l", "rouge_l"),
    ],
)
def test_old_names_give_the_current_ones(given: str, current: str) -> None:
    assert current_score_name(given) == current


def test_current_names_are_no_old_names() -> None:
    assert not set(RENAMED_SCORES.values()) & set(RENAMED_SCORES)
    assert all(current_score_name(new) == new for new in RENAMED_SCORES.values())
