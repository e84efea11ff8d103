"""BERTScore: the response and a reference compared through contextual token embeddings.

Every word piece of the response is matched to its most similar word piece of the
reference (cosine of the encoder's last-layer embeddings): precision is the mean of
those best similarities over the response's tokens, recall the same from the
reference's side, F1 their harmonic mean. This is the BERTScore baseline of the
answer-accuracy paper, computed without IDF weighting or baseline rescaling.

As in the reference implementation (the ``bert-score`` package), the ``[CLS]`` and
``[SEP]`` tokens are left out of the means but remain candidates for the best match,
so with the same model and layer the values agree with it.

The model is a local sentence-transformers model (``local`` extra), by default the
bundled all-MiniLM-L6-v2, loaded once per process. Its tokenizer splits Japanese into
characters and sub-words, so Japanese text gets meaningful, if coarse, scores.
"""

from __future__ import annotations

from collections import OrderedDict
from functools import cached_property
from typing import Any, NamedTuple

from pydantic import Field

from ragjudge.metrics._base import (
    Metric,
    MetricContext,
    MetricFailure,
    MetricOptions,
    Result,
    references,
    require_response,
)
from ragjudge.metrics._registry import register_metric
from ragjudge.models._embeddings import DEFAULT_LOCAL_MODEL, LocalEmbedder, TokenEmbeddings
from ragjudge.schema import Output, Sample, ScoreMeaning

__all__ = ["BertScore", "BertScoreResult", "bert_score_components"]

# An entry of the reference memo is the text's word-piece vectors (about 150 KB for
# 100 word pieces with 384 dimensions).
REFERENCE_CACHE_SIZE = 256


class BertScoreResult(NamedTuple):
    """Greedy-matching precision, recall and F1 of one candidate against one reference."""

    precision: float
    recall: float
    f1: float


def bert_score_components(
    candidate: TokenEmbeddings, reference: TokenEmbeddings
) -> BertScoreResult | None:
    """BERTScore of ``candidate`` against ``reference``.

    A candidate without content tokens (an empty response) scores 0; a reference
    without content tokens cannot be compared and gives None.
    """
    candidate_content = ~candidate.special
    reference_content = ~reference.special
    if not reference_content.any():
        return None
    if not candidate_content.any():
        return BertScoreResult(0.0, 0.0, 0.0)
    similarity = candidate.vectors @ reference.vectors.T
    precision = float(similarity[candidate_content].max(axis=1).mean())
    recall = float(similarity[:, reference_content].max(axis=0).mean())
    total = precision + recall
    f1 = 2 * precision * recall / total if total > 0 else 0.0
    return BertScoreResult(precision, recall, f1)


class BertScoreOptions(MetricOptions):
    """The local sentence-transformers model (name or path) whose token embeddings
    are compared."""

    model: str = Field(default=DEFAULT_LOCAL_MODEL, min_length=1)


@register_metric("bert_score")
class BertScore(Metric):
    """BERTScore F1 of the response against the best-matching reference answer.

    ``details`` hold that reference's ``precision``, ``recall`` and
    ``reference_index`` and the ``model``. An empty response scores 0; a missing
    response or only blank references give an error score.
    """

    pipeline_parts = ("end to end",)

    Options = BertScoreOptions
    options: BertScoreOptions
    requires: tuple[str, ...] = ("response", "expected_response")
    meaning = ScoreMeaning(low=0, high=1, description="BERTScore F1 against the best reference")

    extra = "local"

    @cached_property
    def embedder(self) -> LocalEmbedder:
        """The local model, built on first use so the metric can be described (``ragjudge
        metrics``) where the ``local`` extra is not installed; a run checks the extra
        before it starts."""
        return LocalEmbedder(self.options.model)

    async def compute(self, sample: Sample, output: Output, ctx: MetricContext) -> Result:
        """Compare the response with every reference and keep the best F1."""
        text = require_response(output)
        found = references(sample)
        embedded = await _embed(self.embedder, text, [reference for _, reference in found])
        response = embedded[text]
        scored = [
            (index, result)
            for index, reference in found
            if (result := bert_score_components(response, embedded[reference])) is not None
        ]
        if not scored:
            raise MetricFailure("no reference answer has any token to compare")
        # max() keeps the first of equal scores, i.e. the earliest reference.
        index, best = max(scored, key=lambda pair: pair[1].f1)
        details: dict[str, Any] = {
            "precision": best.precision,
            "recall": best.recall,
            "reference_index": index,
            "model": self.options.model,
        }
        return Result(best.f1, details=details)


_REFERENCES: dict[str, OrderedDict[str, TokenEmbeddings]] = {}
"""Per model, the token embeddings of recently seen references (a memo: the systems and
trials compared in one run share their references, so each is usually encoded once)."""


async def _embed(
    embedder: LocalEmbedder, response: str, references: list[str]
) -> dict[str, TokenEmbeddings]:
    """Token embeddings of the response and the references, in one batch of the
    distinct texts not yet cached; the references join the cache (least recently used
    ones leave it)."""
    cached = _REFERENCES.setdefault(embedder.name, OrderedDict())
    texts = dict.fromkeys([response, *references])
    embedded = {t: cached[t] for t in texts if t in cached}
    missing = [t for t in texts if t not in embedded]
    fresh = await embedder.token_embeddings(missing)
    embedded.update(zip(missing, fresh, strict=True))
    for reference in references:
        cached[reference] = embedded[reference]
        cached.move_to_end(reference)
    while len(cached) > REFERENCE_CACHE_SIZE:
        cached.popitem(last=False)
    return embedded
