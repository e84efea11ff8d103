"""The near-duplicate filter: paraphrases of one fact are found, in English and in
Japanese, different questions about one chunk are not; the embedding comparison; the
threshold's bounds."""

from __future__ import annotations

import numpy as np
import pytest
from numpy.typing import NDArray

from ragjudge.errors import ConfigError
from ragjudge.testsets._duplicates import (
    DEFAULT_EMBEDDING_THRESHOLD,
    DEFAULT_LEXICAL_THRESHOLD,
    DuplicateFilter,
)

COMPLETED = ("When was the Eiffel Tower completed?", "The Eiffel Tower was completed in 1889.")
DESIGNED = ("Who designed the Eiffel Tower?", "The engineering firm of Gustave Eiffel designed it.")
TALL = ("How tall is the Eiffel Tower?", "The Eiffel Tower is 330 metres tall.")
VISITORS = (
    "How many visitors does the Eiffel Tower receive each year?",
    "About seven million visitors a year.",
)
FOUNDED_JA = ("株式会社ラグの設立年はいつですか", "株式会社ラグは1950年に設立されました。")
OFFICE_JA = ("株式会社ラグの本社はどこにありますか", "株式会社ラグの本社は東京都にあります。")

PARAPHRASES = [
    (COMPLETED, ("In what year was the Eiffel Tower finished?", "It was finished in 1889.")),
    (TALL, ("What is the height of the Eiffel Tower?", "It is 330 metres high.")),
    (FOUNDED_JA, ("株式会社ラグはいつ設立されましたか", "1950年です。")),
]
DIFFERENT_QUESTIONS = [
    (COMPLETED, DESIGNED),
    (TALL, VISITORS),
    (FOUNDED_JA, OFFICE_JA),
    (COMPLETED, ("When did the Paris Exposition open?", "1889")),
]


async def similarity_after(kept: tuple[str, str], candidate: tuple[str, str]) -> float:
    """The similarity the lexical filter gives ``candidate`` against ``kept`` (0 when
    it finds nothing above the smallest threshold)."""
    duplicates = DuplicateFilter(threshold=1e-9)
    await duplicates.add("kept", *kept)
    found = await duplicates.find(*candidate)
    return 0.0 if found is None else found[1]


@pytest.mark.parametrize(("kept", "candidate"), PARAPHRASES)
async def test_a_paraphrase_of_the_same_fact_is_a_duplicate(
    kept: tuple[str, str], candidate: tuple[str, str]
) -> None:
    duplicates = DuplicateFilter()
    await duplicates.add("single-0", *kept)

    found = await duplicates.find(*candidate)

    assert found is not None and found[0] == "single-0"
    assert 0.7 <= found[1] <= 0.8  # 0.76, 0.74 and 0.80: clear of the 0.5 threshold


@pytest.mark.parametrize(("kept", "candidate"), DIFFERENT_QUESTIONS)
async def test_a_different_question_about_the_same_chunk_is_not(
    kept: tuple[str, str], candidate: tuple[str, str]
) -> None:
    duplicates = DuplicateFilter()
    await duplicates.add("single-0", *kept)

    assert await duplicates.find(*candidate) is None
    # the questions share the chunk's words, but not what their answers add
    assert await similarity_after(kept, candidate) == 0.0


async def test_the_default_threshold_lies_between_the_two_groups() -> None:
    paraphrased = [await similarity_after(*pair) for pair in PARAPHRASES]
    different = [await similarity_after(*pair) for pair in DIFFERENT_QUESTIONS]

    assert max(different) < DEFAULT_LEXICAL_THRESHOLD < min(paraphrased)


async def test_the_same_text_has_similarity_one() -> None:
    assert await similarity_after(COMPLETED, COMPLETED) == 1.0
    assert await similarity_after(("?", "..."), ("?", "...")) == 1.0


async def test_a_repeated_question_is_a_duplicate_whatever_its_answer() -> None:
    repeated = ("when was the eiffel tower completed", "Construction ended in March.")

    assert await similarity_after(COMPLETED, repeated) == 1.0


async def test_the_most_similar_kept_sample_is_named() -> None:
    duplicates = DuplicateFilter()
    for key, sample in [("a", DESIGNED), ("b", COMPLETED), ("c", TALL), ("d", OFFICE_JA)]:
        await duplicates.add(key, *sample)

    assert len(duplicates) == 4
    assert await duplicates.find(*PARAPHRASES[0][1]) == ("b", pytest.approx(0.7598, abs=1e-4))
    assert await duplicates.find(*PARAPHRASES[1][1]) is not None
    assert await duplicates.find(*VISITORS) is None


