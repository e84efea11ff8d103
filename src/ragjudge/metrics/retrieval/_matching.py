"""Matching retrieved chunks with reference contexts, without a judge: the similarity
of every retrieved chunk with every reference context (the ``content`` of the row's
``expected_retrieved_context``), by shared words or by embeddings, computed once per
sample for both matched-context metrics.

Lexical similarity is the Dice coefficient of the two bags of words (twice the shared
words over all words), the words of Japanese found by MeCab; embedding similarity is
the cosine of the two texts' embeddings.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import ClassVar, Literal

import numpy as np
from pydantic import Field

from ragjudge.metrics._base import (
    Metric,
    MetricContext,
    MetricFailure,
    MetricOptions,
    NotApplicable,
)
from ragjudge.metrics.ragas._matching import word_similarity
from ragjudge.metrics.retrieval._documents import CONTEXTS
from ragjudge.schema import Output, Sample
from ragjudge.text import tokenize

__all__ = ["DEFAULT_THRESHOLDS", "MatchOptions", "MatchedContextMetric", "Similarities"]

DEFAULT_THRESHOLDS = {"lexical": 0.5, "embedding": 0.7}
"""The threshold of each similarity when the ``threshold`` option is not given."""


class MatchOptions(MetricOptions):
    """The options of the matched-context metrics."""

    similarity: Literal["lexical", "embedding"] = "lexical"
    """How texts are compared: shared words (Dice coefficient) or embeddings (cosine)."""
    threshold: float | None = Field(default=None, ge=0.0, le=1.0)
    """A chunk and a reference context match at this similarity or above (none: 0.5
    lexical, 0.7 embedding)."""
    embedding: str = "local"
    """The embedder of ``similarity: embedding`` (``local`` or ``openai/<model>``)."""


@dataclass(frozen=True)
class Similarities:
    """The similarity of each retrieved chunk (rows) with each reference context
    (columns), and the threshold at which they match."""

    matrix: list[list[float]]
    references: int
    threshold: float

    def best_per_chunk(self) -> list[float]:
        """Each retrieved chunk's highest similarity with a reference context."""
        return [max(row) for row in self.matrix]

    def best_per_reference(self) -> list[float]:
        """Each reference context's highest similarity with a retrieved chunk (0 with
        no chunk)."""
        return [max((row[j] for row in self.matrix), default=0.0) for j in range(self.references)]


class MatchedContextMetric(Metric):
    """A metric over the similarities of the retrieved chunks with the reference
    contexts; both metrics of the family share them per sample."""

    pipeline_parts = ("retrieval",)
    requires: tuple[str, ...] = (CONTEXTS, "expected_retrieved_context")
    Options: ClassVar[type[MetricOptions]] = MatchOptions
    options: MatchOptions

    def embedding_specs(self) -> list[str]:
        """The embedder, when texts are compared by embeddings."""
        return [self.options.embedding] if self.options.similarity == "embedding" else []

    @property
    def match_threshold(self) -> float:
        """The threshold option (the similarity at which a chunk and a reference
        match), or the similarity's default."""
        given = self.options.threshold
        return DEFAULT_THRESHOLDS[self.options.similarity] if given is None else given

    async def similarities(
        self, sample: Sample, output: Output, ctx: MetricContext
    ) -> Similarities:
        """The chunk × reference similarities, computed once per sample for every
        matched-context metric with the same similarity."""
        chunks, references = _texts(sample, output)
        opts = self.options
        key = (
            "matched_contexts",
            opts.similarity,
            opts.embedding,
            tuple(chunks),
            tuple(references),
        )
        if opts.similarity == "lexical":
            matrix = ctx.once_now(key, lambda: lexical_matrix(chunks, references))
        else:
            matrix = await ctx.once(
                key, lambda: embedding_matrix(ctx, opts.embedding, chunks, references)
            )
        return Similarities(matrix, len(references), self.match_threshold)


def _texts(sample: Sample, output: Output) -> tuple[list[str], list[str]]:
    """The retrieved chunks' texts and the reference contexts. A missing input, or a
    retrieved chunk without text, is a :class:`MetricFailure`; reference contexts that
    are all empty are :class:`NotApplicable`."""
    if sample.expected_retrieved_context is None:
        raise MetricFailure("no expected_retrieved_context (the reference contexts)")
    if output.retrieved_context is None:
        raise MetricFailure("no retrieved context (nor a trace with a retriever span)")
    references = [
        c.content for c in sample.expected_retrieved_context if c.content and c.content.strip()
    ]
    if not references:
        raise NotApplicable("no expected_retrieved_context item has content to match")
    chunks: list[str] = []
    for position, chunk in enumerate(output.retrieved_context):
        if chunk.content is None:
            raise MetricFailure(f"retrieved chunk {position} ({chunk.doc_uri!r}) has no content")
        chunks.append(chunk.content)
    return chunks, references


def lexical_matrix(chunks: list[str], references: list[str]) -> list[list[float]]:
    """The Dice coefficient of the words of each chunk with those of each reference."""
    reference_words = [Counter(tokenize(r)) for r in references]
    return [
        [word_similarity(Counter(tokenize(chunk)), words) for words in reference_words]
        for chunk in chunks
    ]


async def embedding_matrix(
    ctx: MetricContext, spec: str, chunks: list[str], references: list[str]
) -> list[list[float]]:
    """The cosine of each chunk's embedding with each reference's, in one batch."""
    if not chunks:
        return []
    vectors = np.asarray(await ctx.embedder(spec).embed([*chunks, *references]), dtype=np.float64)
    if vectors.shape[0] != len(chunks) + len(references):
        raise MetricFailure(f"the embedder {spec!r} returned {vectors.shape[0]} vectors")
    norms = np.linalg.norm(vectors, axis=1)
    if not np.all(norms > 0):
        raise MetricFailure(f"the embedder {spec!r} returned a zero vector")
    unit = vectors / norms[:, None]
    cosines = np.clip(unit[: len(chunks)] @ unit[len(chunks) :].T, -1.0, 1.0)
    return [[float(v) for v in row] for row in cosines]
