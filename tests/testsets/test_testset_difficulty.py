"""The difficulty estimate on hand-computed cases, in English and Japanese."""

from __future__ import annotations

import pytest

from ragjudge.knowledge import Chunk
from ragjudge.testsets import Turn
from ragjudge.testsets._difficulty import difficulty_of, word_overlap

TOWER = Chunk(
    chunk_id="tower.md#0",
    doc_uri="tower.md",
    index=0,
    content="The Eiffel Tower was completed in 1889 and designed by Gustave Eiffel's firm.",
)
BRIDGE = Chunk(
    chunk_id="bridge.md#0",
    doc_uri="bridge.md",
    index=0,
    content="The Golden Gate Bridge opened in 1937 and spans the strait at San Francisco.",
)
RAG_JA = Chunk(
    chunk_id="rag.md#0",
    doc_uri="rag.md",
    index=0,
    content="株式会社ラグは1950年に東京で設立されました。",
)


def test_a_lookup_question_on_one_chunk_is_easy() -> None:
    # content words eiffel, tower, complet: all three in the chunk
    found = difficulty_of("single", [TOWER], "When was the Eiffel Tower completed?")

    assert (found.chunks_needed, found.overlap, found.points) == (1, 1.0, 0)
    assert found.level == "easy"


def test_a_question_worded_unlike_its_chunk_is_medium() -> None:
    # content words: year, landmark, paris, finish; none in the chunk
    found = difficulty_of("single", [TOWER], "In which year was the landmark of Paris finished?")

    assert (found.overlap, found.points, found.level) == (0.0, 1, "medium")


def test_a_two_chunk_question_counts_its_second_chunk() -> None:
    # eiffel, tower, golden, gate, bridge, complet, first: 6 of 7 in the chunks
    question = "Was the Eiffel Tower or the Golden Gate Bridge completed first?"
    found = difficulty_of("multi", [TOWER, BRIDGE], question)

    assert found.chunks_needed == 2
    assert found.overlap == pytest.approx(6 / 7)
    assert (found.points, found.level) == (1, "medium")


def test_a_comparison_of_two_chunks_is_hard() -> None:
    found = difficulty_of(
        "comparative", [TOWER, BRIDGE], "Which is older, the tower or the bridge?"
    )

    # older, tower, bridge: tower and bridge found, 2 of 3 ≥ 0.3
    assert found.overlap == pytest.approx(2 / 3)
    assert (found.chunks_needed, found.points, found.level) == (2, 2, "hard")


def test_a_follow_up_with_its_dialogue_gains_a_point() -> None:
    turns = [Turn(user="When was the Eiffel Tower completed?", assistant="In 1889.")]

    follow_up = difficulty_of("conversational", [TOWER], "And who designed it?", turns)
    alone = difficulty_of("conversational", [TOWER], "Who designed the Eiffel Tower?")

    # design is in the chunk: 1 of 1 word
    assert (follow_up.overlap, follow_up.points, follow_up.level) == (1.0, 1, "medium")
    assert (alone.points, alone.level) == (0, "easy")


def test_an_unanswerable_question_is_harder_the_more_it_borrows_from_its_chunk() -> None:
    # paint, eiffel, tower, given: 2 of 4 in the chunk, enough to tempt an answer
    near = difficulty_of("unanswerable", [TOWER], "What paint was the Eiffel Tower given?")
    # ticket, price, today: none in the chunk
    far = difficulty_of("unanswerable", [TOWER], "What is the ticket price today?")

    assert near.chunks_needed == 0 and near.overlap == 0.5
    assert (near.points, near.level) == (1, "medium")
    assert (far.overlap, far.points, far.level) == (0.0, 0, "easy")


def test_japanese_questions_are_compared_word_by_word() -> None:
    # 株式, 会社, ラグ, 設立, 年 (particles and いつ left out): all in the chunk
    lookup = difficulty_of("single", [RAG_JA], "株式会社ラグの設立年はいつですか")
    # ラグ, 創業, 者, 誰: only ラグ in the chunk, 1 of 4
    reworded = difficulty_of("single", [RAG_JA], "ラグの創業者は誰ですか")

    assert (lookup.overlap, lookup.level) == (1.0, "easy")
    assert reworded.overlap == pytest.approx(1 / 4)
    assert (reworded.points, reworded.level) == (1, "medium")


def test_a_question_without_content_words_has_no_overlap() -> None:
    assert word_overlap("What is it?", [TOWER]) == 0.0
    assert difficulty_of("single", [TOWER], "What is it?").level == "medium"
