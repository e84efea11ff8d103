"""Which judge of a run a score comes from, and whether ``align`` can propose a better
one: a custom judge (worked examples, rewritten criteria) or a built-in metric that
asks one yes/no question per sample (worked examples, its ``examples`` option)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ragjudge.config._presets import entry_name
from ragjudge.errors import ConfigError
from ragjudge.metrics import create_metric, metric_class
from ragjudge.metrics._yesno import YesNoMetric
from ragjudge.metrics.custom._spec import read_judge_file

__all__ = ["JudgeEntry", "judge_entry"]


@dataclass(frozen=True)
class JudgeEntry:
    """The metrics entry of the judge to align. ``builtin``: the built-in yes/no
    metric's name (None for a custom judge, whose ``options`` are its judge file's keys
    and the options beside it; a built-in's are its entry as the run had it)."""

    options: dict[str, Any]
    builtin: str | None = None


def judge_entry(config: Mapping[str, Any], metric: str) -> JudgeEntry:
    """The entry of the judge whose score is ``metric``; :class:`ConfigError` saying
    why when it cannot be aligned."""
    for entry in config.get("metrics") or ():
        if not _scores(entry, metric, config):
            continue
        if isinstance(entry, dict) and entry.get("metric") == "custom_judge":
            return JudgeEntry(_with_spec_resolved(entry, config.get("base_dir")))
        full = {"metric": entry} if isinstance(entry, str) else dict(entry)
        return JudgeEntry(full, _aligned_builtin(str(full.get("metric", metric)), metric))
    raise ConfigError(
        f"--metric: {metric} is not one of the run's metrics entries (a score of a "
        "metric with several scores, or a judge matrix's score, cannot be aligned)"
    )


def _scores(entry: Any, metric: str, config: Mapping[str, Any]) -> bool:
    """Whether ``entry`` stores the score ``metric``: by its name, or a built-in metric
    by its fixed score name (``response/llm_judged/correctness/rating``)."""
    name = entry_name(entry)
    if name is None or name == metric:
        return name == metric
    if isinstance(entry, dict) and entry.get("metric") == "custom_judge":
        return False
    try:
        return metric in create_metric(entry).score_names()
    except (ValueError, TypeError, KeyError, ImportError):
        return False


def _aligned_builtin(kind: str, metric: str) -> str:
    """``kind`` when it is a built-in metric align proposes worked examples for;
    :class:`ConfigError` naming why otherwise."""
    try:
        cls = metric_class(kind)
    except (ValueError, KeyError, ImportError):
        cls = None
    if cls is None or not cls.needs_judge:
        raise ConfigError(
            f"--metric: {metric} is the built-in metric {kind!r}, which asks no judge: "
            "there is no judge to align"
        )
    if not issubclass(cls, YesNoMetric):
        raise ConfigError(
            f"--metric: {metric} is the built-in metric {kind!r}; its judge is asked "
            "several questions per sample, so one person's label cannot show it what to "
            "answer: label a custom judge (metric: custom_judge) instead"
        )
    if not cls.meaning.binary:
        raise ConfigError(
            f"--metric: {metric} is the built-in metric {kind!r}; its score is a share "
            "of items judged one by one, not one yes/no verdict per sample: label a "
            "custom judge (metric: custom_judge) instead"
        )
    return kind


def _with_spec_resolved(entry: dict[str, Any], base_dir: object) -> dict[str, Any]:
    """The entry without its kind, its judge file's keys read in (the record names the
    file relative to the config's folder) and replaced by the options given beside it,
    as the judge itself merges them."""
    found = {k: v for k, v in entry.items() if k not in ("metric", "spec")}
    spec = entry.get("spec")
    if not isinstance(spec, str):
        return found
    path = Path(spec)
    if not path.is_absolute() and isinstance(base_dir, str):
        path = Path(base_dir) / path
    return {**read_judge_file(path), **found}
