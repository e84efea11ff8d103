"""What each score of a stored run means (direction, range, values the mean leaves
out), read from the run record. Runs stored before meanings were recorded get them
rebuilt from their config through the metric registry; a metric that can no longer be
built contributes nothing (its scores read as higher-is-better, nothing left out)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ragjudge.schema import ScoreMeaning
from ragjudge.store._store import RunInfo

__all__ = ["exclusions", "lower_is_better", "merged_meanings", "run_meanings"]


def run_meanings(run: RunInfo) -> dict[str, ScoreMeaning]:
    """The meaning of every score of ``run``, by score name."""
    if run.meanings is not None:
        return dict(run.meanings)
    return _rebuilt(run.config)


def _rebuilt(config: Mapping[str, Any]) -> dict[str, ScoreMeaning]:
    from ragjudge.metrics import create_metric

    specs = config.get("metrics")
    base = config.get("base_dir")
    found: dict[str, ScoreMeaning] = {}
    for spec in specs if isinstance(specs, list) else []:
        try:
            metric = create_metric(spec, search_dir=Path(base) if base else None)
        except (ValueError, TypeError, KeyError, ImportError):
            continue
        found.update(metric.meanings())
    return found


def merged_meanings(*runs: RunInfo) -> dict[str, ScoreMeaning]:
    """The meanings of several runs' scores: the first run that has a score gives its
    direction and range; the values left out of the mean are those of every run."""
    merged: dict[str, ScoreMeaning] = {}
    for run in runs:
        for name, meaning in run_meanings(run).items():
            known = merged.get(name)
            if known is None:
                merged[name] = meaning
            else:
                excluded = tuple(sorted({*known.excluded, *meaning.excluded}))
                merged[name] = known.model_copy(update={"excluded": excluded})
    return merged


def exclusions(meanings: Mapping[str, ScoreMeaning]) -> dict[str, list[float]]:
    """Per score name, the values its mean leaves out (only scores that leave any out)."""
    return {name: sorted(m.excluded) for name, m in meanings.items() if m.excluded}


def lower_is_better(meanings: Mapping[str, ScoreMeaning]) -> set[str]:
    """The score names where a lower value is better."""
    return {name for name, m in meanings.items() if m.lower_is_better}
