"""What every registered metric is, read from its own declarations — the meaning of its
scores (``meaning``/``scores``: description, range, direction), the inputs it
``requires``, whether it ``needs_judge`` and its ``calls_per_sample``, the parts of the
pipeline it measures (``pipeline_parts``) and the group it is listed under, its
options — so ``ragjudge metrics`` never drifts from the code."""

from __future__ import annotations

import inspect
import re
from dataclasses import asdict, dataclass, field
from typing import Any

from pydantic_core import PydanticUndefined

from ragjudge._util.extras import extra_installed, install_command
from ragjudge.metrics import Metric, MetricOptions, available_metrics, metric_class
from ragjudge.metrics._base import PIPELINE_PARTS
from ragjudge.metrics._judged import JudgedMetric
from ragjudge.metrics._options import FromConfig
from ragjudge.schema import ScoreMeaning

__all__ = [
    "GROUPS",
    "MetricInfo",
    "ScoreInfo",
    "all_metric_info",
    "metric_group",
    "metric_info",
    "value_range",
]

UNGROUPED = "other"
GROUPS: tuple[str, ...] = (*PIPELINE_PARTS, UNGROUPED)
"""The groups ``ragjudge metrics`` lists metrics under, in this order."""


@dataclass(frozen=True)
class ScoreInfo:
    """One score a metric gives."""

    name: str
    description: str
    low: float | None
    high: float | None
    direction: str
    binary: bool
    excluded: tuple[float, ...]

    @property
    def range(self) -> str:
        """The values, in words (``0–1``, ``yes/no``, ``≥ 0``)."""
        return "yes/no" if self.binary else value_range(self.low, self.high)


@dataclass(frozen=True)
class MetricInfo:
    """A registered metric as its declarations describe it."""

    name: str
    measures: str
    scores: list[ScoreInfo]
    inputs: list[str]
    needs_judge: bool
    judge_calls: str
    parts: list[str]
    """The parts of a RAG pipeline its scores speak of (retrieval, generation, end to
    end, agent, conversation); empty for a metric that does not say."""
    options: dict[str, str] = field(default_factory=dict)
    """Option name → its type and default, as written in a config."""
    extras: list[str] = field(default_factory=list)
    """The optional extras of the package it needs with its default options."""
    missing_extras: list[str] = field(default_factory=list)
    """Those of ``extras`` that are not installed here."""

    @property
    def install_hint(self) -> str | None:
        """``needs pip install 'ragjudge[local]'`` when an extra it needs is missing."""
        if not self.missing_extras:
            return None
        return "needs " + " and ".join(install_command(e) for e in self.missing_extras)

    @property
    def group(self) -> str:
        """The group it is listed under: see :func:`metric_group`."""
        return metric_group(self.parts)

    def to_dict(self) -> dict[str, Any]:
        """JSON-able form (``ragjudge metrics --json``)."""
        found = asdict(self)
        found["group"] = self.group
        found["install_hint"] = self.install_hint
        for score, info in zip(found["scores"], self.scores, strict=True):
            score["range"] = info.range
            score["excluded"] = list(info.excluded)
        return found


def value_range(low: float | None, high: float | None) -> str:
    """``0–1``, ``≥ 1``, ``≤ 0`` or ``any``."""
    if low is not None and high is not None:
        return f"{low:g}–{high:g}"
    if low is not None:
        return f"≥ {low:g}"
    if high is not None:
        return f"≤ {high:g}"
    return "any"


def metric_group(parts: list[str]) -> str:
    """The widest part a metric measures, in the order retrieval, generation, end to
    end, agent, conversation (a metric of retrieval and generation is listed with
    generation, where its score is formed); ``other`` when it declares none."""
    declared = [part for part in PIPELINE_PARTS if part in parts]
    return declared[-1] if declared else UNGROUPED


def all_metric_info() -> list[MetricInfo]:
    """Every registered metric, by name."""
    return [metric_info(name) for name in available_metrics()]


def metric_info(name: str) -> MetricInfo:
    """The registered metric ``name`` as its declarations (on an instance with the
    default options, or its ``example_options`` when some are required) describe it."""
    cls = metric_class(name)
    metric = cls(**cls.example_options)
    meanings = metric.meanings()
    scores = [_score_info(score, meaning) for score, meaning in meanings.items()]
    extras = metric.extras()
    return MetricInfo(
        name=name,
        measures=_measures(cls, scores),
        scores=scores,
        inputs=_inputs(metric),
        needs_judge=cls.needs_judge,
        judge_calls=_judge_calls(cls),
        parts=list(cls.pipeline_parts),
        options=_options(cls),
        extras=extras,
        missing_extras=[e for e in extras if not extra_installed(e)],
    )


def _score_info(name: str, meaning: ScoreMeaning) -> ScoreInfo:
    return ScoreInfo(
        name=name,
        description=meaning.description,
        low=meaning.low,
        high=meaning.high,
        direction=meaning.direction,
        binary=meaning.binary,
        excluded=meaning.excluded,
    )


def _measures(cls: type[Metric], scores: list[ScoreInfo]) -> str:
    """One score's description, else the first sentence of the class's docstring (as
    plain text)."""
    if len(scores) == 1 and scores[0].description:
        return scores[0].description
    doc = " ".join((inspect.getdoc(cls) or "").split("\n\n")[0].split())
    doc = _ROLE.sub(lambda m: m.group(1).rsplit(".", 1)[-1], doc).replace("``", "")
    first = re.split(r"(?<=\.)\s", doc.replace(" (see the module docstring)", ""))[0]
    return first.removesuffix(".")


_ROLE = re.compile(r":\w+:`~?([^`]+)`")


def _inputs(metric: Metric) -> list[str]:
    inputs = [" or ".join(r.split("|")) for r in metric.requires]
    if metric.needs_retriever:
        inputs.append("a knowledge base or retriever")
    if metric.embedding_specs():
        inputs.append("embeddings")
    return inputs


def _judge_calls(cls: type[Metric]) -> str:
    if cls.calls_per_sample is not None:
        return cls.calls_per_sample
    if not cls.needs_judge:
        return "0"
    keeps_one_call = issubclass(cls, JudgedMetric) and cls.judge is JudgedMetric.judge
    return "1" if keeps_one_call else "several (not declared)"


def _options(cls: type[Metric]) -> dict[str, str]:
    if cls.Options is MetricOptions and cls.__init__ is not Metric.__init__:
        return _keyword_options(cls)
    found = {}
    for name, info in cls.Options.model_fields.items():
        kind = _type_name(info.annotation)
        default = info.default
        if default is PydanticUndefined:
            default = info.default_factory() if info.default_factory else "required"  # type: ignore[call-arg]
        found[name] = f"{kind} = {default!r}{_from_config(info.metadata)}"
    return found


def _from_config(metadata: list[Any]) -> str:
    """`` + the config's 'specs'`` for an option that also takes a config setting."""
    settings = [m.setting for m in metadata if isinstance(m, FromConfig)]
    return "".join(f" + the config's {setting!r}" for setting in settings)


def _keyword_options(cls: type[Metric]) -> dict[str, str]:
    parameters = inspect.signature(cls).parameters.values()
    return {
        p.name: f"{_type_name(p.annotation)} = {p.default!r}"
        for p in parameters
        if p.kind is p.KEYWORD_ONLY and p.name != "name"
    }


def _type_name(annotation: Any) -> str:
    text = annotation if isinstance(annotation, str) else getattr(annotation, "__name__", None)
    return str(text or annotation).replace("typing.", "")
