"""Judge methods compared on one run, in numbers.

A run that scores the same samples with several judge methods (a Likert rating under
general guidelines, one under specific criteria, a rubric …), usually over several
trials, answers per method:

- **discrimination** — how well it separates responses. With several responses to one
  request in the set (the paired design: same request, different responses), the
  difference between the first and second response of each request (mean over
  requests, with a bootstrap interval over requests and trials); always the share of
  sample pairs it orders (within a request when the set is paired, else all pairs), and
  the spread (SD) of the per-sample means. Two samples are ordered when their trial
  means differ by more than 1.96 standard errors of the difference (by anything at
  all when their trials agree or there is one trial).
- **reproducibility** — the mean within-sample SD over trials, the mean share of trials
  equal to a sample's commonest value, and for rubrics the mean share of trials that
  agree with each item's majority verdict.
- **strictness** — where the mean lands on the score's scale (0 = its bottom, 1 = its
  top): a method that gives everything the top score is lenient.
- **interpretability** — the items judged per sample: 1 for a single rating, N for a
  rubric of N items.
- **cost** — judge calls, tokens and cost per scored sample and trial, from the stored
  calls of the method's scores.

Differences, spreads and SDs are also given as a share of the scale (high − low; a
score with no lower bound, such as a rubric rate, from 0), so methods on different
scales can be set side by side.
"""

from __future__ import annotations

import json
import math
import statistics
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from itertools import combinations
from typing import Any

from ragjudge.analysis._meanings import run_meanings
from ragjudge.errors import AnalysisError
from ragjudge.schema import Sample, Score, ScoreMeaning
from ragjudge.stats import Interval, TrialValues, group_difference, trial_values, verdict_agreement
from ragjudge.store._judge_calls import CallUsage
from ragjudge.store._store import Store

__all__ = ["MethodRow", "MethodsTable", "methods_for_run"]

_Z = 1.959963984540054
_MAX_PAIRS = 200_000


@dataclass(frozen=True)
class MethodRow:
    """One judge method's figures (``None`` where a figure is undefined)."""

    metric: str
    kind: str | None
    samples: int
    trials: int
    scale: float | None
    difference: float | None
    difference_ci: Interval | None
    ordered_pairs: float | None
    pairs: int
    spread: float | None
    within_sd: float | None
    modal_agreement: float | None
    item_agreement: float | None
    items_all_agree: float | None
    strictness: float | None
    items_per_sample: float | None
    calls_per_sample: float | None
    input_tokens_per_sample: float | None
    output_tokens_per_sample: float | None
    cost_per_sample: float | None

    def share_of_scale(self, value: float | None) -> float | None:
        """``value`` as a share of the scale."""
        if value is None or not self.scale:
            return None
        return value / self.scale

    def to_dict(self) -> dict[str, Any]:
        """JSON-able form, with the scale-relative figures beside the raw ones."""
        found = asdict(self)
        ci = self.difference_ci
        found["difference_ci"] = None if ci is None else [ci.low, ci.high]
        for name in ("difference", "spread", "within_sd"):
            found[f"{name}_of_scale"] = self.share_of_scale(getattr(self, name))
        return found


@dataclass(frozen=True)
class MethodsTable:
    """Every method of a run; ``paired`` when the set holds several responses to one
    request (``requests`` such requests)."""

    run_id: str
    trials: int
    paired: bool
    requests: int
    rows: list[MethodRow]

    def to_dict(self) -> dict[str, Any]:
        """JSON-able form."""
        return {
            "run_id": self.run_id,
            "trials": self.trials,
            "paired": self.paired,
            "requests": self.requests,
            "methods": [r.to_dict() for r in self.rows],
        }


