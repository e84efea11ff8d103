"""What the RAGAS metrics share: the judge's JSON replies, statements of a
text (extracted once per sample and trial and reused by every metric that needs them),
item-by-item verdicts whose count must match, cosine similarity of embeddings, and the
contexts and sentences a metric judges."""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import Any, TypeVar

import numpy as np
from pydantic import BaseModel, Field

from ragjudge.metrics._base import MetricContext, MetricFailure, Result
from ragjudge.metrics._judged import Judging, Verdict
from ragjudge.metrics.replies import JsonReply, ParseError, Reply, YesNoWord
from ragjudge.schema import ContextChunk, Output, Sample
from ragjudge.text._normalise import split_sentences

T = TypeVar("T")

STATEMENTS_PURPOSE = "ragas.statements"


class Statements(BaseModel):
    """The judge's statements of a text."""

    statements: list[str] = Field(examples=[["(dry run) a statement of the text."]])


class ItemVerdict(BaseModel):
    """One judged item (a statement, a sentence, a chunk): the reason, then the verdict
    (``Yes``/``No`` in any case)."""

    reason: str
    verdict: YesNoWord


class ItemVerdicts(BaseModel):
    verdicts: list[ItemVerdict]


class CountedVerdicts(Reply[list[ItemVerdict]]):
    """Exactly ``count`` yes/no verdicts, in the order of the items shown (a different
    count is a parse error: the judge is asked again). ``Yes``/``No`` in any case."""

    def __init__(self, count: int) -> None:
        self.count = count
        self._json = JsonReply(ItemVerdicts)

    def parse(self, text: str, *, evaluated: Sequence[str] = ()) -> list[ItemVerdict]:
        """The verdicts, one per item."""
        found = self._json.parse(text, evaluated=evaluated).verdicts
        if len(found) != self.count:
            raise ParseError(
                f"expected {self.count} verdicts, one per item in order, got {len(found)}"
            )
        return found

    def reply_schema(self) -> dict[str, Any]:
        """The verdicts' JSON schema, with exactly ``count`` of them."""
        schema = self._json.reply_schema()
        verdicts = {**schema["properties"]["verdicts"], "minItems": self.count}
        verdicts["maxItems"] = self.count
        return {**schema, "properties": {**schema["properties"], "verdicts": verdicts}}

    def stand_in(self) -> str:
        """``count`` yes verdicts."""
        one = '{"reason": "(dry run)", "verdict": "yes"}'
        return '{"verdicts": [' + ", ".join([one] * self.count) + "]}"


STATEMENTS = JsonReply(Statements)


async def shared_ask(j: Judging, key: Hashable, reply: Reply[T], template: str, **values: Any) -> T:
    """``j.ask(...)`` computed once per ``key`` for all the metrics of this sample and
    trial; the call ids land on every metric that used the answer."""

    async def ask() -> Verdict[T]:
        return await j.ask(reply, template, **values)

    verdict = await j.ctx.once(key, ask)
    j.call_ids.extend(i for i in verdict.call_ids if i not in j.call_ids)
    return verdict.value


async def statements_of(j: Judging, question: str, text: str) -> list[str]:
    """The statements the judge breaks ``text`` (an answer to ``question``) into; shared
    by every metric of the sample and trial that needs the same text's statements."""
    found = await shared_ask(
        j,
        ("statements", question, text),
        STATEMENTS,
        "statements.jinja",
        purpose=STATEMENTS_PURPOSE,
        question=question,
        answer=text,
    )
    return [s.strip() for s in found.statements if s.strip()]


def retrieved_contexts(sample: Sample, output: Output) -> list[ContextChunk]:
    """The contexts the system under test used: its own, else the row's. Missing (from
    both) is a :class:`MetricFailure`; an empty list (it retrieved nothing) is a list."""
    found = output.retrieved_context
    if found is None:
        found = sample.retrieved_context
    if found is None:
        raise MetricFailure("no retrieved contexts: neither the target nor the row gives any")
    return list(found)


def sentences_of(chunks: Sequence[ContextChunk]) -> list[str]:
    """Every sentence of the contexts, split language-aware (Japanese too)."""
    return [s for chunk in chunks for s in split_sentences(chunk.content or "") if s.strip()]


def share_of_yes(verdicts: Sequence[ItemVerdict]) -> float:
    """The share of ``yes`` verdicts (the caller rules out an empty list)."""
    return sum(v.verdict == "yes" for v in verdicts) / len(verdicts)


def verdicts_result(
    items: Sequence[str], verdicts: Sequence[ItemVerdict], *, item: str, said_yes: str
) -> Result:
    """The share of ``yes`` verdicts over ``items`` (one verdict each, in order), with
    every item's verdict and reason under ``<item>s`` in the details; the rationale
    reads "<yes> of <all> <said_yes>"."""
    yes = sum(v.verdict == "yes" for v in verdicts)
    return Result(
        share_of_yes(verdicts),
        rationale=f"{yes} of {len(items)} {said_yes}",
        details={
            f"{item}s": [
                {item: text, "verdict": v.verdict, "reason": v.reason}
                for text, v in zip(items, verdicts, strict=True)
            ],
            "size": len(items),
        },
    )


async def cosine(ctx: MetricContext, spec: str, first: str, others: Sequence[str]) -> list[float]:
    """Cosine similarity of ``first`` with each of ``others``, embedded by ``spec``."""
    vectors = await ctx.embedder(spec).embed([first, *others])
    matrix = np.asarray(vectors, dtype=np.float64)
    if matrix.shape[0] != len(others) + 1:
        raise MetricFailure(f"the embedder {spec!r} returned {matrix.shape[0]} vectors")
    norms = np.linalg.norm(matrix, axis=1)
    if not np.all(norms > 0):
        raise MetricFailure(f"the embedder {spec!r} returned a zero vector")
    unit = matrix / norms[:, None]
    return [float(np.clip(unit[0] @ row, -1.0, 1.0)) for row in unit[1:]]
