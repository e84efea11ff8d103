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
from typing import Any, NamedTuple

from ragjudge.embeddings import DEFAULT_LOCAL_MODEL, LocalEmbedder, TokenEmbeddings
from ragjudge.metrics._base import (
    Metric,
    MetricContext,
    register_metric,
    response_and_references,
)
from ragjudge.schema import Output, Sample, Score

__all__ = ["BertScore", "BertScoreResult", "bert_score_components"]

# Reference embeddings kept per metric instance. The systems and trials compared in
# one run share their references, so each is usually encoded once. An entry is the
# text's word-piece vectors (about 150 KB for 100 word pieces with 384 dimensions).
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


class BertScore(Metric):
    """BERTScore F1 of the response against the best-matching reference answer.

    ``details`` hold that reference's ``precision``, ``recall`` and
    ``reference_index`` and the ``model``. An empty response scores 0; a missing
    response or only blank references give an error score.
    """

    name = "bert_score"
    requires: tuple[str, ...] = ("response", "expected_response")

    def __init__(self, *, model: str = DEFAULT_LOCAL_MODEL) -> None:
        if not isinstance(model, str) or not model.strip():
            raise ValueError("metric 'bert_score': option 'model' must be a model name or path")
        self.model = model
        self.embedder = LocalEmbedder(model)
        self._references: OrderedDict[str, TokenEmbeddings] = OrderedDict()

    async def score(self, sample: Sample, output: Output, ctx: MetricContext) -> Score:
        """Compare the response with every reference and keep the best F1."""
        found = response_and_references(self.name, sample, output)
        if isinstance(found, Score):
            return found
        text, references = found
        embedded = await self._embed(text, [reference for _, reference in references])
        response = embedded[text]
        scored = [
            (index, result)
            for index, reference in references
            if (result := bert_score_components(response, embedded[reference])) is not None
        ]
        if not scored:
            return Score.failed(self.name, "no reference answer has any token to compare")
        # max() keeps the first of equal scores, i.e. the earliest reference.
        index, best = max(scored, key=lambda pair: pair[1].f1)
        details: dict[str, Any] = {
            "precision": best.precision,
            "recall": best.recall,
            "reference_index": index,
            "model": self.model,
        }
        return Score(metric=self.name, value=best.f1, details=details)

    async def _embed(self, response: str, references: list[str]) -> dict[str, TokenEmbeddings]:
        """Token embeddings of the response and the references, in one batch of the
        distinct texts not yet cached; the references join the cache (least recently
        used ones leave it)."""
        texts = dict.fromkeys([response, *references])
        embedded = {t: self._references[t] for t in texts if t in self._references}
        missing = [t for t in texts if t not in embedded]
        fresh = await self.embedder.token_embeddings(missing)
        embedded.update(zip(missing, fresh, strict=True))
        for reference in references:
            self._references[reference] = embedded[reference]
            self._references.move_to_end(reference)
        while len(self._references) > REFERENCE_CACHE_SIZE:
            self._references.popitem(last=False)
        return embedded


register_metric("bert_score")(BertScore)
