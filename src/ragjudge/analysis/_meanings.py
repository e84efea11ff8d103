"""What each score of a stored run means (direction, range, values the mean leaves
out), read from the run record alone: reading runs never needs the metric registry.
Runs an older version stored without meanings get them, rebuilt from their config,
when their store is opened (:mod:`ragjudge.store._file`); a run that still has none (a
store that could not be written) reads every score as higher-is-better, with nothing
left out of the mean."""

from __future__ import annotations

from collections.abc import Mapping

from ragjudge.schema import ScoreMeaning
from ragjudge.stats._reducers import TrialReducer
from ragjudge.store._store import RunInfo

__all__ = ["exclusions", "lower_is_better", "merged_meanings", "run_meanings", "trial_reducers"]


def run_meanings(run: RunInfo) -> dict[str, ScoreMeaning]:
    """The meaning of every score of ``run``, by score name (none for a run stored
    without them)."""
    return dict(run.meanings or {})


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


def trial_reducers(meanings: Mapping[str, ScoreMeaning]) -> dict[str, TrialReducer]:
    """Per score name, how its trials are reduced (only scores that name a reducer)."""
    return {
        name: TrialReducer(m.trials_reduce.method, m.trials_reduce.k, m.trials_reduce.threshold)
        for name, m in meanings.items()
        if m.trials_reduce is not None
    }


def lower_is_better(meanings: Mapping[str, ScoreMeaning]) -> set[str]:
    """The score names where a lower value is better."""
    return {name for name, m in meanings.items() if m.lower_is_better}
