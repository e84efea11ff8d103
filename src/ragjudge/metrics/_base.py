"""The metric protocol and the registry that finds metrics by name."""

from __future__ import annotations

import inspect
from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ragjudge.schema import Output, Sample, Score


@dataclass
class MetricContext:
    """What the runner hands a metric besides the sample and the output.

    A metric never opens files, HTTP clients or databases itself; whatever it needs
    (a retriever for evaluation contexts, a judge model) arrives here.
    """

    trial: int = 0
    retriever: Any = None
    """The evaluation retriever (``search(query, k)``), when a knowledge base is set."""
    judge: Any = None
    """The judge :class:`~ragjudge.models.JudgeModel`, when one is configured."""
    generate_config: Any = None
    """The judge's sampling settings (:class:`~ragjudge.models.GenerateConfig`)."""
    target: Any = None
    """The system under test (``await ctx.target(sample)``), for metrics that hold a
    dialogue with it; the runner supplies it, the metric never builds clients."""
    models: dict[str, Any] = field(default_factory=dict)
    """Further models by role, as named in the metric's ``agent_models``; a role that
    is not set there uses the judge."""

    def model_for(self, role: str) -> Any:
        """The model that plays ``role`` (e.g. ``composer``), defaulting to the judge."""
        return self.models.get(role) or self.judge


class Metric(ABC):
    """A metric scores one sample's output.

    ``requires`` lists the fields every row must carry; an entry ``"a|b"`` means
    either field will do. ``response``, ``retrieved_context`` and ``trace`` are
    satisfied by a target that produces responses. ``exclude_from_mean`` lists values that the
    aggregate leaves out of the mean (reported beside it as a share).
    """

    name: str
    requires: tuple[str, ...] = ("response",)
    exclude_from_mean: tuple[float, ...] = ()
    needs_judge: bool = False
    """Whether the metric calls a judge model (``ctx.judge``)."""
    needs_retriever: bool = False
    """Whether the metric searches for evaluation contexts (``ctx.retriever``)."""
    dry_run_reply: str | Callable[[list[dict[str, Any]]], str] = "(dry run)"
    """What the stand-in judge answers during ``--dry-run`` (must parse): a text, or a
    function of the prompt messages for metrics whose agents expect different forms."""
    agent_models: dict[str, str] = {}  # noqa: RUF012 - read-only class default
    """Model specs per agent role (``{"composer": "openai/gpt-4o"}``); the runner builds
    them through the judge layer and passes them as ``ctx.models``."""

    @abstractmethod
    async def score(
        self, sample: Sample, output: Output, ctx: MetricContext
    ) -> Score | list[Score]:
        """Score one sample; return an error Score rather than raise for bad data."""

    def score_names(self) -> list[str]:
        """The names of the scores this metric produces (one by default)."""
        return [self.name]

    def check_target(self, target: Any) -> str | None:
        """Why this metric cannot work with ``target`` (the system under test), or None
        when it can. The runner asks before any work; the default accepts any target."""
        return None


def response_and_references(
    metric: str, sample: Sample, output: Output
) -> tuple[str, list[tuple[int, str]]] | Score:
    """The response and the non-blank references (with their positions) a
    reference-based metric compares, or the error Score when either is missing."""
    if output.response is None:
        reason = f"target failed: {output.error}" if output.error else "no response"
        return Score.failed(metric, reason)
    references = [(i, ref) for i, ref in enumerate(sample.references) if ref.strip()]
    if not references:
        return Score.failed(metric, "every reference answer is empty")
    return output.response, references


MetricFactory = Callable[..., Metric]
_REGISTRY: dict[str, MetricFactory] = {}


def register_metric(name: str) -> Callable[[MetricFactory], MetricFactory]:
    """Register a metric factory under ``name`` so configs and the CLI can find it."""

    def decorator(factory: MetricFactory) -> MetricFactory:
        if name in _REGISTRY:
            raise ValueError(f"metric {name!r} is registered twice")
        _REGISTRY[name] = factory
        return factory

    return decorator


def available_metrics() -> list[str]:
    """Names of all registered metrics."""
    return sorted(_REGISTRY)


def create_metric(spec: str | dict[str, Any] | Metric) -> Metric:
    """Build a metric from a name, a dict ``{metric: NAME, name: ALIAS, **options}`` or
    an instance.

    ``name`` gives the instance its own name, so one metric can run twice with
    different options in one run.
    """
    if isinstance(spec, Metric):
        return spec
    if isinstance(spec, str):
        spec = {"metric": spec}
    options = dict(spec)
    kind = options.pop("metric", None) or options.get("name")
    if not isinstance(kind, str):
        raise ValueError(f"metric spec {spec!r} names no metric")
    factory = _REGISTRY.get(kind)
    if factory is None:
        known = ", ".join(available_metrics())
        raise ValueError(f"unknown metric {kind!r}; known metrics: {known}")
    alias = options.pop("name", kind)
    check_options(kind, factory, options)
    metric = factory(**options)
    metric.name = alias
    return metric


def check_options(kind: str, factory: MetricFactory, options: dict[str, Any]) -> None:
    """Reject options the metric's factory does not take, and values whose type differs
    from the option's default (a flag must be true/false, a count a whole number), with
    a message that names the known options."""
    parameters = {
        name: p
        for name, p in inspect.signature(factory).parameters.items()
        if p.kind in (p.KEYWORD_ONLY, p.POSITIONAL_OR_KEYWORD)
    }
    unknown = sorted(set(options) - set(parameters))
    if unknown:
        known = ", ".join(sorted(parameters)) or "none"
        raise ValueError(
            f"metric {kind!r} got unknown option(s) {', '.join(unknown)}; known options: {known}"
        )
    for name, value in options.items():
        default = parameters[name].default
        if isinstance(default, bool) and not isinstance(value, bool):
            raise ValueError(f"metric {kind!r}: option {name!r} must be true or false")
        if type(default) is int and (isinstance(value, bool) or not isinstance(value, int)):
            raise ValueError(f"metric {kind!r}: option {name!r} must be a whole number")


def positive_int(metric: str, option: str, value: Any) -> int:
    """``value`` when it is a whole number of at least 1; a ``ValueError`` otherwise."""
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"{metric}: {option} must be a whole number of at least 1, not {value!r}")
    return value
