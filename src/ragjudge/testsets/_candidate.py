"""One candidate from its chunks to its verdict: the generator writes a draft, the
model answers it without any passage (closed book), and the judge checks the draft
against the passages. Each model call goes through the judge layer (limits, retries,
re-asks, cache, prices); a call that fails after its retries makes the candidate an
``error``, never a pass."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar

from ragjudge.errors import JudgeError
from ragjudge.knowledge import Chunk
from ragjudge.models import ChatMessage, GenerateConfig, Parsed
from ragjudge.store import StoredCandidate
from ragjudge.testsets._check_prompts import (
    CLOSED_BOOK_PURPOSE,
    VERIFY_PURPOSE,
    closed_book_messages,
    verify_messages,
)
from ragjudge.testsets._prompts import (
    GENERATION_PURPOSE,
    generation_messages,
    unanswerable_reference,
)
from ragjudge.testsets._replies import read_closed_book, read_draft, read_verdict
from ragjudge.testsets._styles import with_typos
from ragjudge.testsets._types import CheckName, CheckVerdict, Draft, SourcePlan

__all__ = ["CandidateOutcome", "Generator", "check_candidate", "first_failed_check"]

T = TypeVar("T")

RELATED_CHUNKS = 5
"""Chunks of the knowledge base an unanswerable question is checked against."""


class Generator(Protocol):
    """What a candidate needs of a model: the judge layer's parsed replies and prices
    (a :class:`~ragjudge.models.JudgeModel`, or the dry run's stand-in)."""

    async def generate_parsed(
        self,
        messages: Sequence[ChatMessage],
        parse: Callable[[str], T],
        config: GenerateConfig | None = None,
        *,
        trial: int = 0,
        purpose: str | None = None,
    ) -> Parsed[T]: ...


@dataclass
class CandidateOutcome:
    """What became of one candidate, and what it cost."""

    plan: SourcePlan
    outcome: str = "passed"
    """``passed``, or the check (:data:`~ragjudge.testsets.CheckName`) that dropped it."""
    draft: Draft | None = None
    closed_book: str | None = None
    verdict: CheckVerdict | None = None
    checked_against: tuple[Chunk, ...] = ()
    """The chunks the judge read: the plan's own, or for an unanswerable question the
    knowledge base's closest ones."""
    error: str | None = None
    calls: int = 0
    cost: float | None = None
    costs: list[float | None] = field(default_factory=list)

    def stored(self) -> StoredCandidate:
        """The candidate as the store keeps it."""
        record: dict[str, Any] = {
            "chunks": [chunk.chunk_id for chunk in self.plan.chunks],
            "language": self.plan.language,
            "persona": self.plan.persona,
            "style": self.plan.style,
            "draft": None if self.draft is None else self.draft.model_dump(mode="json"),
            "closed_book": self.closed_book,
            "verdict": None if self.verdict is None else self.verdict.model_dump(mode="json"),
            "checked_against": [chunk.chunk_id for chunk in self.checked_against],
            "error": self.error,
        }
        return StoredCandidate(
            self.plan.key,
            self.plan.kind,
            self.plan.index,
            self.outcome,
            record,
            self.calls,
            self.cost,
        )


class _Calls:
    """The candidate's calls and their cost, from every reply (re-asks included)."""

    def __init__(self, outcome: CandidateOutcome, prices: Callable[[Any], float | None]) -> None:
        self.outcome = outcome
        self.prices = prices

    def count(self, parsed: Parsed[Any]) -> None:
        for generation in parsed.generations:
            self.outcome.calls += 1
            cost = self.prices(generation)  # None: no price known, cached or not
            if cost is not None and generation.cached:
                cost = 0.0
            if cost is not None:
                self.outcome.cost = (self.outcome.cost or 0.0) + cost


async def check_candidate(
    plan: SourcePlan,
    model: Generator,
    sampling: GenerateConfig,
    related: Callable[[str, int], list[Chunk]],
    prices: Callable[[Any], float | None],
    typo_seed: str,
    variant: int = 0,
) -> CandidateOutcome:
    """Write, answer closed-book and verify candidate ``plan``. ``related(text, k)``
    finds the knowledge base's chunks an unanswerable question is checked against;
    ``prices(generation)`` is a reply's cost (None: no price). ``variant`` counts the
    earlier candidates of the same kind written from the same chunks (the knowledge
    base had fewer chunks than candidates): the generator is asked for another detail."""
    outcome = CandidateOutcome(plan)
    calls = _Calls(outcome, prices)
    try:
        await _checked(outcome, calls, model, sampling, related, typo_seed, variant)
    except JudgeError as exc:
        outcome.outcome, outcome.error = "error", str(exc)
    return outcome


async def _checked(
    outcome: CandidateOutcome,
    calls: _Calls,
    model: Generator,
    sampling: GenerateConfig,
    related: Callable[[str, int], list[Chunk]],
    typo_seed: str,
    variant: int,
) -> None:
    plan = outcome.plan
    written = await model.generate_parsed(
        _with_variant(generation_messages(plan), variant),
        read_draft(plan.kind),
        sampling,
        purpose=GENERATION_PURPOSE,
    )
    calls.count(written)
    if written.value is None:
        outcome.outcome, outcome.error = "generated", written.error
        return
    draft = _styled(written.value, plan, typo_seed)
    outcome.draft = draft
    if plan.kind == "unanswerable":
        outcome.checked_against = tuple(related(_asked(draft), RELATED_CHUNKS))
    else:
        outcome.checked_against = plan.chunks
        answered = await model.generate_parsed(
            closed_book_messages(draft, plan.language),
            read_closed_book,
            sampling,
            purpose=CLOSED_BOOK_PURPOSE,
        )
        calls.count(answered)
        if answered.value is None:
            outcome.outcome, outcome.error = "error", answered.error
            return
        outcome.closed_book = answered.value
    verified = await model.generate_parsed(
        verify_messages(plan.kind, outcome.checked_against, draft, outcome.closed_book),
        read_verdict(plan.kind, closed_book_given=outcome.closed_book is not None),
        sampling,
        purpose=VERIFY_PURPOSE,
    )
    calls.count(verified)
    if verified.value is None:
        outcome.outcome, outcome.error = "error", verified.error
        return
    outcome.verdict = verified.value
    outcome.outcome = first_failed_check(plan, verified.value) or "passed"


def _with_variant(messages: list[ChatMessage], variant: int) -> list[ChatMessage]:
    """The prompt of a candidate written again from chunks an earlier one used: it
    differs (so no cached reply repeats) and asks for a less obvious detail."""
    if variant <= 0:
        return messages
    last = dict(messages[-1])
    last["content"] = (
        f"{last['content']}\n\nThis is sample number {variant + 1} written from these "
        "passages: ask about a different detail than the most obvious one."
    )
    return [*messages[:-1], last]


def _styled(draft: Draft, plan: SourcePlan, typo_seed: str) -> Draft:
    """The draft in its plan's style: typing mistakes added for ``misspelt``, and an
    unanswerable question's reference said the same way every time."""
    update: dict[str, Any] = {}
    if plan.style == "misspelt":
        update["question"] = with_typos(draft.question, typo_seed)
    if plan.kind == "unanswerable":
        update["answer"] = unanswerable_reference(plan.language)
        update["facts"] = []
    return draft.model_copy(update=update) if update else draft


def _asked(draft: Draft) -> str:
    """What an unanswerable question is searched by: its dialogue and the question."""
    return " ".join([*(turn.user for turn in draft.turns), draft.question])


def first_failed_check(plan: SourcePlan, verdict: CheckVerdict) -> CheckName | None:
    """The first check the verdict fails for the plan's kind, None when it passes all."""
    if plan.kind == "unanswerable":
        return "not_in_knowledge_base" if verdict.answerable else None
    if not verdict.answerable:
        return "answerable"
    if not verdict.grounded:
        return "grounded"
    if verdict.closed_book_correct:
        return "closed_book"
    if plan.kind in ("multi", "comparative") and verdict.needs_every_passage is False:
        return "every_passage"
    if plan.kind == "conversational" and verdict.needs_history is False:
        return "needs_history"
    return None
