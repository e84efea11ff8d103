"""The prompts that check a generated candidate: the closed-book question (the sample's
question asked with no passage at all, so a question general knowledge answers can be
dropped) and the verification (the judge reads the passages and the whole draft and
says whether they answer it, support its reference, and need every passage or the
dialogue's earlier turns).

Everything the generator or a model wrote — the draft, the closed-book answer — and
every chunk is model-written or user data: each sits inside its own delimited block.
"""

from __future__ import annotations

from collections.abc import Sequence

from ragjudge.knowledge import Chunk
from ragjudge.metrics._prompts import DATA_NOTICE, delimit, delimit_contexts, delimit_each
from ragjudge.models import ChatMessage
from ragjudge.testsets._prompts import unanswerable_reference
from ragjudge.testsets._types import Draft, Kind, Language

__all__ = [
    "CLOSED_BOOK_PURPOSE",
    "VERIFY_PURPOSE",
    "closed_book_messages",
    "verify_messages",
]

CLOSED_BOOK_PURPOSE = "generate (closed-book answer)"
VERIFY_PURPOSE = "generate (check a sample)"

_LANGUAGE_NAMES = {"en": "English", "ja": "Japanese"}

_CLOSED_BOOK = (
    "Answer the user's question below from your own knowledge: no documents are "
    "available. Answer in at most three sentences, in {language}. If you do not know "
    "the answer, say so in one sentence instead of guessing."
)

_VERIFY_INTRO = (
    "You check one generated test sample for an assistant that answers questions from "
    "a knowledge base: a question, its reference answer and the facts a correct answer "
    "states, written from the passages below."
)

_UNANSWERABLE_PASSAGES = (
    "These passages are the ones of the knowledge base closest to the question. The "
    "sample is meant to be a question the knowledge base does NOT answer; its "
    "reference answer says so."
)

_BOOLEANS = (
    "Use JSON true and false (not yes/no, not strings), and null only where it says so. "
    "Give the reason in one or two sentences."
)


def closed_book_messages(draft: Draft, language: Language) -> list[ChatMessage]:
    """The one user message asking the (last) question of ``draft`` with no passage —
    with the dialogue's earlier turns for a conversational sample. The reply is plain
    text."""
    sections = [
        f"{_CLOSED_BOOK.format(language=_LANGUAGE_NAMES[language])}\n{DATA_NOTICE}",
        _earlier_turns(draft),
        f"# The question\n{delimit('QUESTION', draft.question)}",
    ]
    return [{"role": "user", "content": "\n\n".join(s for s in sections if s)}]


def verify_messages(
    kind: Kind, passages: Sequence[Chunk], draft: Draft, closed_book: str | None
) -> list[ChatMessage]:
    """The one user message asking the judge to check ``draft`` against ``passages``
    (for ``unanswerable``: the knowledge base's chunks closest to its question) and,
    when given, the ``closed_book`` answer; the reply is one JSON object read by
    :func:`~ragjudge.testsets._replies.read_verdict`."""
    sections = [
        f"{_VERIFY_INTRO}\n{DATA_NOTICE}",
        _passages(kind, passages),
        _sample(draft),
        _closed_book_section(closed_book),
        _checks(kind, has_closed_book=closed_book is not None),
    ]
    return [{"role": "user", "content": "\n\n".join(s for s in sections if s)}]


def _passages(kind: Kind, passages: Sequence[Chunk]) -> str:
    blocks = delimit_contexts(passages, label="PASSAGE") or "(no passage)"
    note = f"{_UNANSWERABLE_PASSAGES}\n" if kind == "unanswerable" else ""
    return f"# The passages\n{note}{blocks}"


def _earlier_turns(draft: Draft, heading: str = "# The conversation so far") -> str:
    if not draft.turns:
        return ""
    blocks: list[str] = []
    for number, turn in enumerate(draft.turns, 1):
        blocks.append(delimit(f"EARLIER TURN {number} USER", turn.user))
        blocks.append(delimit(f"EARLIER TURN {number} ASSISTANT", turn.assistant))
    return f"{heading}\n" + "\n".join(blocks)


def _sample(draft: Draft) -> str:
    parts = [
        "# The sample",
        _earlier_turns(draft, "The conversation before the question:"),
        delimit("QUESTION", draft.question),
        delimit("REFERENCE ANSWER", draft.answer),
        delimit_each("FACT", draft.facts) or "(no facts listed)",
    ]
    return "\n".join(p for p in parts if p)


def _closed_book_section(closed_book: str | None) -> str:
    if closed_book is None:
        return ""
    return (
        "# An answer given without any passage\n"
        "Another model answered the question from its own knowledge, without the passages:\n"
        f"{delimit('ANSWER WITHOUT PASSAGES', closed_book)}"
    )


def _checks(kind: Kind, *, has_closed_book: bool) -> str:
    lines = ["# What to check", "Reply with ONE JSON object with these keys:"]
    lines.append(_answerable_line(kind))
    lines.append(_grounded_line(kind))
    lines.append(
        "- closed_book_correct: true when the answer given without any passage states the "
        "key facts of the reference answer, else false."
        if has_closed_book
        else "- closed_book_correct: null (no such answer was given)."
    )
    lines.append(
        "- needs_every_passage: true when no single passage answers the question alone "
        "and each passage is needed, else false."
        if kind in ("multi", "comparative")
        else "- needs_every_passage: null."
    )
    lines.append(
        "- needs_history: true when the last question cannot be understood without the "
        "conversation before it, else false."
        if kind == "conversational"
        else "- needs_history: null."
    )
    lines.append("- reason: why, briefly.")
    lines.append(_BOOLEANS)
    lines.append(f"For example:\n{_example(kind, has_closed_book=has_closed_book)}")
    return "\n".join(lines)


def _answerable_line(kind: Kind) -> str:
    if kind == "unanswerable":
        return (
            "- answerable: true when the passages do answer the question after all, "
            "false when they do not."
        )
    if kind == "conversational":
        return (
            "- answerable: true when the passages fully answer the last question (read "
            "with the conversation before it), else false."
        )
    return "- answerable: true when the passages fully answer the question, else false."


def _grounded_line(kind: Kind) -> str:
    if kind == "unanswerable":
        reference = unanswerable_reference("en")
        return f'- grounded: true (the reference answer is "{reference}" or its translation).'
    return (
        "- grounded: true when every claim of the reference answer and of the facts is "
        "supported by the passages, false when any says more than they do."
    )


def _example(kind: Kind, *, has_closed_book: bool) -> str:
    answerable = "false" if kind == "unanswerable" else "true"
    closed = "false" if has_closed_book else "null"
    every = "true" if kind in ("multi", "comparative") else "null"
    history = "true" if kind == "conversational" else "null"
    return (
        f'{{"answerable": {answerable}, "grounded": true, "closed_book_correct": {closed}, '
        f'"needs_every_passage": {every}, "needs_history": {history}, "reason": "..."}}'
    )
