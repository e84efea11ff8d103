"""Choice replies of model-graded classification (openai-evals style): which of the
allowed choice strings the judge answered, read by the rule of the ``eval_type``."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence

from ragjudge.metrics.replies._base import ParseError, Reply
from ragjudge.metrics.replies._choice_forms import (
    Choice,
    Found,
    choices_of,
    declared_better,
    labelled,
    opening,
    trimmed,
    whole,
)
from ragjudge.metrics.replies._data import DataIndex, data_index
from ragjudge.metrics.replies._scan import is_quotation, reply_lines
from ragjudge.metrics.replies._verdicts import Candidate, agreed, sort_out, too_many
from ragjudge.schema import INVALID_CHOICE

EVAL_TYPES = ("cot_classify", "classify_cot", "classify")

_ANSWER_LABEL = re.compile(r"\W*(?:final\s+)?(?:answer|verdict|choice)\W*[:：]\s*", re.IGNORECASE)


def scan_choice(
    text: str,
    choices: Sequence[str],
    eval_type: str = "cot_classify",
    *,
    evaluated: Sequence[str] = (),
) -> str:
    """Find which of ``choices`` a model-graded classification answered.

    ``eval_type`` says where the answer sits:

    - ``"cot_classify"`` (reasoning, then the answer): a line that gives the choice as
      a verdict — the choice alone (``B``, ``(A)``, ``[[B]]``), after a label or a
      conclusion (``ANSWER: B``, ``So the final answer is D.``, ``答えはBです。``), or
      declared the better one (``Therefore, Output (a) is better.``). A reply with no
      such line may open with the answer (``Yes, the first one …``);
    - ``"classify_cot"`` (answer, then reasoning): the same, and the first line may
      open with the choice set apart from its reason (``D: the years differ``, ``(A)
      The submission …``, ``**Y** because …``);
    - ``"classify"``: the whole reply is one choice (or ``Answer: <choice>``).

    Choices and replies are compared with their punctuation normalised on both sides
    (``(A)``, ``[[A]]`` and ``A``; ``Output (a)``), after NFKC (``Ａ`` is ``A``), a
    closing Japanese copula aside (``答えはBです``); a choice is never read out of a
    longer word (``A`` in ``ANSWER``), and a one-character choice matches in its own
    case only. A line that merely starts with a choice (``Output (b) does not …``) or
    mentions one is reasoning, not a verdict. The choice is returned as given.

    The judge's own verdict only: a ``> `` quotation gives none, a verdict line (or its
    clause) that repeats the ``evaluated`` texts is not a candidate, and the judge's
    verdict lines must all give the same choice. Otherwise :class:`ParseError`, as
    when no choice is found; ``ValueError`` for empty ``choices`` or an unknown
    ``eval_type``.
    """
    names = _checked(choices, eval_type)
    options = choices_of(names)
    data = data_index(evaluated)
    if eval_type == "classify":
        return _whole_reply(text, names, options, data)
    return _reasoned(text, names, options, data, answer_first=eval_type == "classify_cot")


class ChoiceReply(Reply[str]):
    """The choice a judge made among ``choices``, read by the rule of ``eval_type``
    (:func:`scan_choice`).

    A reply that names no choice is a :class:`ParseError` (the kit asks again, then
    records an explicit error) unless ``invalid_is_choice``: then it is read as
    :data:`INVALID_CHOICE` without asking again, as openai-evals does.
    """

    def __init__(
        self,
        choices: Sequence[str],
        eval_type: str = "cot_classify",
        *,
        invalid_is_choice: bool = False,
    ) -> None:
        self.choices = _checked(choices, eval_type)
        self.eval_type = eval_type
        self.invalid_is_choice = invalid_is_choice

    def parse(self, text: str, *, evaluated: Sequence[str] = ()) -> str:
        """The choice the reply gives (or :data:`INVALID_CHOICE`, see the class)."""
        try:
            return scan_choice(text, self.choices, self.eval_type, evaluated=evaluated)
        except ParseError:
            if self.invalid_is_choice:
                return INVALID_CHOICE
            raise

    def stand_in(self) -> str:
        """The first choice where the eval type expects it, after or before a line
        of reasoning."""
        choice = self.choices[0]
        if self.eval_type == "classify":
            return choice
        reasoning = "(dry run) reasoning."
        if self.eval_type == "classify_cot":
            return f"{choice}\n{reasoning}"
        return f"{reasoning}\n{choice}"


def _reasoned(
    text: str, names: list[str], options: list[Choice], data: DataIndex, *, answer_first: bool
) -> str:
    lines = reply_lines(text)
    first = next((n for n, line in enumerate(lines) if line.strip()), -1)
    candidates: list[Candidate[str]] = []
    for number, line in enumerate(lines):
        if not line.strip() or is_quotation(line):
            continue
        core = trimmed(line)
        hits = [hit for hit in (whole(line, core, options) or labelled(core, options),) if hit]
        hits += declared_better(core, options)
        if not hits and answer_first and number == first:
            hits = [hit for hit in (opening(line, options),) if hit]
        for hit in hits:
            candidates.append(Candidate(hit.choice, number, 0, (line, hit.clause)))
            too_many(candidates)
    found = sort_out(candidates, data)
    if not found.own and not answer_first and first >= 0:
        opened = _opening_of(lines[first], options, data)
        if opened is not None:
            return opened.choice
    verdict = agreed(
        found,
        describe=repr,
        missing=_no_choice_message(text, names, "classify_cot" if answer_first else "cot"),
        instead="'Final answer: <your choice>' on a line of its own",
    )
    assert verdict.value is not None
    return verdict.value


def _opening_of(line: str, options: list[Choice], data: DataIndex) -> Found | None:
    """The choice a reply opens with, unless the line is a quotation or repeats the data."""
    if is_quotation(line):
        return None
    hit = opening(line, options)
    if hit is None or (data and data.reproduces(line)):
        return None
    return hit


def _whole_reply(text: str, names: list[str], options: list[Choice], data: DataIndex) -> str:
    body = text.strip()
    labelled_answer = _ANSWER_LABEL.match(body)
    shown = body[labelled_answer.end() :] if labelled_answer and "\n" not in body else body
    hit = whole(shown, trimmed(shown), options)
    if hit is None:
        raise ParseError(_no_choice_message(text, names, "classify"))
    if data and data.reproduces(body):
        raise ParseError(
            f"the reply {body[:40]!r} repeats the evaluated text word for word, so it cannot "
            f"be told from a quotation of it; reply 'Answer: {hit.choice}' instead"
        )
    return hit.choice


def _checked(choices: Sequence[str], eval_type: str) -> list[str]:
    options = list(choices)
    if not options or any(not _normalise(choice) for choice in options):
        raise ValueError("choices must be a non-empty list of non-empty strings")
    if eval_type not in EVAL_TYPES:
        raise ValueError(f"eval_type must be one of {', '.join(EVAL_TYPES)}, not {eval_type!r}")
    return options


def _normalise(text: str) -> str:
    return unicodedata.normalize("NFKC", text).strip()


def _no_choice_message(text: str, names: list[str], where: str) -> str:
    shown = " ".join(text.split()[-16:])
    shown = shown if len(shown) <= 80 else "…" + shown[-80:]
    listed = ", ".join(f'"{name}"' for name in names)
    said = {
        "cot": "end your reply with a line holding only one of them",
        "classify_cot": "begin your reply with a line holding only one of them",
        "classify": "reply with only one of them",
    }[where]
    return f"none of the choices {listed} found in the reply {shown!r}; {said}"