async def test_nothing_is_a_duplicate_of_an_empty_filter() -> None:
    assert await DuplicateFilter().find(*COMPLETED) is None


class FixedEmbedder:
    """Gives each known text its vector (L2-normalised) and counts what it embeds."""

    def __init__(self, vectors: dict[str, list[float]]) -> None:
        self._vectors = vectors
        self.embedded: list[str] = []

    @property
    def name(self) -> str:
        return "fixed"

    async def embed(self, texts: list[str]) -> NDArray[np.float32]:
        self.embedded.extend(texts)
        rows = np.asarray([self._vectors[text] for text in texts], dtype=np.float32)
        return rows / np.linalg.norm(rows, axis=1, keepdims=True)


def angled(cosine: float) -> list[float]:
    """A unit vector whose cosine with (1, 0) is ``cosine``."""
    return [cosine, float(np.sqrt(1 - cosine**2))]


async def test_with_an_embedder_the_cosines_of_question_and_answer_decide() -> None:
    embedder = FixedEmbedder(
        {
            "kept q": [1.0, 0.0],
            "kept a": [1.0, 0.0],
            "close q": angled(0.92),
            "close a": angled(0.9),  # √(0.92 · 0.9) = 0.91
            "same topic q": angled(0.9),
            "same topic a": angled(0.6),  # √(0.9 · 0.6) = 0.73
            "repeated q": angled(0.97),
            "other a": [0.0, 1.0],  # a repeated question whatever the answer
        }
    )
    duplicates = DuplicateFilter(embedder=embedder)
    await duplicates.add("kept", "kept q", "kept a")

    assert duplicates.threshold == DEFAULT_EMBEDDING_THRESHOLD
    close = await duplicates.find("close q", "close a")
    assert close is not None and close[0] == "kept"
    assert close[1] == pytest.approx(np.sqrt(0.92 * 0.9), abs=1e-5)
    assert await duplicates.find("same topic q", "same topic a") is None
    repeated = await duplicates.find("repeated q", "other a")
    assert repeated is not None and repeated[1] == pytest.approx(0.97, abs=1e-5)


def one_hot(count: int) -> dict[str, list[float]]:
    """Questions ``q i`` and answers ``a i``, each pointing its own way."""
    return {
        f"{kind} {i}": [float(i == j) for j in range(count)] for i in range(count) for kind in "qa"
    }


async def test_a_sample_kept_after_its_lookup_is_embedded_once() -> None:
    embedder = FixedEmbedder(one_hot(10))
    duplicates = DuplicateFilter(embedder=embedder)

    for i in range(10):
        assert await duplicates.find(f"q {i}", f"a {i}") is None
        await duplicates.add(str(i), f"q {i}", f"a {i}")

    # each question and answer once, in one call per sample
    assert embedder.embedded == [f"{kind} {i}" for i in range(10) for kind in "qa"]


async def test_the_embedding_rows_grow_past_their_first_allocation() -> None:
    vectors = one_hot(40) | {"between q 0 and q 1": [1.0, 1.0] + [0.0] * 38}
    duplicates = DuplicateFilter(embedder=FixedEmbedder(vectors))
    for i in range(40):
        await duplicates.add(str(i), f"q {i}", f"a {i}")

    assert await duplicates.find("q 33", "a 33") == ("33", pytest.approx(1.0))
    # question cosine 0.71 with kept 0, answer cosine 1: √0.71 = 0.84, below 0.9
    assert await duplicates.find("between q 0 and q 1", "a 0") is None
    lower = DuplicateFilter(threshold=0.8, embedder=FixedEmbedder(vectors))
    await lower.add("0", "q 0", "a 0")
    assert await lower.find("between q 0 and q 1", "a 0") == ("0", pytest.approx(0.5**0.25))


@pytest.mark.parametrize("threshold", [0, -0.1, 1.01, float("nan")])
def test_a_threshold_outside_zero_to_one_is_refused(threshold: float) -> None:
    with pytest.raises(ConfigError, match="duplicate threshold must be above 0 and at most 1"):
        DuplicateFilter(threshold=threshold)


def test_a_threshold_of_one_is_accepted() -> None:
    assert DuplicateFilter(threshold=1).threshold == 1.0
