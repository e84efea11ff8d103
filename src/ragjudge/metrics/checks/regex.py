"""``regex``: 1 when the response matches a regular expression (Python's ``re``)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, ClassVar, Literal

from pydantic import field_validator

from ragjudge.metrics._base import MetricContext, MetricOptions, Result, require_response
from ragjudge.metrics._registry import register_metric
from ragjudge.metrics.checks._shared import CheckMetric, passed
from ragjudge.schema import Output, Sample, ScoreMeaning


class RegexOptions(MetricOptions):
    """The pattern, its flags, how it must match and whether a match fails."""

    pattern: str
    ignore_case: bool = False
    multiline: bool = False
    dotall: bool = False
    mode: Literal["search", "fullmatch"] = "search"
    negate: bool = False

    @field_validator("pattern")
    @classmethod
    def _compiles(cls, pattern: str) -> str:
        try:
            re.compile(pattern)
        except re.error as exc:
            where = "" if exc.pos is None else f" at position {exc.pos}"
            raise ValueError(f"not a regular expression: {exc.msg}{where}") from None
        return pattern

    def flags(self) -> re.RegexFlag:
        """The ``re`` flags the options ask for."""
        flags = re.RegexFlag(0)
        if self.ignore_case:
            flags |= re.IGNORECASE
        if self.multiline:
            flags |= re.MULTILINE
        if self.dotall:
            flags |= re.DOTALL
        return flags


@register_metric("regex")
class Regex(CheckMetric):
    """1 when the response matches ``pattern`` anywhere (``mode: search``) or as a whole
    (``mode: fullmatch``); ``negate`` passes the responses that do not match."""

    Options = RegexOptions
    options: RegexOptions
    example_options: ClassVar[Mapping[str, Any]] = {"pattern": "UNION"}
    meaning = ScoreMeaning(binary=True, description="share of responses matching the pattern")

    def __init__(self, *, name: str | None = None, **options: Any) -> None:
        super().__init__(name=name, **options)
        self.compiled = re.compile(self.options.pattern, self.options.flags())

    def compute_now(self, sample: Sample, output: Output, ctx: MetricContext) -> Result:
        """Pass or fail, with the matched text (or None) in the details."""
        response = require_response(output)
        if self.options.mode == "fullmatch":
            found = self.compiled.fullmatch(response)
        else:
            found = self.compiled.search(response)
        matched = found is not None
        details: dict[str, Any] = {
            "matched": found.group(0) if found else None,
            "negate": self.options.negate,
        }
        if found is not None:
            details["span"] = [found.start(), found.end()]
        return Result(passed(matched != self.options.negate), details=details)
