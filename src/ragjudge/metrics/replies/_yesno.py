"""Yes/no verdicts with a rationale, read from what real judges write: a line that holds
the verdict (``Answer: yes``, ``**No**``, ``判定：はい``), a labelled verdict with its
reason (``Answer: No - it talks about …``), a reply that opens with ``Yes, …`` or
``No. …``, or the judge's own JSON document ``{"result": "yes", …}``."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ragjudge.metrics.replies._base import ParseError, Reply
from ragjudge.metrics.replies._data import DataIndex, data_index
from ragjudge.metrics.replies._json import own_documents
from ragjudge.metrics.replies._scan import is_quotation, reply_lines
from ragjudge.metrics.replies._verdicts import Candidate, Sorted, agreed, sort_out, too_many

_WORDS = {"yes": True, "no": False, "はい": True, "いいえ": False}
_JSON_VERDICT_KEYS = ("result", "answer", "verdict", "rating", "judgement", "judgment", "label")
_JSON_RATIONALE_KEYS = ("rationale", "reason", "reasoning", "explanation", "justification")
_LABELS = r"(?:final\s+)?(?:answer|result|verdict|rating|judge?ment|decision|回答|判定|結果)"
_EDGE = " \t*_`#>-\"'「」“”.。!！"
_WORD = r"\[{0,2}\s*(yes|no|はい|いいえ)\s*\]{0,2}"
_VERDICT_LINE = re.compile(rf"(?:{_LABELS}\s*[:：]\s*)?{_WORD}", re.IGNORECASE)
_LABELLED_CLAUSE = re.compile(
    rf"(?P<verdict>{_LABELS}\s*[:：]\s*{_WORD})\s*[,.:;、。，．!！—–-]\s*(?P<reason>\S.*)",
    re.IGNORECASE,
)
_OPENING = re.compile(r"(yes|no|はい|いいえ)\s*[,.:;、。，．!！—–-]\s*\S", re.IGNORECASE)
_EMPHASIS = re.compile(r"[*_`]+")
_RATIONALE_LABEL = re.compile(r"^\**\s*(?:rationale|reason|理由)\s*\**\s*[:：]\s*", re.IGNORECASE)
_VERDICT_LINE_LIMIT = 80


@dataclass(frozen=True)
class YesNoVerdict:
    """A yes/no verdict and the judge's rationale for it."""

    yes: bool
    rationale: str

    @property
    def label(self) -> str:
        """``yes`` or ``no``."""
        return "yes" if self.yes else "no"


class YesNo(Reply[YesNoVerdict]):
    """A yes/no verdict.

    Its places: a line that is only the verdict (``yes``, ``Yes.``, ``**No**``,
    ``[[Yes]]``, ``Answer: yes``, ``Result: no``, ``判定：はい``); a line that opens with
    a labelled verdict and gives the reason after it (``Answer: No - it talks about
    …``); the judge's own JSON document whose ``result`` (or ``answer``, ``verdict``,
    ``rating``, ``label`` …) is ``yes``/``no`` or a JSON boolean, with the rationale
    from ``rationale``/``reason``/``explanation``. When the reply has none of these,
    a first line that opens with the verdict (``Yes, the response …``). Case does not
    matter. The rationale is the text before the verdict line (else the reason after
    it).

    Bound to the judge's own verdict: a verdict mentioned inside a sentence, inside a
    JSON object written in a sentence or in a ``> `` quotation is no verdict; a verdict
    line (or JSON object) that repeats the evaluated text is not a candidate; the
    judge's verdicts must agree. Otherwise :class:`ParseError`: the judge is asked
    again, so neither quoted text nor text after the verdict can replace it.
    """

    def stand_in(self) -> str:
        """A rationale line and a final ``Answer: yes``."""
        return "Rationale: (dry run)\nAnswer: yes"

    def parse(self, text: str, *, evaluated: Sequence[str] = ()) -> YesNoVerdict:
        """The verdict and its rationale."""
        if not text.strip():
            raise ParseError("empty reply; end it with a line 'Answer: yes' or 'Answer: no'")
        lines = reply_lines(text)
        candidates = _line_candidates(lines)
        data = data_index(evaluated)
        found = _merge(sort_out(candidates, data), _json_candidates(text, data))
        verdict = agreed(
            found,
            describe=lambda yes: "yes" if yes else "no",
            missing="no yes/no verdict; end the reply with a line 'Answer: yes' or 'Answer: no'",
            instead="a last line 'Verdict: yes' or 'Verdict: no'",
        )
        assert verdict.value is not None
        if verdict.line < 0:  # a JSON document: its rationale is one of its fields
            return YesNoVerdict(verdict.value, verdict.units[0] if verdict.units else "")
        line = lines[verdict.line]
        if verdict.start < 0:  # the reply opened with it: the rationale follows
            return YesNoVerdict(
                verdict.value, _rationale([_after_opening(line), *lines[verdict.line + 1 :]])
            )
        before = _rationale(lines[: verdict.line])
        after = [_reason(line), *lines[verdict.line + 1 :]]
        return YesNoVerdict(verdict.value, before or _rationale(after))


