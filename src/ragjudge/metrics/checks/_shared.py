"""What the checks share: their base class, text folding and fence stripping."""

from __future__ import annotations

import re
import unicodedata
from typing import ClassVar

from ragjudge.metrics._base import Metric, MetricOptions
from ragjudge.schema import ScoreMeaning

__all__ = ["CheckMetric", "TextOptions", "fold_text", "passed", "strip_fence"]


class TextOptions(MetricOptions):
    """How texts are compared: letter case, and NFKC normalisation (full-width letters
    and digits become their usual forms, ``ｶﾞ`` becomes ``ガ``)."""

    case_sensitive: bool = True
    nfkc: bool = False


class CheckMetric(Metric):
    """A check of the response: CPU only, no judge, a pass (1) or a fail (0) unless a
    check declares another meaning."""

    pipeline_parts = ("end to end",)
    requires: tuple[str, ...] = ("response",)
    inline: ClassVar[bool] = True
    meaning: ClassVar[ScoreMeaning] = ScoreMeaning(binary=True)


def fold_text(text: str, options: TextOptions) -> str:
    """``text`` as ``options`` compare it: NFKC-normalised with ``nfkc``, case-folded
    without ``case_sensitive``."""
    if options.nfkc:
        text = unicodedata.normalize("NFKC", text)
    return text if options.case_sensitive else text.casefold()


def passed(ok: bool) -> float:
    """1.0 for a pass, 0.0 for a fail."""
    return 1.0 if ok else 0.0


_FENCE = re.compile(r"\A\s*```[ \t]*(?:json)?[ \t]*\n(.*?)\n?```\s*\Z", re.DOTALL | re.IGNORECASE)


def strip_fence(text: str) -> str:
    """The inside of a Markdown code fence (```json … ```) that is the whole text, else
    the text as it is."""
    found = _FENCE.match(text)
    return found.group(1) if found else text
