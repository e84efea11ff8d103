"""The metric registry: metrics by name, found by discovering the package, plus any
metric class named by its import path (``my_pkg.my_metrics:Conciseness``)."""

from __future__ import annotations

import importlib
import inspect
import pkgutil
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, TypeVar

from pydantic import ValidationError

from ragjudge._util.suggest import did_you_mean
from ragjudge.metrics._base import Metric, MetricOptions, is_metric_class
from ragjudge.metrics._function import (
    FunctionMetric,
    is_plain_function,
    takes_sample_and_output,
)
from ragjudge.metrics._options import ConfigSettings
from ragjudge.metrics._thresholds import (
    THRESHOLD,
    pass_threshold,
    takes_pass_threshold,
    thresholded_meanings,
)
from ragjudge.schema import ScoreMeaning

__all__ = [
    "available_metrics",
    "create_metric",
    "meanings_of_stored_config",
    "metric_class",
    "register_metric",
]

M = TypeVar("M", bound=type[Metric])

_REGISTRY: dict[str, type[Metric]] = {}
_discovered = False


def register_metric(name: str) -> Callable[[M], M]:
    """Class decorator: register a :class:`Metric` subclass under ``name`` so configs
    and the CLI find it. Modules under ``ragjudge.metrics`` are discovered, so a new
    metric needs no import list."""

    def decorator(cls: M) -> M:
        if not is_metric_class(cls):
            raise TypeError(f"register_metric({name!r}) decorates a Metric subclass, not {cls!r}")
        known = _REGISTRY.get(name)
        if known is not None and known is not cls:
            raise ValueError(f"metric {name!r} is registered twice")
        cls.kind = name
        _REGISTRY[name] = cls
        return cls

    return decorator


def _discover() -> None:
    """Import every public module under ``ragjudge.metrics`` once, so their
    ``register_metric`` decorators run."""
    global _discovered
    if _discovered:
        return
    _discovered = True
    package = importlib.import_module("ragjudge.metrics")
    for module in pkgutil.walk_packages(package.__path__, prefix="ragjudge.metrics."):
        if not any(part.startswith("_") for part in module.name.split(".")[2:]):
            importlib.import_module(module.name)


def _import_named(kind: str) -> None:
    """Import the metric modules named ``kind`` (``lexical/rouge_l.py`` for
    ``rouge_l``), where a metric usually lives, so a run of a few metrics does not
    import every family; :func:`_discover` still finds the others."""
    if not kind.isidentifier():
        return
    root = Path(__file__).parent
    for path in sorted(root.glob(f"*/{kind}.py")):
        if not path.parent.name.startswith("_"):
            importlib.import_module(f"ragjudge.metrics.{path.parent.name}.{kind}")


def available_metrics() -> list[str]:
    """Names of all registered metrics."""
    _discover()
    return sorted(_REGISTRY)


def metric_class(kind: str, *, search_dir: Path | None = None) -> type[Metric]:
    """The metric class registered as ``kind``, or the class a ``module:Class`` path
    names (the module is looked up beside the config first, then on the import path)."""
    if ":" in kind:
        return _import_metric_class(kind, search_dir)
    if kind not in _REGISTRY and not _discovered:
        _import_named(kind)
    if kind not in _REGISTRY:
        _discover()
    found = _REGISTRY.get(kind)
    if found is None:
        names = available_metrics()
        raise ValueError(
            f"unknown metric {kind!r}; {did_you_mean(kind, names)}known metrics: "
            f"{', '.join(names)} (or give a 'module:Class' path)"
        )
    return found


def _import_metric_class(path: str, search_dir: Path | None) -> type[Metric]:
    found = _import_metric(path, search_dir)
    if not is_metric_class(found):
        raise ValueError(f"metric {path!r} is not a ragjudge Metric subclass")
    cls: type[Metric] = found
    return cls


def _import_metric(path: str, search_dir: Path | None) -> Any:
    from ragjudge.targets._targets import import_callable

    try:
        return import_callable(path, search_dir=search_dir, what="metric")
    except Exception as exc:  # any error importing the user's module is a config error
        raise ValueError(str(exc)) from exc