def methods_for_run(
    store: Store,
    run_id: str,
    *,
    metrics: Sequence[str] | None = None,
    seed: int = 0,
) -> MethodsTable:
    """Compare the judge methods (scores) of a stored run: by default the score named
    after each configured metric instance (``general``, ``specific``, ``rubric``)."""
    run = store.run(run_id)
    scores = store.scores(run.run_id)
    names = _method_names(run.config, {s.metric for _, _, s in scores}, metrics)
    groups = _request_groups(store.samples(run.run_id))
    paired = any(len(g) > 1 for g in groups)
    usage = store.call_usage(run.run_id)
    meanings = run_meanings(run)
    kinds = _kinds(run.config)
    rows = []
    for name in names:
        mine = [(rid, s) for rid, _, s in scores if s.metric == name]
        meaning = meanings.get(name, ScoreMeaning())
        rows.append(_method_row(name, kinds.get(name), mine, meaning, groups, paired, usage, seed))
    return MethodsTable(run.run_id, run.trials, paired, sum(len(g) > 1 for g in groups), rows)


def _method_names(
    config: Mapping[str, Any], present: set[str], chosen: Sequence[str] | None
) -> list[str]:
    if chosen:
        unknown = [m for m in chosen if m not in present]
        if unknown:
            raise AnalysisError(f"the run has no score named {', '.join(unknown)}")
        return list(chosen)
    named = [n for n in _kinds(config) if n in present]
    return named or sorted(present)


def _kinds(config: Mapping[str, Any]) -> dict[str, str]:
    """Metric instance name → the metric it is, from the run's config."""
    found: dict[str, str] = {}
    for spec in config.get("metrics") or []:
        if isinstance(spec, str):
            found[spec] = spec
        elif isinstance(spec, Mapping):
            kind = spec.get("metric") or spec.get("name")
            if isinstance(kind, str):
                found[str(spec.get("name") or kind)] = kind
    return found


def _request_groups(samples: Sequence[Sample]) -> list[list[str]]:
    """Samples with the same request (every message), in the set's order."""
    groups: dict[str, list[str]] = defaultdict(list)
    for sample in samples:
        key = json.dumps([(m.role, m.content) for m in sample.request.messages], ensure_ascii=False)
        groups[key].append(sample.request_id)
    return list(groups.values())


def _method_row(
    name: str,
    kind: str | None,
    scores: Sequence[tuple[str, Score]],
    meaning: ScoreMeaning,
    groups: Sequence[Sequence[str]],
    paired: bool,
    usage: Mapping[int, CallUsage],
    seed: int,
) -> MethodRow:
    per_sample = _values_by_sample(scores, meaning)
    stats = {rid: trial_values(v) for rid, v in per_sample.items() if v}
    scale = _scale(meaning)
    difference, ci = _difference(per_sample, groups, seed) if paired else (None, None)
    ordered, pairs = _ordered_pairs(stats, groups if paired else [list(stats)], seed)
    means = [s.mean for s in stats.values()]
    sds = [s.sd for s in stats.values() if s.sd is not None]
    item_shares, all_agree = _item_agreement(scores)
    cost = _cost(scores, usage)
    return MethodRow(
        metric=name,
        kind=kind,
        samples=len(stats),
        trials=max((s.n for s in stats.values()), default=0),
        scale=scale,
        difference=difference,
        difference_ci=ci,
        ordered_pairs=ordered,
        pairs=pairs,
        spread=statistics.stdev(means) if len(means) > 1 else None,
        within_sd=statistics.fmean(sds) if sds else None,
        modal_agreement=statistics.fmean(s.mode_share for s in stats.values()) if stats else None,
        item_agreement=item_shares,
        items_all_agree=all_agree,
        strictness=_position(statistics.fmean(means), meaning, scale) if means else None,
        items_per_sample=_items_per_sample(scores),
        **cost,
    )


def _values_by_sample(
    scores: Sequence[tuple[str, Score]], meaning: ScoreMeaning
) -> dict[str, list[float]]:
    """Each sample's trial values, the values the mean leaves out dropped."""
    found: dict[str, list[float]] = defaultdict(list)
    for rid, score in scores:
        if score.value is not None and score.value not in meaning.excluded:
            found[rid].append(float(score.value))
        else:
            found.setdefault(rid, [])
    return dict(found)


