"""The judge table: from one run, every metric × judge × context mode against human
labels, with what each judge cost — the layout of the answer-accuracy paper's table of
judge models and context modes against expert scores.

A row is one score of the run, named by its stored meaning: the metric (``meaning.metric``,
else the score's name), the judge (``meaning.judge``, else the run's single judge model;
an ensemble names the judges it combines) and the contexts the judge was shown
(``meaning.contexts``). Per human label a row carries the figures the meta-evaluation
computes for that kind of label (:mod:`ragjudge.meta._evaluation`, nothing computed
again here): Spearman, Kendall and Pearson correlations for a scale, accuracy, Cohen's
kappa and AUC for a yes/no label, each with its bootstrap interval and ``n``. The cost
is the sum over the score's distinct judge calls as stored, over every sample and
trial; the cost per 1,000 samples divides it by the samples the score was computed
for. Judges are then ranked per metric and context mode (:mod:`ragjudge.meta._ranking`).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from ragjudge.errors import ConfigError
from ragjudge.meta._evaluation import meta_for_run
from ragjudge.meta._labels import HumanLabel, LabelKind
from ragjudge.meta._ranking import JudgeRanking, RankedJudge, rank_group
from ragjudge.meta._result import MetaBlock, MetaRow, MetaTable
from ragjudge.meta._table_rows import (
    BINARY_FIGURES,
    SCALE_FIGURES,
    JudgeCost,
    JudgeTable,
    JudgeTableRow,
    LabelFigures,
    primary_figure,
)
from ragjudge.schema import Score, ScoreMeaning
from ragjudge.stats import Estimate
from ragjudge.store._judge_calls import CallUsage
from ragjudge.store._store import Store

__all__ = [
    "BINARY_FIGURES",
    "SCALE_FIGURES",
    "JudgeCost",
    "JudgeTable",
    "JudgeTableRow",
    "LabelFigures",
    "build_judge_table",
    "judge_table_for_run",
    "primary_figure",
]


def judge_table_for_run(
    store: Store,
    run_id: str,
    human: Sequence[str | HumanLabel],
    *,
    within: float = 0.05,
    **options: Any,
) -> JudgeTable:
    """The judge table of a stored run (a unique prefix of its id is enough) against
    the human labels ``human``; ``options`` are :func:`~ragjudge.meta.meta_for_run`'s
    (``combine``, ``kind``, ``acceptable``, ``extra``, ``seed`` …) except ``by`` and
    ``pairs``: the table is over all samples, one answer each."""
    if options.get("by") is not None or options.get("pairs") is not None:
        raise ConfigError("the judge table is over all samples: leave out --by and --pairs")
    if within < 0:
        raise ConfigError(f"--within must be 0 or more, not {within:g}")
    run = store.run(run_id)
    meta = meta_for_run(store, run.run_id, human, **options)
    costs = score_costs(store.scores(run.run_id), store.call_usage(run.run_id))
    return build_judge_table(meta, run.meanings or {}, run.config, costs, within=within)


def score_costs(
    scores: Sequence[tuple[str, int, Score]], usage: Mapping[int, CallUsage]
) -> dict[str, JudgeCost]:
    """Each score name's judge calls and cost over every sample and trial (a call
    shared by several trials or scores of the same name counts once)."""
    calls: dict[str, dict[int, None]] = defaultdict(dict)
    samples: dict[str, set[str]] = defaultdict(set)
    for request_id, _trial, score in scores:
        if score.skipped is not None:
            continue
        samples[score.metric].add(request_id)
        calls[score.metric].update(dict.fromkeys(score.judge_call_ids))
    found = {}
    for name, sampled in samples.items():
        known = [usage[c] for c in calls[name] if c in usage]
        priced = [u.cost for u in known if u.cost is not None]
        found[name] = JudgeCost(
            calls=len(known),
            cost=sum(priced) if priced else None,
            unpriced=len(known) - len(priced),
            samples=len(sampled),
        )
    return found


def build_judge_table(
    meta: MetaTable,
    meanings: Mapping[str, ScoreMeaning],
    config: Mapping[str, Any],
    costs: Mapping[str, JudgeCost],
    *,
    within: float = 0.05,
) -> JudgeTable:
    """The judge table from a run's meta-evaluation (one block per human label, no
    groups), its meanings, its config (for the judges' models) and its scores' costs."""
    blocks = [b for b in meta.blocks if b.group is None]
    if not blocks:
        raise ConfigError("the judge table needs the meta-evaluation over all samples")
    models = judge_models(config)
    rows = [
        _table_row(row.metric, blocks, meanings.get(row.metric), models, costs)
        for row in blocks[0].rows
    ]
    rows = _ensembles_priced(_ordered(rows))
    humans = {b.human: b.kind for b in blocks}
    return JudgeTable(
        run_id=meta.run_id,
        confidence=meta.confidence,
        humans=humans,
        rows=rows,
        rankings=rank_judges(rows, humans, within),
        within=within,
    )


def judge_models(config: Mapping[str, Any]) -> dict[str | None, str]:
    """The judges' models by judge name (``judges:``), and under None the single
    ``judge:``'s model."""
    found: dict[str | None, str] = {}
    single = _model_of(config.get("judge"))
    if single is not None:
        found[None] = single
    judges = config.get("judges")
    if isinstance(judges, Mapping):
        for name, spec in judges.items():
            model = _model_of(spec)
            if model is not None:
                found[str(name)] = model
    return found


def _model_of(spec: Any) -> str | None:
    if isinstance(spec, str):
        return spec
    if isinstance(spec, Mapping) and isinstance(spec.get("model"), str):
        return str(spec["model"])
    return None


def _table_row(
    score: str,
    blocks: Sequence[MetaBlock],
    meaning: ScoreMeaning | None,
    models: Mapping[str | None, str],
    costs: Mapping[str, JudgeCost],
) -> JudgeTableRow:
    ensemble = meaning.ensemble if meaning is not None else ()
    judge, model = _judge_of(meaning, models)
    return JudgeTableRow(
        score=score,
        metric=(meaning.metric if meaning is not None else None) or score,
        judge=judge,
        model=model,
        contexts=meaning.contexts if meaning is not None else None,
        ensemble=ensemble,
        higher_is_better=meaning is None or not meaning.lower_is_better,
        labels={b.human: _label_figures(b, _row_named(b, score)) for b in blocks},
        cost=costs.get(score, JudgeCost(calls=0, cost=None, unpriced=0, samples=0)),
    )


def _judge_of(
    meaning: ScoreMeaning | None, models: Mapping[str | None, str]
) -> tuple[str | None, str | None]:
    """The judge's name and model: a named judge, an ensemble, the run's single judge
    (named by its model), or none (a score without a stored meaning, from metadata)."""
    if meaning is None:
        return None, None
    if meaning.ensemble:
        return "ensemble of " + " + ".join(meaning.ensemble), None
    if meaning.judge is not None:
        return meaning.judge, models.get(meaning.judge)
    single = models.get(None)
    return single, single


def _row_named(block: MetaBlock, score: str) -> MetaRow:
    return next(r for r in block.rows if r.metric == score)


def _label_figures(block: MetaBlock, row: MetaRow) -> LabelFigures:
    if block.kind == "binary":
        binary = row.agreement.binary if row.agreement is not None else None
        figures = {name: getattr(binary, name) for name in BINARY_FIGURES} if binary else {}
        n = binary.n if binary is not None else row.n
    else:
        figures = {
            name: Estimate(corr.estimate, corr.ci)
            for name in SCALE_FIGURES
            if (corr := row.correlations.get(name)) is not None
        }
        n = row.n
    return LabelFigures(human=block.human, kind=block.kind, n=n, figures=figures)


def _ordered(rows: list[JudgeTableRow]) -> list[JudgeTableRow]:
    """Grouped by metric (in the run's order), then judge (an ensemble after the judges
    it combines), then context mode."""
    metrics = list(dict.fromkeys(r.metric for r in rows))
    judges = list(dict.fromkeys(r.judge for r in rows))
    contexts = list(dict.fromkeys(r.contexts for r in rows))
    return sorted(
        rows,
        key=lambda r: (
            metrics.index(r.metric),
            bool(r.ensemble),
            judges.index(r.judge),
            contexts.index(r.contexts),
        ),
    )


def _ensembles_priced(rows: list[JudgeTableRow]) -> list[JudgeTableRow]:
    """An ensemble whose score holds no calls of its own costs what its judges' scores
    of the same metric and context mode cost together."""
    priced = []
    for row in rows:
        if row.ensemble and row.cost.calls == 0:
            members = [
                r.cost
                for r in rows
                if r.judge in row.ensemble and (r.metric, r.contexts) == (row.metric, row.contexts)
            ]
            row = _with_cost(row, _summed(members, row.cost.samples))
        priced.append(row)
    return priced


def _summed(costs: Sequence[JudgeCost], samples: int) -> JudgeCost:
    priced = [c.cost for c in costs if c.cost is not None]
    return JudgeCost(
        calls=sum(c.calls for c in costs),
        cost=sum(priced) if priced else None,
        unpriced=sum(c.unpriced for c in costs),
        samples=samples or max((c.samples for c in costs), default=0),
    )


def _with_cost(row: JudgeTableRow, cost: JudgeCost) -> JudgeTableRow:
    return replace(row, cost=cost)


def rank_judges(
    rows: Sequence[JudgeTableRow], humans: Mapping[str, LabelKind], within: float
) -> list[JudgeRanking]:
    """Per human label, metric and context mode with at least two judges, the judges
    ranked (scores no judge gave are left out)."""
    groups: dict[tuple[str, str | None], list[JudgeTableRow]] = defaultdict(list)
    for row in rows:
        if row.judge is not None:
            groups[(row.metric, row.contexts)].append(row)
    return [
        rank_group(
            human,
            metric,
            contexts,
            primary_figure(kind),
            [_ranked(row, human) for row in members],
            within,
        )
        for human, kind in humans.items()
        for (metric, contexts), members in groups.items()
        if len(members) >= 2
    ]


def _ranked(row: JudgeTableRow, human: str) -> RankedJudge:
    found = row.labels[human]
    agreement = found.primary
    if not row.higher_is_better:
        agreement = _turned(agreement)
    return RankedJudge(
        judge=row.judge or "",
        model=row.model,
        agreement=agreement,
        n=found.n,
        calls=row.cost.calls,
        cost_per_thousand=row.cost.per_thousand,
    )


def _turned(estimate: Estimate) -> Estimate:
    """A lower-is-better score's figure read the other way round."""
    if estimate.value is None:
        return estimate
    ci = estimate.ci
    turned_ci = None if ci is None else replace(ci, low=-ci.high, high=-ci.low)
    return Estimate(-estimate.value, turned_ci)
