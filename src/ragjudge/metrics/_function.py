"""A plain function as a metric: ``def brevity(sample, output) -> float`` passed in
``metrics=[...]`` (or named ``module:function`` in a config) scores every sample under
the function's name."""

from __future__ import annotations

import inspect
import math
from collections.abc import Awaitable, Callable
from typing import Any, ClassVar, TypeGuard

from ragjudge.metrics._base import Metric, MetricContext, MetricFailure, Produced, Result
from ragjudge.schema import Output, Sample, ScoreMeaning

__all__ = ["FunctionMetric", "is_plain_function", "takes_sample_and_output"]

ScoreFunction = Callable[..., float | Result | Awaitable[float | Result]]


def is_plain_function(value: Any) -> TypeGuard[Callable[..., Any]]:
    """Whether ``value`` is a function (or other callable) that is not a Metric class
    or instance."""
    if isinstance(value, Metric) or (inspect.isclass(value) and issubclass(value, Metric)):
        return False
    return callable(value) and not inspect.isclass(value)


class FunctionMetric(Metric):
    """Wraps ``fn(sample, output)`` (or ``fn(sample, output, ctx)``; sync or async)
    returning a number or a :class:`~ragjudge.metrics.Result`. Its name is the
    function's ``__name__`` (or ``name``); its values are unbounded, higher better,
    described by the function's docstring. A value that is not a finite number is the
    sample's error, never a score."""

    requires: tuple[str, ...] = ()
    kind: ClassVar[str] = "function"

    def __init__(self, fn: ScoreFunction, *, name: str | None = None) -> None:
        self.fn = fn
        own = getattr(fn, "__name__", None)
        if name is None and (not own or own == "<lambda>"):
            raise ValueError(
                f"the metric function {fn!r} has no name: define it with def, or wrap it as "
                "FunctionMetric(fn, name='...')"
            )
        super().__init__(name=name or own)
        if not takes_sample_and_output(fn):
            raise ValueError(
                f"the metric function {self.name} must take (sample, output) or "
                "(sample, output, ctx)"
            )
        self._passes_context = _parameters(fn) >= 3
        doc = inspect.getdoc(fn) or ""
        self._meaning = ScoreMeaning(low=None, high=None, description=doc.split("\n\n")[0])

    def meanings(self) -> dict[str, ScoreMeaning]:
        """One score named after the function."""
        return {self.name: self._meaning}

    def score_name(self, base: str) -> str:
        """The function's scores are named after it."""
        return base

    async def compute(self, sample: Sample, output: Output, ctx: MetricContext) -> Produced:
        """The function's value for one sample."""
        args = (sample, output, ctx) if self._passes_context else (sample, output)
        value: Any = self.fn(*args)
        if inspect.isawaitable(value):
            value = await value
        number = value.value if isinstance(value, Result) else value
        if isinstance(number, bool):
            number = float(number)
        if not isinstance(number, int | float) or not math.isfinite(number):
            raise MetricFailure(f"the metric function {self.name} returned {value!r}, not a number")
        if isinstance(value, Result):
            return value
        return float(number)


def takes_sample_and_output(fn: Callable[..., Any]) -> bool:
    """Whether ``fn`` can be called with two or three positional arguments."""
    try:
        params = list(inspect.signature(fn).parameters.values())
    except (TypeError, ValueError):
        return True
    positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    required = [p for p in positional if p.default is p.empty]
    required_keywords = [p for p in params if p.kind is p.KEYWORD_ONLY and p.default is p.empty]
    varargs = any(p.kind is p.VAR_POSITIONAL for p in params)
    return not required_keywords and len(required) <= 3 and (len(positional) >= 2 or varargs)


def _parameters(fn: Callable[..., Any]) -> int:
    try:
        params = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return 2
    if any(p.kind is p.VAR_POSITIONAL for p in params):
        return 3
    return len([p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)])
