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
from ragjudge.stats import Estimate, binary_agreement

__all__ = ["MIN_PER_FOLD", "Verdicts", "agreement", "cross_validate", "split_folds"]

MIN_PER_FOLD = 2
"""The fewest labelled samples a fold may hold."""


@dataclass(frozen=True)
class Verdicts:
    """Per scored held-out sample: the people's pass, the stored judge's, the candidate's."""

    human: tuple[bool, ...]
    before: tuple[bool, ...]
    after: tuple[bool, ...]


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
    human: list[bool] = []
    before: list[bool] = []
    after: list[bool] = []
    for number, held_ids in enumerate(folds, 1):
        held = [by_id[i] for i in held_ids]
        learned_from = [s for s in labelled if s.request_id not in set(held_ids)]
        learned = await learner.learn(candidate, learned_from)
        judge = learner.candidate_judge(learned)
        passes = await asyncio.gather(*(_judged_pass(judge, s, ctx, meaning) for s in held))
        scored = [(s, bool(p)) for s, p in zip(held, passes, strict=True) if p is not None]
        human += [s.human_pass for s, _ in scored]
        before += [s.judge_pass for s, _ in scored]
        after += [p for _, p in scored]
        results.append(_fold_result(number, held_ids, learned.shown, scored))
    return results, Verdicts(tuple(human), tuple(before), tuple(after))


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


async def _judged_pass(
    judge: Metric, labelled: LabelledSample, ctx: MetricContext, meaning: ScoreMeaning
) -> bool | None:
    """Whether the candidate passes the sample; None when it could not score it."""
    scores = await judge.score(labelled.sample, labelled.output, ctx)
    values = [s.value for s in scores if s.error is None and s.value is not None]
    return meaning.passed(values[0]) if values else None


def agreement(human: Sequence[bool], judged: Sequence[bool], seed: int) -> Agreement:
    """Accuracy and Cohen's kappa of ``judged`` against ``human``, with bootstrap intervals."""
    if not human:
        return Agreement(0, Estimate(None), Estimate(None))
    found = binary_agreement(
        [float(v) for v in judged], [float(v) for v in human], threshold=0.5, seed=seed
    )
    return Agreement(found.n, found.accuracy, found.kappa)
