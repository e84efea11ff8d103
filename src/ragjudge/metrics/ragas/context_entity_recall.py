"""``context_entity_recall`` (RAGAS): how many of the reference's entities the retrieved
contexts mention.

The entities of the reference answer — names, places, dates, numbers, terms — are
listed by the judge (``extractor: judge``, one call, the default) or picked out without
a judge (``extractor: terms``: nouns and proper nouns from MeCab for Japanese,
capitalised words, numbers and words with digits or inner capitals for other text; an
approximation, see :mod:`ragjudge.text._terms`). An entity is found when the contexts
hold it, compared folded (Unicode NFKC, case; whitespace ignored in Japanese, whole
words elsewhere): ``found / all entities of the reference``.

Rules: a reference with no entity is an error (the share is undefined); a target that
retrieved nothing scores 0 (no entity is found); several references: the first non-blank
one.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field

from ragjudge.metrics._base import (
    MetricContext,
    MetricFailure,
    MetricOptions,
    Produced,
    Result,
    references,
)
from ragjudge.metrics._judged import JudgedMetric, Judging
from ragjudge.metrics._registry import register_metric
from ragjudge.metrics.ragas._common import retrieved_contexts, shared_ask
from ragjudge.metrics.replies import JsonReply
from ragjudge.schema import Output, Sample, Score, ScoreMeaning
from ragjudge.text._terms import key_terms, mentions, term_key

PURPOSE = "ragas.entities"


class Entities(BaseModel):
    """The judge's entities of a text."""

    entities: list[str] = Field(examples=[["(dry run) an entity"]])


ENTITIES = JsonReply(Entities)


class EntityRecallOptions(MetricOptions):
    extractor: Literal["judge", "terms"] = "judge"
    """Who lists the reference's entities: the judge (one call), or the term extractor
    (no judge; nouns, names and numbers, approximate)."""


@register_metric("context_entity_recall")
class ContextEntityRecall(JudgedMetric):
    """Share of the reference's entities that the retrieved contexts mention."""

    pipeline_parts = ("retrieval",)

    calls_per_sample = "1 (0 with extractor: terms)"

    Options = EntityRecallOptions
    options: EntityRecallOptions
    requires: tuple[str, ...] = ("expected_response", "retrieved_context")
    meaning = ScoreMeaning(description="share of the reference's entities the contexts mention")

    def __init__(self, *, name: str | None = None, **options: Any) -> None:
        super().__init__(name=name, **options)
        if self.options.extractor == "terms":
            # The runner asks each metric instance whether to open a judge for it.
            vars(self)["needs_judge"] = False

    async def score(self, sample: Sample, output: Output, ctx: MetricContext) -> list[Score]:
        """The judge's entities through the kit, or the term extractor's without a judge."""
        if self.options.extractor == "judge":
            return await super().score(sample, output, ctx)
        try:
            reference = references(sample)[0][1]
            produced = _recall(key_terms(reference), sample, output, extractor="terms")
        except MetricFailure as exc:
            return self.failed(exc.message, details=exc.details, sample=sample)
        return self.to_scores(produced, [])

    async def judge(self, sample: Sample, output: Output, j: Judging) -> Produced:
        """One call listing the reference's entities (shared by the instances of the
        metric on the sample), then the lookup in the contexts."""
        reference = references(sample)[0][1]
        found = await shared_ask(
            j,
            ("entities", reference),
            ENTITIES,
            "context_entities.jinja",
            purpose=PURPOSE,
            text=reference,
        )
        return _recall(found.entities, sample, output, extractor="judge")


def _recall(entities: list[str], sample: Sample, output: Output, *, extractor: str) -> Result:
    """The share of ``entities`` (each once, compared folded) the contexts mention."""
    unique: dict[str, str] = {}
    for entity in entities:
        if term_key(entity):
            unique.setdefault(term_key(entity), entity.strip())
    if not unique:
        raise MetricFailure(f"the reference names no entity ({extractor} extractor)")
    contexts = "\n".join(chunk.content or "" for chunk in retrieved_contexts(sample, output))
    hits = [mentions(contexts, e) for e in unique.values()]
    listed = [{"entity": e, "found": hit} for e, hit in zip(unique.values(), hits, strict=True)]
    found = sum(hits)
    return Result(
        found / len(listed),
        rationale=f"{found} of {len(listed)} entities of the reference found in the contexts",
        details={"entities": listed, "extractor": extractor, "size": len(listed)},
    )
