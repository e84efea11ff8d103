"""``Feedback: … [RESULT] n``: the absolute-grading reply the answer-accuracy judge's
prompt asks for, also read in the ``… Score: n`` form that the judge outputs quoted in
the answer-accuracy paper take (the paper is cited in ``docs/validation.md``) and in the
other unambiguous forms real judges write."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from ragjudge.metrics.replies._base import Reply
from ragjudge.metrics.replies._data import data_index
from ragjudge.metrics.replies._scan import is_quotation, reply_lines
from ragjudge.metrics.replies._verdicts import Candidate, agreed, sort_out, too_many

_E = r"[\s*_`]*"  # spaces and markdown emphasis
_COLON = r"[:：=＝]"
_NUM = r"[+\-－]?[0-9０-９]{1,9}"  # more digits are glued: not a plain integer
_OPEN = r"[(（\[［]"
_CLOSE = r"[)）\]］]"
_QUALIFIER = r"(?:(?:final|overall|total)\s+)?"
_NUMBER = rf"(?P<open>{_OPEN})?{_E}(?P<n>{_NUM})(?(open){_E}{_CLOSE})"
_RESULT = re.compile(  # [RESULT] 4, [RESULT]: (4), [Result] Result: 4, [RESULT] Score: 4
    rf"[\[［]\s*result\s*[\]］]{_E}{_COLON}?{_E}(?:(?:result|score){_E}{_COLON}{_E})?{_NUMBER}",
    re.IGNORECASE,
)
_LABELLED = re.compile(rf"{_QUALIFIER}score{_E}{_COLON}{_E}{_NUMBER}", re.IGNORECASE)
_BRACKETED = re.compile(  # [Score 4], (Score: 5), [Score 4/5]
    rf"{_OPEN}{_E}{_QUALIFIER}score{_E}{_COLON}?{_E}(?P<n>{_NUM})"
    rf"(?P<inside>\s*(?:/|／|out\s+of)\s*[0-9０-９]+)?{_E}{_CLOSE}",
    re.IGNORECASE,
)
_BARE = re.compile(
    rf"[\s*_`#]*(?P<n>{_NUM})(?P<inside>\s*(?:/|／)\s*[0-9０-９]+)?[\s*_`]*[.。]?[\s*_`]*"
)
_DENOMINATOR = re.compile(r"\s*(?:/|／|out\s+of)\s*([0-9０-９]{1,9})", re.IGNORECASE)
_DECIMAL = re.compile(r"[.,．，][0-9０-９]")
_GLUED = re.compile(r"[^\W_]|%|％")
_REMARK = re.compile(r"\s*[(（][^()（）\n]{0,80}[)）]")
_CLOSING = re.compile(r"[\s*_`]*[.。!！]?[\s*_`]*")
_HINT = re.compile(r"result|score", re.IGNORECASE)
_FEEDBACK_WORD = re.compile(r"feedback[\s*_]*[:：]", re.IGNORECASE)
_FEEDBACK_LABEL = re.compile(r"^[\s*_#]*feedback[\s*_]*[:：][\s*_]*", re.IGNORECASE)
_SENTENCE_END = ".!?。！？…"
_CLOSERS = "\"'”’)）]」』"
_WINDOW = 200
"""A verdict clause ends its line and is short: only a line's last characters are read."""
_BARE_LIMIT = 40


@dataclass(frozen=True)
class ResultVerdict:
    """A judge's score and the feedback written before it (its ``Feedback:`` label
    removed)."""

    score: int
    feedback: str


@dataclass(frozen=True)
class _Clause:
    start: int
    score: int | None
    problem: str | None
    mention: bool = False


