"""Readers of the generator's and the checking judge's replies.

Each reader is a callable the judge layer parses a reply with: it returns the value or
raises :class:`~ragjudge.metrics.replies.ParseError` (a ``ValueError``) whose message
the model is shown when it is asked again. Each has ``stand_in()``, a reply that parses
(what a dry run's stand-in model answers), and ``reply_schema()``, the JSON schema of
the reply for models that keep their replies to one.

The JSON object read is the reply's last own JSON document — the whole reply, or an
object on lines of its own, fenced or bare, with prose on other lines around it (found
as the metrics' readers find theirs, :mod:`ragjudge.metrics.replies`).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ConfigDict, StrictBool, StrictStr, ValidationError

from ragjudge.metrics.replies import ParseError
from ragjudge.metrics.replies._json import own_documents
from ragjudge.testsets._prompts import MAX_FACTS, MAX_TURNS, unanswerable_reference
from ragjudge.testsets._types import CheckVerdict, Draft, Kind, Turn
from ragjudge.text import contains_cjk

__all__ = [
    "ClosedBookReader",
    "DraftReader",
    "VerdictReader",
    "read_closed_book",
    "read_draft",
    "read_verdict",
]

_SOURCE_MENTIONS = re.compile(
    r"(?i)\b(?:this|these|the\s+above|the\s+given|the\s+provided|the\s+following)\s+"
    r"(?:passages?|texts?|contexts?|documents?|excerpts?|articles?)\b"
    r"|\bthe\s+(?:passages?|excerpts?)\b"
    r"|\baccording\s+to\s+the\s+(?:passages?|texts?|contexts?|documents?|excerpts?|articles?|sources?)\b"
    r"|\b(?:in|from)\s+the\s+(?:texts?|contexts?|documents?)\s*(?=[?.!,]|$)"
    r"|本文|文書によると|文章によると|資料によると|この文章|この文書|この資料|このテキスト|"
    r"上記の|与えられた(?:文章|文書|資料|テキスト)|パッセージ"
)
"""Ways a question points at the text it was written from, which a real user never
sees ("according to the passage", 「この文章」)."""

_DRY_RUN_STAND_INS: dict[Kind, dict[str, Any]] = {
    "single": {
        "question": "(dry run) What does it say?",
        "answer": "(dry run)",
        "facts": ["(dry run)"],
    },
    "multi": {
        "question": "(dry run) How do they combine?",
        "answer": "(dry run)",
        "facts": ["(dry run)"],
    },
    "comparative": {
        "question": "(dry run) How do they differ?",
        "answer": "(dry run)",
        "facts": ["(dry run)"],
    },
    "unanswerable": {"question": "(dry run) What is not said?", "answer": "(dry run)", "facts": []},
    "conversational": {
        "turns": [{"user": "(dry run) What is it?", "assistant": "(dry run)"}],
        "question": "(dry run) And then?",
        "answer": "(dry run)",
        "facts": ["(dry run)"],
    },
}


class _TurnReply(BaseModel):
    model_config = ConfigDict(extra="ignore", str_strip_whitespace=True)

    user: StrictStr
    assistant: StrictStr


class _DraftReply(BaseModel):
    """The generator's JSON object (unknown keys are ignored; types are strict)."""

    model_config = ConfigDict(extra="ignore", str_strip_whitespace=True)

    question: StrictStr
    answer: StrictStr = ""
    facts: list[StrictStr] = []
    turns: list[_TurnReply] = []


class _VerdictReply(BaseModel):
    """The checking judge's JSON object: booleans are JSON booleans, never ``"yes"``."""

    model_config = ConfigDict(extra="ignore")

    answerable: StrictBool
    grounded: StrictBool
    closed_book_correct: StrictBool | None = None
    needs_every_passage: StrictBool | None = None
    needs_history: StrictBool | None = None
    reason: StrictStr = ""


def _last_object(text: str) -> dict[str, Any]:
    return own_documents(text)[-1]


def _validated(model: type[BaseModel], found: dict[str, Any]) -> Any:
    try:
        return model.model_validate(found)
    except ValidationError as exc:
        raise ParseError(_describe(exc)) from None


def _describe(exc: ValidationError) -> str:
    parts = []
    for error in exc.errors()[:3]:
        where = ".".join(str(p) for p in error["loc"]) or "the object"
        parts.append(f"'{where}': {error['msg']}")
    return "the JSON object does not fit: " + "; ".join(parts)


