"""A custom judge's scale: what the judge may answer and the score each answer gives.

Three forms, as a config writes them: a range of whole numbers (``1-5``, ``"1–10"``,
``[1, 10]``), ``yes/no`` (yes 1, no 0), or labels with their scores (``{excellent: 1.0,
ok: 0.5, poor: 0}``). Each form reads the reply with the kit's reader of that form.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from ragjudge.metrics.replies import ChoiceReply, ResultScore, YesNo
from ragjudge.metrics.replies._base import Reply

__all__ = ["Scale", "ScaleSpec", "parse_scale"]

ScaleSpec = str | list[int] | dict[str, float]
"""How a config writes a scale."""

_RANGE = re.compile(r"^\s*(-?\d{1,4})\s*(?:-|–|—|to|\.\.)\s*(-?\d{1,4})\s*$")
_YES_NO = re.compile(r"^\s*yes\s*[/|]\s*no\s*$", re.IGNORECASE)
MAX_RANGE_VALUES = 101
"""A range has at most this many values (0–100)."""


@dataclass(frozen=True)
class Scale:
    """The answers a judge may give, each with its score (``values``: the answer as the
    judge writes it → the stored value)."""

    kind: Literal["range", "yes_no", "labels"]
    values: Mapping[str, float]

    @property
    def low(self) -> float:
        """The lowest score."""
        return min(self.values.values())

    @property
    def high(self) -> float:
        """The highest score."""
        return max(self.values.values())

    @property
    def answers(self) -> list[str]:
        """The answers, as the prompt lists them."""
        return list(self.values)

    def reader(self) -> Reply[Any]:
        """The kit's reader of this scale's verdict form."""
        if self.kind == "range":
            return ResultScore(int(self.low), int(self.high))
        if self.kind == "yes_no":
            return YesNo()
        return ChoiceReply(self.answers, "cot_classify")

    def answer_of(self, verdict: object) -> str:
        """The answer a verdict of an example (as YAML reads it: ``yes`` is true, ``4``
        a number) stands for; ``ValueError`` when the scale has no such answer."""
        if isinstance(verdict, bool):
            text = "yes" if verdict else "no"
        elif isinstance(verdict, float) and verdict.is_integer():
            text = str(int(verdict))
        else:
            text = str(verdict).strip()
        for answer in self.values:
            if answer.casefold() == text.casefold():
                return answer
        raise ValueError(f"{verdict!r} is not on the scale ({', '.join(self.answers)})")


def parse_scale(spec: object) -> Scale:
    """The scale a config's ``scale`` writes (see the module docstring); ``ValueError``
    saying what is wrong."""
    if isinstance(spec, str):
        if _YES_NO.match(spec):
            return Scale("yes_no", {"yes": 1.0, "no": 0.0})
        found = _RANGE.match(spec)
        if found is None:
            raise ValueError(
                f"{spec!r} is not a scale: write a range such as 1-5, yes/no, "
                "or labels with their scores"
            )
        return _range(int(found[1]), int(found[2]))
    if isinstance(spec, list):
        if len(spec) != 2 or not all(isinstance(v, int) for v in spec):
            raise ValueError("a range is two whole numbers, [low, high]")
        return _range(spec[0], spec[1])
    if isinstance(spec, Mapping):
        return _labels(spec)
    raise ValueError(f"{spec!r} is not a scale")


def _range(low: int, high: int) -> Scale:
    if low >= high:
        raise ValueError(f"the range {low}-{high} must go from low to high")
    if high - low + 1 > MAX_RANGE_VALUES:
        raise ValueError(f"the range {low}-{high} has more than {MAX_RANGE_VALUES} values")
    return Scale("range", {str(v): float(v) for v in range(low, high + 1)})


def _labels(spec: Mapping[Any, Any]) -> Scale:
    if len(spec) < 2:
        raise ValueError("give at least two labels with their scores")
    values: dict[str, float] = {}
    for label, score in spec.items():
        if not isinstance(label, str) or not label.strip():
            raise ValueError(f"the label {label!r} is not a word")
        if isinstance(score, bool) or not isinstance(score, int | float):
            raise ValueError(f"the label {label!r} needs a number as its score")
        if not math.isfinite(score):
            raise ValueError(f"the score of {label!r} is not a finite number")
        if any(known.casefold() == label.strip().casefold() for known in values):
            raise ValueError(f"the label {label!r} is given twice")
        values[label.strip()] = float(score)
    return Scale("labels", values)
