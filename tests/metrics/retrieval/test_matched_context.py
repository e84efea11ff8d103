"""``matched_context_precision`` and ``matched_context_recall``: retrieved chunks matched
with the reference contexts by shared words or by embeddings, values computed by hand."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from retrieval_helpers import score_one

from ragjudge.metrics import MetricContext, create_metric
from ragjudge.schema import ContextChunk

PRECISION, RECALL = "matched_context_precision", "matched_context_recall"


def chunks(*texts: str | None) -> list[ContextChunk]:
    return [ContextChunk(doc_uri=f"d{i}", content=t) for i, t in enumerate(texts)]


def references(*texts: str) -> list[dict[str, Any]]:
    return [{"doc_uri": f"ref{i}", "content": t} for i, t in enumerate(texts)]


REFERENCES = references("the cat sat on the mat", "Paris is the capital of France.")
RETRIEVED = chunks(
    "The cat sat on the mat.",  # every word of the first reference: 1
    "dogs bark loudly at night",  # no word shared: 0
    "Paris is in France",  # 3 shared of 4 + 6 words: 2·3/10 = 0.6 with the second
)


async def test_lexical_matching_at_the_default_threshold() -> None:
    precision = await score_one(PRECISION, RETRIEVED, REFERENCES)
    assert precision.value == pytest.approx(2 / 3)
    assert precision.details["similarities"] == pytest.approx([1.0, 0.0, 0.6])
    assert precision.details["matched"] == [0, 2] and precision.details["threshold"] == 0.5
    assert precision.rationale == "2 of 3 retrieved chunks match a reference context"
    recall = await score_one(RECALL, RETRIEVED, REFERENCES)
    assert recall.value == 1.0 and recall.details["similarities"] == pytest.approx([1.0, 0.6])


async def test_a_higher_threshold_matches_fewer() -> None:
    spec = {"threshold": 0.7}
    assert (await score_one({"metric": PRECISION, **spec}, RETRIEVED, REFERENCES)).value == (
        pytest.approx(1 / 3)
    )
    assert (await score_one({"metric": RECALL, **spec}, RETRIEVED, REFERENCES)).value == 0.5


async def test_japanese_is_compared_word_by_word() -> None:
    wanted = references("東京は日本の首都です。")
    found = chunks("日本の首都は東京", "大阪は日本の都市です")
    # 5 shared of 5 + 6 words: 10/11; 4 shared (は, 日本, の, です) of 6 + 6: 8/12
    precision = await score_one({"metric": PRECISION, "threshold": 0.8}, found, wanted)
    assert precision.details["similarities"] == pytest.approx([10 / 11, 8 / 12])
    assert precision.value == 0.5
    recall = await score_one({"metric": RECALL, "threshold": 0.8}, found, wanted)
    assert recall.value == 1.0


@pytest.mark.parametrize("name", [PRECISION, RECALL])
async def test_an_empty_retrieval_is_0(name: str) -> None:
    assert (await score_one(name, [], REFERENCES)).value == 0.0


@pytest.mark.parametrize("name", [PRECISION, RECALL])
async def test_reference_contexts_without_text_are_not_applicable(name: str) -> None:
    score = await score_one(name, RETRIEVED, [{"doc_uri": "a"}, {"doc_uri": "b", "content": " "}])
    assert score.value is None and score.error is None
    assert score.skipped == "no expected_retrieved_context item has content to match"


async def test_a_retrieved_chunk_without_text_is_an_error() -> None:
    score = await score_one(PRECISION, chunks("a text", None), REFERENCES)
    assert score.value is None and score.error == "retrieved chunk 1 ('d1') has no content"


async def test_no_reference_contexts_is_an_error() -> None:
    score = await score_one(RECALL, RETRIEVED, None)
    assert score.value is None and score.error
    assert "no expected_retrieved_context" in score.error


class TableEmbedder:
    """Each text's vector from a table; counts its calls."""

    name = "table"

    def __init__(self, vectors: dict[str, list[float]]) -> None:
        self.vectors = vectors
        self.calls: list[list[str]] = []

    async def embed(self, texts: list[str]) -> Any:
        self.calls.append(list(texts))
        return np.asarray([self.vectors[t] for t in texts], dtype=np.float64)


async def test_embedding_matching_shares_one_batch_between_both_metrics() -> None:
    embedder = TableEmbedder(
        {
            "chunk a": [1.0, 0.0],
            "chunk b": [0.6, 0.8],
            "reference x": [1.0, 0.0],  # cosines 1 with chunk a, 0.6 with chunk b
            "reference y": [0.0, 1.0],  # cosines 0 with chunk a, 0.8 with chunk b
        }
    )
    ctx = MetricContext(embedders={"local": embedder})
    found, wanted = chunks("chunk a", "chunk b"), references("reference x", "reference y")
    spec = {"similarity": "embedding", "threshold": 0.9}
    precision = await score_one({"metric": PRECISION, **spec}, found, wanted, ctx)
    recall = await score_one({"metric": RECALL, **spec}, found, wanted, ctx)
    assert precision.details["similarities"] == pytest.approx([1.0, 0.8])
    assert precision.value == 0.5
    assert recall.details["similarities"] == pytest.approx([1.0, 0.8])
    assert recall.value == 0.5
    assert embedder.calls == [["chunk a", "chunk b", "reference x", "reference y"]]


async def test_embedding_matching_at_its_default_threshold() -> None:
    embedder = TableEmbedder({"c": [0.6, 0.8], "r": [1.0, 0.0]})
    ctx = MetricContext(embedders={"local": embedder})
    spec = {"metric": RECALL, "similarity": "embedding"}
    score = await score_one(spec, chunks("c"), references("r"), ctx)
    assert score.details["threshold"] == 0.7 and score.value == 0.0  # cosine 0.6


def test_embedding_matching_needs_the_embedder_and_its_extra() -> None:
    lexical = create_metric(PRECISION)
    assert lexical.embedding_specs() == [] and lexical.extras() == []
    embedded = create_metric({"metric": PRECISION, "similarity": "embedding"})
    assert embedded.embedding_specs() == ["local"] and embedded.extras() == ["local"]
    remote = create_metric(
        {"metric": RECALL, "similarity": "embedding", "embedding": "openai/text-embedding-3-small"}
    )
    assert remote.extras() == []


def test_a_bad_option_names_the_metric_and_the_option() -> None:
    with pytest.raises(ValueError, match=rf"metric '{PRECISION}': option 'similarity' must be one"):
        create_metric({"metric": PRECISION, "similarity": "fuzzy"})
    with pytest.raises(ValueError, match=rf"metric '{RECALL}': option 'threshold' must be at most"):
        create_metric({"metric": RECALL, "threshold": 2.0})