def _scale(meaning: ScoreMeaning) -> float | None:
    if meaning.high is None:
        return None
    span = meaning.high - (meaning.low if meaning.low is not None else 0.0)
    return span if span > 0 else None


def _position(mean: float, meaning: ScoreMeaning, scale: float | None) -> float | None:
    if scale is None:
        return None
    return (mean - (meaning.low if meaning.low is not None else 0.0)) / scale


def _difference(
    per_sample: Mapping[str, Sequence[float]], groups: Sequence[Sequence[str]], seed: int
) -> tuple[float | None, Interval | None]:
    """First minus second response of every request with several, over requests."""
    pairs = [(per_sample.get(g[0], []), per_sample.get(g[1], [])) for g in groups if len(g) > 1]
    pairs = [(a, b) for a, b in pairs if a and b]
    if not pairs:
        return None, None
    return group_difference(pairs, seed=seed)


def _ordered_pairs(
    stats: Mapping[str, TrialValues], groups: Sequence[Sequence[str]], seed: int
) -> tuple[float | None, int]:
    """The share of sample pairs (within each group) whose means are told apart."""
    candidates = [(a, b) for g in groups for a, b in combinations([r for r in g if r in stats], 2)]
    if len(candidates) > _MAX_PAIRS:
        import random

        candidates = random.Random(seed).sample(candidates, _MAX_PAIRS)
    if not candidates:
        return None, 0
    told = sum(_told_apart(stats[a], stats[b]) for a, b in candidates)
    return told / len(candidates), len(candidates)


def _told_apart(first: TrialValues, second: TrialValues) -> bool:
    gap = abs(first.mean - second.mean)
    variance = sum((s.sd or 0.0) ** 2 / s.n for s in (first, second))
    return gap > _Z * math.sqrt(variance) if variance > 0 else gap > 1e-12


def _item_agreement(scores: Sequence[tuple[str, Score]]) -> tuple[float | None, float | None]:
    """Mean share of trials agreeing with each item's majority, and the share of items
    on which every trial agrees (rubric scores only)."""
    verdicts: dict[tuple[str, int], list[bool]] = defaultdict(list)
    for rid, score in scores:
        if score.value is None:
            continue
        for index, item in enumerate(score.details.get("result_by_rubrics") or []):
            verdicts[(rid, index)].append(bool(item.get("criteria_met")))
    if not verdicts:
        return None, None
    agreements = [verdict_agreement(v) for v in verdicts.values()]
    return (
        statistics.fmean(a.agreement for a in agreements),
        statistics.fmean(a.all_agree for a in agreements),
    )


def _items_per_sample(scores: Sequence[tuple[str, Score]]) -> float | None:
    counts = [
        len(s.details.get("result_by_rubrics") or []) or 1 for _, s in scores if s.value is not None
    ]
    return statistics.fmean(counts) if counts else None


def _cost(
    scores: Sequence[tuple[str, Score]], usage: Mapping[int, CallUsage]
) -> dict[str, float | None]:
    """Calls, tokens and cost per scored sample and trial (calls shared by several
    scores count for each)."""
    scored = [s for _, s in scores if s.skipped is None]
    if not scored:
        return dict.fromkeys(
            (
                "calls_per_sample",
                "input_tokens_per_sample",
                "output_tokens_per_sample",
                "cost_per_sample",
            )
        )
    calls = [usage[c] for s in scored for c in dict.fromkeys(s.judge_call_ids) if c in usage]
    costs = [c for _, _, c in calls if c is not None]
    n = len(scored)
    return {
        "calls_per_sample": len(calls) / n,
        "input_tokens_per_sample": sum(i for i, _, _ in calls) / n,
        "output_tokens_per_sample": sum(o for _, o, _ in calls) / n,
        "cost_per_sample": sum(costs) / n if costs else None,
    }