def create_metric(
    spec: str | dict[str, Any] | Metric | Callable[..., Any],
    *,
    search_dir: Path | None = None,
    settings: ConfigSettings | None = None,
) -> Metric:
    """Build a metric from a name, a dict ``{metric: NAME, name: ALIAS, **options}``, an
    instance, or a plain function ``(sample, output) -> float`` (named after itself;
    ``module:function`` in a config). ``name`` gives the instance its own name, so one
    metric can run twice with different options. ``settings`` (a run's config) fill the
    options that declare a config-wide setting or a path (:mod:`ragjudge.metrics._options`).
    A bad option is a ``ValueError`` that names the instance, the option and the known
    options."""
    if isinstance(spec, Metric):
        return spec
    if is_plain_function(spec):
        return FunctionMetric(spec)
    if isinstance(spec, str):
        spec = {"metric": spec}
    if not isinstance(spec, dict):
        raise ValueError(f"metric spec {spec!r} is not a name, a dict or a metric")
    options = dict(spec)
    kind = options.pop("metric", None) or options.get("name")
    if not isinstance(kind, str):
        raise ValueError(f"metric spec {spec!r} names no metric")
    if ":" in kind and is_plain_function(found := _import_metric(kind, search_dir)):
        if not takes_sample_and_output(found):
            raise ValueError(
                f"metric {kind!r} is not a ragjudge Metric subclass, nor a function of "
                "(sample, output)"
            )
        alias = options.pop("name", None)
        threshold = options.pop(THRESHOLD, None)
        if options:
            raise ValueError(
                f"metric {kind!r} is a function; it takes no options ({', '.join(options)})"
            )
        function = FunctionMetric(found, name=alias if isinstance(alias, str) else None)
        return _with_threshold(function, threshold, f"metric {kind!r}")
    cls = metric_class(kind, search_dir=search_dir)
    alias = options.pop("name", None)
    if alias is not None and not isinstance(alias, str):
        raise ValueError(f"metric {kind!r}: 'name' must be a string, not {alias!r}")
    who = f"metric {kind!r}" if alias in (None, kind) else f"metric {alias!r} ({kind})"
    threshold = options.pop(THRESHOLD, None) if takes_pass_threshold(cls) else None
    if settings is not None:
        options = settings.fill(cls.Options, options)
    if cls.Options is MetricOptions and cls.__init__ is not Metric.__init__:
        # A class with its own keyword arguments instead of an Options model.
        check_signature_options(who, cls, options)
        metric = cls(**options)
    else:
        try:
            metric = cls(**options)
        except ValidationError as exc:
            raise ValueError(_describe_options(who, cls, exc)) from None
    if alias is not None:
        metric.name = alias
    return _with_threshold(metric, threshold, who)


def _with_threshold(metric: Metric, threshold: Any, who: str) -> Metric:
    """``metric`` with the pass threshold of its entry, when the entry gives one."""
    if threshold is not None:
        metric.threshold = pass_threshold(threshold, who)
    return metric


def meanings_of_stored_config(config: Mapping[str, Any]) -> dict[str, ScoreMeaning]:
    """The meanings of the scores of the metrics a stored run's ``config`` (its record)
    names: what a run stored without them is given. A metric that can no longer be built
    contributes nothing."""
    specs = config.get("metrics")
    base = config.get("base_dir")
    folder = Path(base) if isinstance(base, str) and base else None
    settings = None if folder is None else ConfigSettings(folder, config.get)
    found: dict[str, ScoreMeaning] = {}
    for spec in specs if isinstance(specs, list) else []:
        try:
            metric = create_metric(spec, search_dir=folder, settings=settings)
        except (ValueError, TypeError, KeyError, ImportError):
            continue
        found.update(thresholded_meanings(metric, metric.meanings()))
    return found


def _describe_options(who: str, cls: type[Metric], exc: ValidationError) -> str:
    problems = []
    for error in exc.errors():
        option = ".".join(str(p) for p in error["loc"]) or "(options)"
        if error["type"] == "extra_forbidden":
            hint = did_you_mean(option, cls.Options.model_fields).rstrip()
            problems.append(f"unknown option {option!r}" + (f" ({hint})" if hint else ""))
        else:
            problems.append(f"option {option!r} {_plain_message(error)}")
    known = ", ".join(cls.Options.model_fields) or "none"
    return f"{who}: {'; '.join(problems)} (known options: {known})"


def _plain_message(error: Any) -> str:
    """A pydantic validation error in the words of a config file."""
    kind, context = error["type"], error.get("ctx") or {}
    if kind == "bool_type":
        return "must be true or false"
    if kind in ("int_type", "int_from_float", "int_parsing"):
        return "must be a whole number"
    if kind in ("greater_than_equal", "greater_than", "less_than_equal", "less_than"):
        word = {"ge": "at least", "gt": "above", "le": "at most", "lt": "below"}
        bound = next(f"{word[k]} {v}" for k, v in context.items() if k in word)
        return f"must be {bound}, not {error['input']!r}"
    if kind == "missing":
        return "is required"
    if kind == "literal_error":
        return f"must be one of {context['expected']}, not {error['input']!r}"
    return f"is invalid: {error['msg'].removeprefix('Value error, ')}"


def check_signature_options(who: str, cls: type[Metric], options: dict[str, Any]) -> None:
    """For a metric class whose options are its ``__init__`` keyword arguments: reject
    unknown options, and values whose type differs from a flag's or a count's default."""
    parameters = {
        name: p
        for name, p in inspect.signature(cls).parameters.items()
        if p.kind in (p.KEYWORD_ONLY, p.POSITIONAL_OR_KEYWORD)
    }
    unknown = sorted(set(options) - set(parameters))
    if unknown:
        known = ", ".join(sorted(parameters)) or "none"
        hint = did_you_mean(unknown[0], parameters)
        raise ValueError(
            f"{who}: unknown option(s) {', '.join(unknown)}; {hint}known options: {known}"
        )
    for name, value in options.items():
        default = parameters[name].default
        if isinstance(default, bool) and not isinstance(value, bool):
            raise ValueError(f"{who}: option {name!r} must be true or false")
        if type(default) is int and (isinstance(value, bool) or not isinstance(value, int)):
            raise ValueError(f"{who}: option {name!r} must be a whole number")
