"""Yes/no verdicts with a rationale, read from what real judges write: a final
``Answer: yes`` line, a reply that opens with ``Yes, …`` or ``No. …``, markdown
emphasis, Japanese ``はい``/``いいえ``, or a JSON object ``{"result": "yes", …}``."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ragjudge.metrics.replies._base import ParseError, Reply, is_echo, is_quote
from ragjudge.metrics.replies._json import parse_json_object

_WORDS = {"yes": True, "no": False, "はい": True, "いいえ": False}
_JSON_VERDICT_KEYS = ("result", "answer", "verdict", "rating", "judgement", "judgment", "label")
_JSON_RATIONALE_KEYS = ("rationale", "reason", "reasoning", "explanation", "justification")
_LABELS = r"(?:final\s+)?(?:answer|result|verdict|rating|judge?ment|decision|回答|判定|結果)"
_EDGE = " \t*_`#>-\"'「」“”.。!！"
_WORD = r"\[{0,2}\s*(yes|no|はい|いいえ)\s*\]{0,2}"
_CLAUSE = r"\s*[,.:;、。，．!！—–-]\s*(\S.*)"
_VERDICT_LINE = re.compile(rf"^(?:{_LABELS}\s*[:：]\s*)?{_WORD}$", re.IGNORECASE)
_LABELLED_CLAUSE = re.compile(rf"^{_LABELS}\s*[:：]\s*{_WORD}{_CLAUSE}$", re.IGNORECASE)
_OPENING = re.compile(r"^(yes|no|はい|いいえ)\s*[,.:;、。，．!！—–-]\s*\S", re.IGNORECASE)
_EMPHASIS = re.compile(r"[*_`]+")
_RATIONALE_LABEL = re.compile(r"^\**\s*(?:rationale|reason|理由)\s*\**\s*[:：]\s*", re.IGNORECASE)


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

    Read, in order: a JSON object whose ``result`` (or ``answer``, ``verdict``,
    ``rating``, ``label`` …) is ``yes``/``no`` (or a JSON boolean), with the rationale
    from ``rationale``/``reason``/``explanation``; else the last line that is only the
    verdict (``yes``, ``Yes.``, ``**No**``, ``[[Yes]]``, ``Answer: yes``, ``Result: no``,
    ``判定：はい``) or a labelled verdict with its reason after it (``Answer: No - it
    talks about …``), the rationale being the text before it (else the reason after it);
    else the first line when it opens with the verdict (``Yes, the response …``). Case
    does not matter.

    Lines that repeat the evaluated text verbatim are the judge quoting it and are
    skipped (a bare verdict line that is also in the data counts only when the reply
    holds no other verdict). :class:`ParseError` when none of the forms holds, or when the reply gives
    both verdicts (so text after the verdict cannot replace it).
    """

    def stand_in(self) -> str:
        """A rationale line and a final ``Answer: yes``."""
        return "Rationale: (dry run)\nAnswer: yes"

    def parse(self, text: str, *, evaluated: Sequence[str] = ()) -> YesNoVerdict:
        """The verdict and its rationale."""
        lines = [line for line in text.strip().splitlines() if line.strip()]
        if not lines:
            raise ParseError("empty reply; end it with a line 'Answer: yes' or 'Answer: no'")
        own = [line for line in lines if not is_quote(line, evaluated)]
        if not own:
            raise ParseError("the reply only repeats the evaluated text; give your own verdict")
        if any("{" in line for line in own):
            found = _json_verdict("\n".join(own))
            if found is not None:
                return found
        verdicts = [(i, v) for i, line in enumerate(own) if (v := _verdict_of(line)) is not None]
        unechoed = [(i, v) for i, v in verdicts if not is_echo(own[i], evaluated)]
        # a bare verdict line that is also in the data counts only when nothing else does
        verdicts = unechoed or verdicts
        opening = _opening_verdict(own[0])
        given = {v for _, v in verdicts} | ({opening} if opening is not None else set())
        if len(given) > 1:
            raise ParseError("the reply gives both yes and no; give exactly one verdict")
        if verdicts:
            index, verdict = verdicts[-1]
            after = [c for c in (_clause(own[index]),) if c] + own[index + 1 :]
            return YesNoVerdict(verdict, _rationale(own[:index]) or _rationale(after))
        if opening is not None:
            return YesNoVerdict(opening, _rationale([_after_opening(own[0]), *own[1:]]))
        raise ParseError(
            "no yes/no verdict; end the reply with a line 'Answer: yes' or 'Answer: no'"
        )


def _verdict_line(line: str) -> bool | None:
    found = _VERDICT_LINE.match(_EMPHASIS.sub("", line).strip(_EDGE).strip())
    return None if found is None else _WORDS[found.group(1).lower()]


def _verdict_of(line: str) -> bool | None:
    """The verdict of a line that is only the verdict, or a labelled verdict followed by
    its reason (``Answer: Yes, because …``)."""
    whole = _verdict_line(line)
    if whole is not None:
        return whole
    found = _LABELLED_CLAUSE.match(_EMPHASIS.sub("", line).strip(" \t#>").strip())
    return None if found is None else _WORDS[found.group(1).lower()]


def _clause(line: str) -> str:
    """The reason written after a labelled verdict on its line (empty when none)."""
    found = _LABELLED_CLAUSE.match(_EMPHASIS.sub("", line).strip(" \t#>").strip())
    return "" if found is None else found.group(2).strip()


def _opening_verdict(line: str) -> bool | None:
    whole = _verdict_line(line)
    if whole is not None:
        return whole
    found = _OPENING.match(_EMPHASIS.sub("", line).strip(" \t#>"))
    return None if found is None else _WORDS[found.group(1).lower()]


def _after_opening(line: str) -> str:
    stripped = line.strip(" \t*_`#>")
    found = _OPENING.match(stripped)
    return stripped if found is None else stripped[found.end() - 1 :]


def _rationale(lines: Sequence[str]) -> str:
    text = "\n".join(lines).strip()
    return _RATIONALE_LABEL.sub("", text, count=1).strip()


def _json_verdict(text: str) -> YesNoVerdict | None:
    """The verdict of a JSON reply; None when the reply holds no JSON object."""
    try:
        found = parse_json_object(text)
    except ParseError:
        return None
    lowered = {str(k).lower(): v for k, v in found.items()}
    value = next((lowered[k] for k in _JSON_VERDICT_KEYS if k in lowered), None)
    verdict = _json_word(value)
    if verdict is None:
        raise ParseError(
            'the JSON reply has no yes/no verdict; use {"rationale": "...", "result": "yes"}'
        )
    rationale = next((lowered[k] for k in _JSON_RATIONALE_KEYS if k in lowered), "")
    return YesNoVerdict(verdict, str(rationale).strip())


def _json_word(value: Any) -> bool | None:
    if isinstance(value, bool):
        return value
    if isinstance(value, str):
        return _WORDS.get(value.strip(_EDGE).strip().lower())
    return None