class ResultScore(Reply[ResultVerdict]):
    """An integer score from ``low`` to ``high`` that ends a line of the reply, with the
    feedback before it.

    Forms: ``[RESULT] n`` (any case, full-width brackets or digits, ``:``/``=`` and
    markdown emphasis between marker and number: ``**[RESULT]** **4**``), ``[RESULT]
    (5)``, ``[Result] Result: 4``, ``Score: 3`` (``Final score:``, ``Overall score:``),
    ``(Score 5)``, ``[Score 4]``; ``/high`` or ``out of high`` after the number, a
    closing period, a short remark in parentheses (``[RESULT] 2 (partially
    correct)``). With ``bare`` (for a prompt that asks for the score alone) a last line
    that is only an integer counts too.

    Where: the verdict ends its line and opens its clause — the line starts with it, or
    it follows the end of a sentence (``… cites two sources. [RESULT] 4``); on the
    judge's ``Feedback:`` clause ``[RESULT] n`` may also close a sentence (``Feedback:
    good [RESULT] 4``, the prompt's own form). A marker inside a sentence, inside
    quotation marks or in a ``> `` quotation is not a verdict, nor is a restated
    format (``[RESULT] (an integer …)``).

    Bound to the judge's own verdict: a verdict whose line or clause repeats the
    evaluated text is not a candidate; the judge's verdicts must all give the same
    score. Otherwise :class:`ParseError` (the judge is asked again), so neither a
    quoted nor a later score can replace the judge's own.

    Not a score (:class:`ParseError`): a decimal (``4.5``), an exponent or other glued
    characters (``5e9``, ``5%``), a score out of another scale (``4/10``, ``5 out of
    10``), a value outside ``low``–``high``, digits of other scripts.
    """

    def __init__(self, low: int = 0, high: int = 5, *, bare: bool = False) -> None:
        if low > high:
            raise ValueError(f"low {low} is above high {high}")
        self.low = low
        self.high = high
        self.bare = bare

    def stand_in(self) -> str:
        """A middle score, so a dry run never takes the top score's early exit."""
        return f"Feedback: (dry run) [RESULT] {(self.low + self.high + 1) // 2}"

    def parse(self, text: str, *, evaluated: Sequence[str] = ()) -> ResultVerdict:
        """The single score the judge gave and its feedback."""
        lines = reply_lines(text)
        last = _last_filled(lines)
        candidates: list[Candidate[int]] = []
        for number, line in enumerate(lines):
            if is_quotation(line):
                continue
            clause = self._clause(line, last_line=number == last)
            if clause is not None:
                units = (line, line[clause.start :])
                candidates.append(
                    Candidate(
                        clause.score, number, clause.start, units, clause.problem, clause.mention
                    )
                )
                too_many(candidates)
        found = sort_out(candidates, data_index(evaluated))
        verdict = agreed(
            found,
            describe=str,
            missing=(
                "no score: end the reply with [RESULT] followed by an integer from "
                f"{self.low} to {self.high}"
            ),
            instead=f"'Final score: n' on a line of its own, n from {self.low} to {self.high}",
        )
        assert verdict.value is not None
        before = "\n".join([*lines[: verdict.line], lines[verdict.line][: verdict.start]])
        return ResultVerdict(verdict.value, _feedback(before))

    def _clause(self, line: str, *, last_line: bool) -> _Clause | None:
        """The verdict clause that ends ``line``, if it has one."""
        offset = max(0, len(line) - _WINDOW)
        window = line[offset:]
        for form in (_RESULT, _LABELLED, _BRACKETED) if _HINT.search(window) else ():
            for match in reversed(list(form.finditer(window))):
                start = offset + match.start()
                before = line[:start]
                placed = _opens_clause(before) or (form is _RESULT and _in_feedback(before))
                clause = self._read(match, window[match.end() :])
                if clause is not None:
                    return _Clause(start, clause.score, clause.problem, mention=not placed)
        if self.bare and last_line and len(line) <= _BARE_LIMIT:
            bare = _BARE.fullmatch(line)
            if bare is not None:
                return self._read(bare, "")
        return None

    def _read(self, match: re.Match[str], rest: str) -> _Clause | None:
        """The score of a verdict form and what follows it on the line; None when
        words follow (a sentence that goes on is not a verdict)."""
        score = int(match.group("n").replace("－", "-"))
        inside = match.groupdict().get("inside")
        problem = self._scale(inside) if inside else None
        if problem is None and _DECIMAL.match(rest):
            problem = f"the score {match.group('n')}{rest[:2]!s} is not an integer"
        elif problem is None and not inside:
            denominator = _DENOMINATOR.match(rest)
            if denominator is not None:
                problem = self._scale(denominator.group())
                rest = rest[denominator.end() :]
            elif _GLUED.match(rest):
                problem = f"the score {match.group('n')}{rest[:3]!r} is not a plain integer"
        if problem is None:
            remark = _REMARK.match(rest)
            rest = rest[remark.end() :] if remark else rest
            if not _CLOSING.fullmatch(rest):
                return None
            if not self.low <= score <= self.high:
                problem = f"the score {score} is outside the allowed range {self.low}–{self.high}"
        return _Clause(match.start(), None if problem else score, problem)

    def _scale(self, denominator: str) -> str | None:
        found = _DENOMINATOR.match(denominator)
        out_of = int(found.group(1)) if found else self.high
        return (
            None if out_of == self.high else f"the score is given out of {out_of}, not {self.high}"
        )


def _last_filled(lines: Sequence[str]) -> int:
    for number in range(len(lines) - 1, -1, -1):
        if lines[number].strip():
            return number
    return -1


def _opens_clause(before: str) -> bool:
    """Whether a verdict after ``before`` (the start of its line) opens a clause: it
    starts the line, or follows the end of a sentence."""
    stripped = before.rstrip(" \t*_`")
    if not stripped.lstrip(" \t*_`#-•"):
        return True
    last = stripped[-1]
    if last in _CLOSERS and len(stripped) > 1:
        last = stripped[-2]
    return last in _SENTENCE_END


def _in_feedback(before: str) -> bool:
    """Whether ``before`` holds the judge's ``Feedback:`` clause, which the marker then
    closes (the prompt's own form, ``Feedback: (feedback) [RESULT] n``)."""
    at = before.lower().rfind("feedback")
    return at >= 0 and _FEEDBACK_WORD.match(before, at) is not None and _opens_clause(before[:at])


def _feedback(before: str) -> str:
    text = before.strip().rstrip("*").strip()
    return _FEEDBACK_LABEL.sub("", text, count=1).strip()