@dataclass(frozen=True)
class DraftReader:
    """Reads the generator's reply for a sample of ``kind`` into a :class:`Draft`.

    Rejected, with the reason: no JSON object; a missing or empty question, answer or
    fact; a fact that is not a string; no facts, or more than five (an unanswerable
    sample may have none); a conversational draft without earlier turns or with more
    than two, and any other draft with turns; a question or earlier user turn that
    points at "the passage" / "the context" / 「本文」 — a real user never sees it.
    Strings are trimmed. An unanswerable draft's answer is always the fixed
    :func:`~ragjudge.testsets._prompts.unanswerable_reference`, in the language of
    its question.
    """

    kind: Kind

    def __call__(self, text: str) -> Draft:
        reply: _DraftReply = _validated(_DraftReply, _last_object(text))
        self._check_fields(reply)
        answer = reply.answer
        if self.kind == "unanswerable":
            answer = unanswerable_reference("ja" if contains_cjk(reply.question) else "en")
        turns = [Turn(user=t.user, assistant=t.assistant) for t in reply.turns]
        return Draft(question=reply.question, answer=answer, facts=reply.facts, turns=turns)

    def _check_fields(self, reply: _DraftReply) -> None:
        if not reply.question:
            raise ParseError("'question' is missing or empty")
        if self.kind != "unanswerable" and not reply.answer:
            raise ParseError("'answer' is missing or empty")
        self._check_facts(reply.facts)
        self._check_turns(reply.turns)
        for asked in [reply.question, *(t.user for t in reply.turns)]:
            mention = _SOURCE_MENTIONS.search(asked)
            if mention:
                raise ParseError(
                    f"the question mentions {mention.group()!r}: a user never sees the "
                    "passages, so ask without pointing at them"
                )

    def _check_facts(self, facts: list[str]) -> None:
        if any(not fact for fact in facts):
            raise ParseError("'facts' holds an empty fact")
        if not facts and self.kind != "unanswerable":
            raise ParseError(f"'facts' is missing or empty: give 1 to {MAX_FACTS} facts")
        if len(facts) > MAX_FACTS:
            raise ParseError(f"'facts' holds {len(facts)} facts; give 1 to {MAX_FACTS}")

    def _check_turns(self, turns: list[_TurnReply]) -> None:
        if self.kind != "conversational":
            if turns:
                raise ParseError(f"a {self.kind} sample has no earlier 'turns'; leave them out")
            return
        if not turns:
            raise ParseError("'turns' is missing or empty: give the earlier turns of the dialogue")
        if len(turns) > MAX_TURNS:
            raise ParseError(f"'turns' holds {len(turns)} turns; give 1 to {MAX_TURNS}")
        if any(not t.user or not t.assistant for t in turns):
            raise ParseError("a turn has an empty 'user' or 'assistant'")

    def stand_in(self) -> str:
        """A reply of this kind that parses."""
        return json.dumps(_DRY_RUN_STAND_INS[self.kind], ensure_ascii=False)

    def reply_schema(self) -> dict[str, Any]:
        """The JSON schema of the reply."""
        return _DraftReply.model_json_schema()


def read_draft(kind: Kind) -> DraftReader:
    """The reader of the generator's reply for a sample of ``kind``."""
    return DraftReader(kind)


@dataclass(frozen=True)
class ClosedBookReader:
    """Reads the answer given without any passage: the reply's text, trimmed; an empty
    reply is rejected."""

    def __call__(self, text: str) -> str:
        answer = text.strip()
        if not answer:
            raise ParseError("the answer is empty; answer the question, or say you do not know")
        return answer

    def stand_in(self) -> str:
        """A reply that parses."""
        return "(dry run) I do not know."


read_closed_book = ClosedBookReader()


@dataclass(frozen=True)
class VerdictReader:
    """Reads the checking judge's reply on a sample of ``kind`` into a
    :class:`CheckVerdict`.

    ``answerable`` and ``grounded`` must be JSON booleans (``"yes"`` or ``1`` is
    rejected); so must ``needs_every_passage`` for ``multi`` and ``comparative``,
    ``needs_history`` for ``conversational``, and ``closed_book_correct`` when
    ``closed_book_given`` is True. A check the kind does not have is read as None
    whatever the judge wrote, and so is ``closed_book_correct`` when
    ``closed_book_given`` is False (None: whatever boolean or null the judge gives).
    """

    kind: Kind
    closed_book_given: bool | None = None

    def __call__(self, text: str) -> CheckVerdict:
        reply: _VerdictReply = _validated(_VerdictReply, _last_object(text))
        return CheckVerdict(
            answerable=reply.answerable,
            grounded=reply.grounded,
            closed_book_correct=self._closed_book(reply.closed_book_correct),
            needs_every_passage=self._required(
                "needs_every_passage", reply.needs_every_passage, self._two_passages
            ),
            needs_history=self._required(
                "needs_history", reply.needs_history, self.kind == "conversational"
            ),
            reason=reply.reason.strip(),
        )

    @property
    def _two_passages(self) -> bool:
        return self.kind in ("multi", "comparative")

    def _closed_book(self, value: bool | None) -> bool | None:
        if self.closed_book_given is None:
            return value
        return self._required("closed_book_correct", value, self.closed_book_given)

    def _required(self, name: str, value: bool | None, applies: bool) -> bool | None:
        if not applies:
            return None
        if value is None:
            raise ParseError(
                f"'{name}' is missing or null: a {self.kind} sample needs true or false"
            )
        return value

    def stand_in(self) -> str:
        """A verdict that keeps the sample."""
        return json.dumps(
            {
                "answerable": self.kind != "unanswerable",
                "grounded": True,
                "closed_book_correct": False if self.closed_book_given is not False else None,
                "needs_every_passage": True if self._two_passages else None,
                "needs_history": True if self.kind == "conversational" else None,
                "reason": "(dry run)",
            }
        )

    def reply_schema(self) -> dict[str, Any]:
        """The JSON schema of the reply."""
        return _VerdictReply.model_json_schema()


def read_verdict(kind: Kind, *, closed_book_given: bool | None = None) -> VerdictReader:
    """The reader of the checking judge's reply on a sample of ``kind``;
    ``closed_book_given`` says whether the prompt showed a closed-book answer (then
    its check is required, or ignored when False; None accepts either)."""
    return VerdictReader(kind, closed_book_given)
