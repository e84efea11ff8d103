"""How informative a label of each sample would be: the signals that rank the labelling
queue's targeted stream, each read from per-sample SQL aggregates of the store (never
the run's score objects, so a run of 100,000 samples ranks in little memory).

Each signal is a strength in [0, 1]:

- **judges disagree**: the range of the sample's values over the judges of the same
  metric (``faithfulness@a``, ``faithfulness@b``; an ensemble's own score is left out,
  it repeats its judges), as a share of the score's range;
- **trials disagree**: the range of the sample's trial values, as a share of the range;
- **verdict near the pass line**: 1 on the pass line (the middle of the range for a
  score without one), falling to 0 half a range away.

A sample without a verdict (every trial failed, or no value) comes before any judged
one: a label is the only way to know it.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from ragjudge.schema import ScoreMeaning
from ragjudge.store import Store

__all__ = ["Ranked", "judge_group", "ranked_samples"]

NO_VERDICT = "no verdict"
JUDGES = "judges disagree"
TRIALS = "trials disagree"
NEAR_LINE = "verdict near the pass line"

_NAMED = 0.25
"""A signal at least this strong is named among a sample's reasons."""


@dataclass(frozen=True)
class Ranked:
    """One sample of the targeted stream: its request id, how informative a label of it
    is (higher first; no verdict ranks above all) and the signals that make it so."""

    request_id: str
    strength: float
    reasons: tuple[str, ...]


def _span(meaning: ScoreMeaning | None) -> tuple[float, float]:
    low = 0.0 if meaning is None or meaning.low is None else meaning.low
    high = 1.0 if meaning is None or meaning.high is None else meaning.high
    return low, (high - low) or 1.0


def _nearness(value: float, meaning: ScoreMeaning | None) -> float:
    """1 on the pass line (or the middle of the range), 0 half a range or more away."""
    low, span = _span(meaning)
    line = meaning.threshold if meaning is not None else None
    if line is None:
        line = low + span / 2
    return max(0.0, 1.0 - 2.0 * abs(value - line) / span)


def judge_group(
    score: str, meaning: ScoreMeaning | None, meanings: Mapping[str, ScoreMeaning]
) -> list[str]:
    """The scores of the other judges of ``score``'s metric (ensembles left out)."""
    metric = meaning.metric if meaning is not None and meaning.metric else score
    return sorted(
        name
        for name, other in meanings.items()
        if name != score and not other.ensemble and (other.metric or name) == metric
    )


def _judge_spreads(
    store: Store,
    run_id: str,
    own: Mapping[str, float],
    others: Sequence[str],
    meaning: ScoreMeaning | None,
) -> dict[str, float]:
    """Each sample's range of values over its judges, as a share of the score's range."""
    if not others:
        return {}
    low_high = {request_id: (value, value) for request_id, value in own.items()}
    for name in others:
        for request_id, value in store.sample_means(run_id, name).items():
            low, high = low_high.get(request_id, (value, value))
            low_high[request_id] = (min(low, value), max(high, value))
    span = _span(meaning)[1]
    return {i: min(1.0, (high - low) / span) for i, (low, high) in low_high.items()}


def _trial_spreads(
    store: Store, run_id: str, score: str, meaning: ScoreMeaning | None
) -> dict[str, float]:
    span = _span(meaning)[1]
    return {
        request_id: min(1.0, (high - low) / span)
        for request_id, (low, high) in store.sample_ranges(run_id, score).items()
        if high > low
    }


def _signals(
    request_id: str,
    value: float,
    judges: Mapping[str, float],
    trials: Mapping[str, float],
    meaning: ScoreMeaning | None,
) -> Ranked:
    strengths = {
        JUDGES: judges.get(request_id, 0.0),
        TRIALS: trials.get(request_id, 0.0),
        NEAR_LINE: _nearness(value, meaning),
    }
    named = sorted(
        (name for name, strength in strengths.items() if strength >= _NAMED),
        key=lambda name: -strengths[name],
    )
    if not named:
        named = [max(strengths, key=lambda name: strengths[name])]
    return Ranked(request_id, sum(strengths.values()), tuple(named))


def ranked_samples(
    store: Store,
    run_id: str,
    ids: Sequence[str],
    score: str,
    meaning: ScoreMeaning | None,
    *,
    seed: str,
) -> list[Ranked]:
    """The samples ``ids``, most informative label first (ties in a seeded order)."""
    judged = store.sample_means(run_id, score)
    meanings = store.run(run_id).meanings or {}
    others = judge_group(score, meaning, meanings)
    judges = _judge_spreads(store, run_id, judged, others, meaning)
    trials = _trial_spreads(store, run_id, score, meaning)
    tie = list(ids)
    random.Random(f"tie:{seed}").shuffle(tie)
    ranked = [
        Ranked(i, float("inf"), (NO_VERDICT,))
        if i not in judged
        else _signals(i, judged[i], judges, trials, meaning)
        for i in tie
    ]
    ranked.sort(key=lambda item: -item.strength)
    return ranked
