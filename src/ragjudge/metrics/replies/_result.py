"""``Feedback: … [RESULT] n``: the absolute-grading reply the answer-accuracy judge's
prompt asks for, also read in the ``… Score: n`` form that the judge outputs quoted in
the answer-accuracy paper take (the paper is cited in ``docs/validation.md``)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from ragjudge.metrics.replies._base import (
    ParseError,
    Reply,
    inside,
    is_echo,
    is_quote,
    quoted_spans,
)

_MARKER = re.compile(r"[\[［]\s*RESULT\s*[\]］]|(?<![^\W\d_])score(?=[\s*_]*[:：=])", re.IGNORECASE)
_FILLER = re.compile(r"^[\s*_:：=]+")
_NUMBER = re.compile(r"([+\-－]?[0-9０-９]+)")
_DENOMINATOR = re.compile(r"\s*(?:/|／|out\s+of)\s*([0-9０-９]+)", re.IGNORECASE)
_DECIMAL = re.compile(r"[.,．，][0-9０-９]")
_GLUED = re.compile(r"[^\W_]|%|％")
_FEEDBACK_LABEL = re.compile(r"^\**\s*feedback\s*\**\s*[:：]\s*\**", re.IGNORECASE)


@dataclass(frozen=True)
class ResultVerdict:
    """A judge's score and the feedback written before it (its ``Feedback:`` label
    removed)."""

    score: int
    feedback: str


@dataclass(frozen=True)
class _Candidate:
    start: int
    score: int | None
    problem: str | None


class ResultScore(Reply[ResultVerdict]):
    """An integer score from ``low`` to ``high`` after a ``[RESULT]`` marker (or a
    ``Score:`` label), with the feedback before it.

    Tolerated: any case and full-width brackets or digits (``[Result] ４``); spaces,
    ``:``/``=`` and markdown emphasis between marker and number (``**[RESULT]** **4**``,
    ``Score: 3``); ``/high`` or ``out of high`` after the number; text after the number
    (``[RESULT] 4.`` or a closing remark); the same score repeated; markers followed by
    no number (a restated format, ``[RESULT] (an integer …)``), which are ignored.

    Bound to the judge's own verdict: a marker inside quotation marks, or on a line that
    repeats the evaluated text verbatim, is the judge quoting the data and is ignored (a
    bare ``[RESULT] n`` line that is also in the data counts only when the reply has no
    other score); two different scores are a :class:`ParseError` (the judge is asked
    again), so text written after the verdict cannot replace it.

    Not a score (:class:`ParseError`): no marker with a number; a decimal (``4.5``), an
    exponent or other glued characters (``5e9``, ``5%``), a score out of another scale
    (``4/10``, ``5 out of 10``), a value outside ``low``–``high``, digits of other
    scripts (read as no number).
    """

    def __init__(self, low: int = 0, high: int = 5) -> None:
        if low > high:
            raise ValueError(f"low {low} is above high {high}")
        self.low = low
        self.high = high

    def stand_in(self) -> str:
        """A middle score, so a dry run never takes the top score's early exit."""
        return f"Feedback: (dry run) [RESULT] {(self.low + self.high + 1) // 2}"

    def parse(self, text: str, *, evaluated: Sequence[str] = ()) -> ResultVerdict:
        """The single score the judge gave and its feedback."""
        candidates = [c for c in self._candidates(text) if not _quoted(text, c.start, evaluated)]
        own = [c for c in candidates if not _echoed(text, c.start, evaluated)]
        # a bare verdict line that is also in the data counts only when nothing else does
        candidates = own or candidates
        problems = [c.problem for c in candidates if c.problem is not None]
        if problems:
            raise ParseError(problems[0])
        scores = [c for c in candidates if c.score is not None]
        if not scores:
            raise ParseError(
                "no score: end the reply with [RESULT] followed by an integer from "
                f"{self.low} to {self.high}"
            )
        distinct = sorted({c.score for c in scores if c.score is not None})
        if len(distinct) > 1:
            shown = " and ".join(str(s) for s in distinct)
            raise ParseError(f"the reply gives different scores ({shown}); give exactly one")
        last = scores[-1]
        assert last.score is not None
        return ResultVerdict(last.score, _feedback(text[: last.start]))

    def _candidates(self, text: str) -> list[_Candidate]:
        found: list[_Candidate] = []
        for marker in _MARKER.finditer(text):
            rest = text[marker.end() :]
            rest = _FILLER.sub("", rest, count=1)
            number = _NUMBER.match(rest)
            if number is None:
                continue  # a restated format, not a verdict
            score = int(number.group(1).replace("－", "-"))
            problem = self._problem(score, rest[number.end() :], rest[: number.end() + 6])
            found.append(_Candidate(marker.start(), None if problem else score, problem))
        return found

    def _problem(self, score: int, after: str, shown: str) -> str | None:
        if _DECIMAL.match(after):
            return f"the score {shown.strip()!r} is not an integer"
        denominator = _DENOMINATOR.match(after)
        if denominator is not None:
            if int(denominator.group(1)) != self.high:
                return f"the score is given out of {int(denominator.group(1))}, not {self.high}"
        elif _GLUED.match(after):
            return f"the score {shown.strip()!r} is not a plain integer"
        if not self.low <= score <= self.high:
            return f"the score {score} is outside the allowed range {self.low}–{self.high}"
        return None


def _line_at(text: str, position: int) -> tuple[str, int]:
    line_start = text.rfind("\n", 0, position) + 1
    line_end = text.find("\n", position)
    return text[line_start : line_end if line_end != -1 else len(text)], line_start


def _quoted(text: str, position: int, evaluated: Sequence[str]) -> bool:
    """Whether the marker at ``position`` is quoted: inside quotation marks on its line,
    or on a (long) line that repeats the evaluated text."""
    line, start = _line_at(text, position)
    return inside(position - start, quoted_spans(line)) or is_quote(line, evaluated)


def _echoed(text: str, position: int, evaluated: Sequence[str]) -> bool:
    """Whether the marker at ``position`` is on a line that is also in the data."""
    return is_echo(_line_at(text, position)[0], evaluated)


def _feedback(before: str) -> str:
    text = before.strip().rstrip("*").strip()
    return _FEEDBACK_LABEL.sub("", text, count=1).strip()
