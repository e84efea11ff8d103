"""What a generated test set is made of: the kinds of sample, what one candidate is
generated from (:class:`SourcePlan`), what the generator model wrote (:class:`Draft`),
what the checks read from the judge (:class:`CheckVerdict`) and how hard a kept sample
looks (:class:`Difficulty`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from ragjudge.knowledge import Chunk

__all__ = [
    "CHECKS",
    "DEFAULT_MIX",
    "KINDS",
    "STYLES",
    "CheckName",
    "CheckVerdict",
    "Difficulty",
    "Draft",
    "Kind",
    "Language",
    "SourcePlan",
    "Style",
    "Turn",
]

Kind = Literal["single", "multi", "comparative", "unanswerable", "conversational"]
"""``single``: a factual question one chunk answers; ``multi``: the answer needs two
chunks (possibly of two documents); ``comparative``: a question comparing what two
chunks say; ``unanswerable``: a question on the knowledge base's topics that it does not
answer (the reference says so); ``conversational``: a short dialogue whose last question
depends on the earlier turns."""

KINDS: tuple[Kind, ...] = ("single", "multi", "comparative", "unanswerable", "conversational")

DEFAULT_MIX: dict[Kind, float] = {
    "single": 0.4,
    "multi": 0.2,
    "comparative": 0.1,
    "unanswerable": 0.1,
    "conversational": 0.2,
}

Style = Literal["plain", "terse", "verbose", "misspelt"]
"""How a question is worded: ``plain``; ``terse`` (a few keywords, as typed into a
search box); ``verbose`` (with background and context); ``misspelt`` (typing mistakes,
added after generation so they are really there)."""

STYLES: tuple[Style, ...] = ("plain", "terse", "verbose", "misspelt")

Language = Literal["en", "ja"]

CheckName = Literal[
    "generated",
    "answerable",
    "grounded",
    "closed_book",
    "every_passage",
    "needs_history",
    "not_in_knowledge_base",
    "duplicate",
    "error",
]
"""Why a candidate was dropped: its generation reply held no usable sample
(``generated``); the judge could not answer it from its chunks (``answerable``); the
reference says more than the chunks (``grounded``); the model answered it correctly
without the chunks (``closed_book``); one chunk alone answers a two-chunk question
(``every_passage``); a follow-up that reads alone as well as in its dialogue
(``needs_history``); an unanswerable question that the knowledge base answers after all
(``not_in_knowledge_base``); a near-duplicate of a kept sample (``duplicate``); a model
call that failed after its retries (``error``)."""

CHECKS: tuple[CheckName, ...] = (
    "generated",
    "answerable",
    "grounded",
    "closed_book",
    "every_passage",
    "needs_history",
    "not_in_knowledge_base",
    "duplicate",
    "error",
)


@dataclass(frozen=True)
class SourcePlan:
    """What one candidate is generated from. A pure function of the knowledge base, the
    seed, the kind and the candidate's number: the same plan on every run and resume."""

    kind: Kind
    index: int
    """The candidate's number within its kind, from 0."""
    chunks: tuple[Chunk, ...]
    """The chunks the question is written from: one, or two for ``multi`` and
    ``comparative`` (one for ``unanswerable``: the topic to stay near)."""
    language: Language
    persona: str | None = None
    style: Style = "plain"

    @property
    def key(self) -> str:
        """``"{kind}-{index}"``: the candidate's name in the store and in request ids."""
        return f"{self.kind}-{self.index}"


class Turn(BaseModel):
    """One earlier exchange of a conversational sample."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    user: str = Field(min_length=1)
    assistant: str = Field(min_length=1)


class Draft(BaseModel):
    """What the generator model wrote for one candidate."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    question: str = Field(min_length=1)
    """The (last) question."""
    answer: str = Field(min_length=1)
    """The reference answer (for ``unanswerable``: that the knowledge base does not say)."""
    facts: list[str] = Field(default_factory=list)
    """The facts a correct answer states, each short and checkable."""
    turns: list[Turn] = Field(default_factory=list)
    """The earlier turns of a conversational sample, oldest first (empty otherwise)."""


class CheckVerdict(BaseModel):
    """The judge's reading of one candidate against the passages it was shown."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    answerable: bool
    """The passages answer the question (with its dialogue)."""
    grounded: bool
    """Every claim of the reference answer is supported by the passages."""
    closed_book_correct: bool | None = None
    """The answer given without any passage says what the reference says (None: there
    was no such answer to compare)."""
    needs_every_passage: bool | None = None
    """A two-chunk question: no single passage answers it alone (None: one chunk)."""
    needs_history: bool | None = None
    """A follow-up: the last question cannot be understood without the earlier turns
    (None: not a dialogue)."""
    reason: str = ""


class Difficulty(BaseModel):
    """How hard a kept sample looks, from what can be counted."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    level: Literal["easy", "medium", "hard"]
    chunks_needed: int
    """How many chunks the answer needs."""
    overlap: float
    """Share of the question's content words found in its chunks (0–1): a high share is
    a lookup, a low one needs understanding."""
    points: int
    """The sum the level is read from (documented with :func:`difficulty_of`)."""
