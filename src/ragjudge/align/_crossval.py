"""K-fold cross-validation of a candidate judge: the labelled samples are split into
seeded folds; for each, the candidate learns from the other folds' labels and judges
this fold's samples afresh, and its verdicts are held against this fold's labels,
beside the judge's stored verdicts on the same samples. No candidate is measured on a
label it learned from."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Sequence
from dataclasses import dataclass

from ragjudge.align._labelled import LabelledSample
from ragjudge.align._learning import Learner
from ragjudge.align._result import Agreement, Candidate, FoldResult
from ragjudge.errors import ConfigError
from ragjudge.metrics import Metric, MetricContext
from ragjudge.schema import ScoreMeaning
from ragjudge.stats import Estimate, binary_agreement, ordinal_agreement

__all__ = [
    "MIN_PER_FOLD",
    "Verdicts",
    "agreement",
    "before_and_after",
    "cross_validate",
    "split_folds",
]

MIN_PER_FOLD = 2
"""The fewest labelled samples a fold may hold."""


@dataclass(frozen=True)
class Verdicts:
    """Per scored held-out sample: the people's pass, the stored judge's, the candidate's."""

    human: tuple[bool, ...]
    before: tuple[bool, ...]
    after: tuple[bool, ...]
    human_values: tuple[float, ...] = ()
    before_values: tuple[float, ...] = ()
    after_values: tuple[float, ...] = ()


def split_folds(ids: Sequence[str], folds: int, seed: int) -> list[list[str]]:
    """``ids`` shuffled (seeded) and dealt into ``folds`` folds of near-equal size;
    :class:`ConfigError` when there are too few for that many folds."""
    if folds < 2:
        raise ConfigError(f"--folds must be 2 or more, not {folds}")
    if len(ids) < folds * MIN_PER_FOLD:
        raise ConfigError(
            f"{len(ids)} labelled samples are too few for {folds} folds (each needs at "
            f"least {MIN_PER_FOLD}, so at least {folds * MIN_PER_FOLD}): label more "
            "samples or lower --folds"
        )
    shuffled = list(ids)
    random.Random(seed).shuffle(shuffled)
    return [shuffled[k::folds] for k in range(folds)]


async def cross_validate(
    learner: Learner,
    candidate: Candidate,
    labelled: Sequence[LabelledSample],
    folds: list[list[str]],
    ctx: MetricContext,
    meaning: ScoreMeaning,
) -> tuple[list[FoldResult], Verdicts]:
    """Each fold's result and the verdicts pooled over every fold's held-out samples."""
    by_id = {s.request_id: s for s in labelled}
    results: list[FoldResult] = []
    scored_all: list[tuple[LabelledSample, float]] = []
    for number, held_ids in enumerate(folds, 1):
        held = [by_id[i] for i in held_ids]
        learned_from = [s for s in labelled if s.request_id not in set(held_ids)]
        learned = await learner.learn(candidate, learned_from)
        judge = learner.candidate_judge(learned)
        values = await asyncio.gather(*(_judged_value(judge, s, ctx, learner.score) for s in held))
        valued = [(s, v) for s, v in zip(held, values, strict=True) if v is not None]
        scored_all += valued
        scored = [(s, bool(meaning.passed(v))) for s, v in valued]
        results.append(_fold_result(number, held_ids, learned.shown, scored))
    return results, _verdicts(scored_all, meaning)


def _verdicts(scored: list[tuple[LabelledSample, float]], meaning: ScoreMeaning) -> Verdicts:
    return Verdicts(
        tuple(s.human_pass for s, _ in scored),
        tuple(s.judge_pass for s, _ in scored),
        tuple(bool(meaning.passed(v)) for _, v in scored),
        tuple(s.human for s, _ in scored),
        tuple(s.judge_value if s.judge_value is not None else float("nan") for s, _ in scored),
        tuple(v for _, v in scored),
    )


def _fold_result(
    number: int,
    held_ids: list[str],
    shown: tuple[str, ...],
    scored: list[tuple[LabelledSample, bool]],
) -> FoldResult:
    n = len(scored)
    before = sum(s.judge_pass == s.human_pass for s, _ in scored) / n if n else None
    after = sum(p == s.human_pass for s, p in scored) / n if n else None
    return FoldResult(number, tuple(held_ids), shown, n, before, after)


async def _judged_value(
    judge: Metric, labelled: LabelledSample, ctx: MetricContext, score: str
) -> float | None:
    """The candidate's value of the sample (of the score named ``score``, when the
    judge gives several); None when it could not score it."""
    scores = await judge.score(labelled.sample, labelled.output, ctx)
    scores = [s for s in scores if s.metric == score] or scores
    values = [s.value for s in scores if s.error is None and s.value is not None]
    return values[0] if values else None


def before_and_after(
    verdicts: Verdicts, *, on_scale: bool, seed: int
) -> tuple[Agreement, Agreement]:
    """The agreement of the run's judge and of the candidate with the people, on the
    same held-out samples (their values compared too for labels on a scale)."""
    people = verdicts.human_values
    before = agreement(
        verdicts.human,
        verdicts.before,
        seed,
        (people, verdicts.before_values) if on_scale else None,
    )
    after = agreement(
        verdicts.human, verdicts.after, seed, (people, verdicts.after_values) if on_scale else None
    )
    return before, after


def agreement(
    human: Sequence[bool],
    judged: Sequence[bool],
    seed: int,
    values: tuple[Sequence[float], Sequence[float]] | None = None,
) -> Agreement:
    """Accuracy and Cohen's kappa of ``judged`` against ``human``, with bootstrap
    intervals; with ``values`` (the people's and the judge's, labels on a scale) the
    exact agreement and the quadratic-weighted kappa of the values rounded to whole
    points of the scale too."""
    if not human:
        return Agreement(0, Estimate(None), Estimate(None))
    found = binary_agreement(
        [float(v) for v in judged], [float(v) for v in human], threshold=0.5, seed=seed
    )
    if values is None:
        return Agreement(found.n, found.accuracy, found.kappa)
    people, judge = ([float(round(v)) for v in side] for side in values)
    ordinal = ordinal_agreement(judge, people, seed=seed)
    return Agreement(found.n, found.accuracy, found.kappa, ordinal.exact, ordinal.weighted_kappa)