def _line_candidates(lines: Sequence[str]) -> list[Candidate[bool]]:
    found: list[Candidate[bool]] = []
    first = next((n for n, line in enumerate(lines) if line.strip()), -1)
    for number, line in enumerate(lines):
        if not line.strip() or is_quotation(line):
            continue
        plain = _EMPHASIS.sub("", line).strip()
        whole = _verdict_line(plain)
        if whole is not None:
            found.append(Candidate(whole, number, 0, (line,)))
            too_many(found)
            continue
        labelled = _LABELLED_CLAUSE.fullmatch(plain.strip(" \t#"))
        if labelled is not None:
            verdict = _WORDS[labelled.group(2).lower()]
            found.append(Candidate(verdict, number, 0, (line, labelled.group("verdict"))))
        elif number == first:
            opening = _OPENING.match(plain.strip(" \t#"))
            if opening is not None:
                word = opening.group(1)
                found.append(Candidate(_WORDS[word.lower()], number, -1, (line, word)))
    return found


def _json_candidates(text: str, data: DataIndex) -> Sorted[bool]:
    """The judge's JSON documents that carry a verdict (as candidates whose only unit is
    the rationale), and those that repeat the data."""
    if "{" not in text:
        return Sorted([], [])
    try:
        documents = own_documents(text)
    except ParseError:
        return Sorted([], [])
    whole = len(documents) == 1 and text.strip().startswith("{") and text.strip().endswith("}")
    own: list[Candidate[bool]] = []
    reproduced: list[Candidate[bool]] = []
    for document in documents:
        verdict, rationale = _json_verdict(document, alone=whole)
        if verdict is None:
            continue
        candidate = Candidate(verdict, -1, 0, (rationale,))
        (reproduced if data.reproduces_object(document) else own).append(candidate)
    return Sorted(own, reproduced)


def _merge(lines: Sorted[bool], documents: Sorted[bool]) -> Sorted[bool]:
    return Sorted([*lines.own, *documents.own], [*lines.reproduced, *documents.reproduced])


def _json_verdict(document: dict[str, Any], *, alone: bool) -> tuple[bool | None, str]:
    """The verdict and rationale of a JSON document. A document that is the whole reply
    must hold a verdict; one beside prose may be something else the judge wrote."""
    lowered = {str(k).lower(): v for k, v in document.items()}
    value = next((lowered[k] for k in _JSON_VERDICT_KEYS if k in lowered), None)
    verdict = _json_word(value)
    if verdict is None and alone:
        raise ParseError(
            'the JSON reply has no yes/no verdict; use {"rationale": "...", "result": "yes"}'
        )
    rationale = next((lowered[k] for k in _JSON_RATIONALE_KEYS if k in lowered), "")
    return verdict, str(rationale).strip()


def _json_word(value: Any) -> bool | None:
    if isinstance(value, bool):
        return value
    if isinstance(value, str):
        return _WORDS.get(value.strip(_EDGE).strip().lower())
    return None


def _verdict_line(plain: str) -> bool | None:
    if len(plain) > _VERDICT_LINE_LIMIT:
        return None
    found = _VERDICT_LINE.fullmatch(plain.strip(_EDGE).strip())
    return None if found is None else _WORDS[found.group(1).lower()]


def _after_opening(line: str) -> str:
    plain = _EMPHASIS.sub("", line).strip(" \t#")
    found = _OPENING.match(plain)
    return plain if found is None else plain[found.end() - 1 :]


def _reason(line: str) -> str:
    """The reason written after a labelled verdict on its line (empty when none)."""
    found = _LABELLED_CLAUSE.fullmatch(_EMPHASIS.sub("", line).strip(" \t#"))
    return "" if found is None else found.group("reason").strip()


def _rationale(lines: Sequence[str]) -> str:
    text = "\n".join(line for line in lines if line.strip()).strip()
    return _RATIONALE_LABEL.sub("", text, count=1).strip()
