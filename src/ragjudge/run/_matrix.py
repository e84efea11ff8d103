"""A judge matrix: every judged metric of a run with several named judges (the config's
``judges``) runs once under each judge it uses, its scores named ``NAME@JUDGE``; a
metric with ``ensemble`` also stores its judges' combined verdict under its own name.

A metric's mapping chooses its judges (``judges: [mini, big]``) and how they are
combined (``ensemble: majority | mean | median``); these keys are read here, so no
metric's options declare them.
"""

from __future__ import annotations

import asyncio
import copy
import statistics
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any, Literal, cast, get_args

from ragjudge._util.suggest import did_you_mean
from ragjudge.metrics import Metric, MetricContext
from ragjudge.run._wrapping import wrapped_copy
from ragjudge.schema import Output, Sample, Score, ScoreMeaning

__all__ = [
    "ENSEMBLE_METHODS",
    "EnsembleMetric",
    "JudgeChoice",
    "bind_to_judge",
    "judge_choice",
    "judged_metrics",
]

EnsembleMethod = Literal["majority", "mean", "median"]
ENSEMBLE_METHODS: tuple[str, ...] = get_args(EnsembleMethod)
"""How an ensemble combines its judges' verdicts: the verdict most judges gave (yes/no
and choice scores; a tie is that sample's error), or the mean or median (scales)."""


class JudgeChoice:
    """What a metric's mapping says about judges: the ``judges`` it uses (None: every
    judge of the run) and its ``ensemble`` method (None: no combined score)."""

    def __init__(self, judges: list[str] | None, ensemble: EnsembleMethod | None) -> None:
        self.judges = judges
        self.ensemble = ensemble


def judge_choice(spec: Any, where: str) -> tuple[Any, JudgeChoice]:
    """The spec without its ``judges`` and ``ensemble`` keys, and what they say; a
    malformed value is a ``ValueError`` naming the metric (``where``) and the key."""
    if not isinstance(spec, dict) or not ({"judges", "ensemble"} & spec.keys()):
        return spec, JudgeChoice(None, None)
    rest = dict(spec)
    judges = rest.pop("judges", None)
    ensemble = rest.pop("ensemble", None)
    if judges is not None and (
        not isinstance(judges, list) or not all(isinstance(j, str) for j in judges) or not judges
    ):
        raise ValueError(f"{where}: 'judges' must be a list of judge names, not {judges!r}")
    if ensemble is not None and ensemble not in ENSEMBLE_METHODS:
        known = ", ".join(ENSEMBLE_METHODS)
        raise ValueError(f"{where}: 'ensemble' must be one of {known}, not {ensemble!r}")
    return rest, JudgeChoice(judges, cast("EnsembleMethod | None", ensemble))


def judged_metrics(
    metric: Metric, choice: JudgeChoice, run_judges: Sequence[str], where: str
) -> list[Metric]:
    """``metric`` as the run scores it: once per judge it uses (a judged metric of a
    run with named judges), wrapped in an :class:`EnsembleMetric` when its judges are
    combined; unchanged otherwise. A choice that cannot apply is a ``ValueError``."""
    if choice.judges is not None or choice.ensemble is not None:
        _check_choice(metric, choice, run_judges, where)
    if not run_judges or not metric.needs_judge:
        return [metric]
    names = choice.judges or list(run_judges)
    bound = [bind_to_judge(metric, name) for name in names]
    if choice.ensemble is None:
        return bound
    return [EnsembleMetric(metric, bound, choice.ensemble)]


def _check_choice(
    metric: Metric, choice: JudgeChoice, run_judges: Sequence[str], where: str
) -> None:
    if not metric.needs_judge:
        raise ValueError(f"{where}: calls no judge, so 'judges' and 'ensemble' do not apply")
    if not run_judges:
        raise ValueError(
            f"{where}: 'judges' and 'ensemble' choose among the config's 'judges', "
            "and the config names none"
        )
    for name in choice.judges or []:
        if name not in run_judges:
            hint = did_you_mean(name, run_judges)
            raise ValueError(
                f"{where}: unknown judge {name!r}; {hint}the config's judges: "
                + ", ".join(run_judges)
            )
    used = choice.judges or list(run_judges)
    if choice.ensemble is not None and len(set(used)) < 2:
        raise ValueError(f"{where}: an ensemble combines at least two judges; it has {used}")
    if choice.ensemble in ("mean", "median") and any(m.binary for m in metric.meanings().values()):
        raise ValueError(
            f"{where}: a yes/no score is combined by 'ensemble: majority', not {choice.ensemble!r}"
        )


class _BoundToJudge(Metric):
    """Mixed into a copy of a metric's class: the copy scores under one named judge,
    its scores and their meanings named ``NAME@JUDGE``."""

    judge_name: str

    def _suffixed(self, name: str) -> str:
        tail = f"@{self.judge_name}"
        return name if name.endswith(tail) else name + tail

    def _bound(self, scores: list[Score]) -> list[Score]:
        return [
            s.model_copy(update={"metric": self._suffixed(s.metric), "judge": self.judge_name})
            for s in scores
        ]

    def _own_meanings(self, meanings: Mapping[str, ScoreMeaning]) -> dict[str, ScoreMeaning]:
        contexts = context_mode(self)
        return {
            self._suffixed(name): meaning.model_copy(
                update={
                    "judge": self.judge_name,
                    "metric": name.removesuffix(f"@{self.judge_name}"),
                    "contexts": contexts,
                }
            )
            for name, meaning in meanings.items()
        }

    def meanings(self) -> dict[str, ScoreMeaning]:
        return self._own_meanings(super().meanings())

    def meanings_for(self, samples: Sequence[Sample]) -> dict[str, ScoreMeaning]:
        return self._own_meanings(super().meanings_for(samples))

    def score_names_for(self, sample: Sample) -> list[str]:
        return [self._suffixed(n) for n in super().score_names_for(sample)]

    async def score(self, sample: Sample, output: Output, ctx: MetricContext) -> list[Score]:
        return self._bound(await super().score(sample, output, ctx))

    def score_now(self, sample: Sample, output: Output, ctx: MetricContext) -> list[Score]:
        return self._bound(super().score_now(sample, output, ctx))

    def failed(self, error: str, **kwargs: Any) -> list[Score]:
        return self._bound(super().failed(error, **kwargs))

    def not_applicable(self, reason: str, sample: Sample) -> list[Score]:
        return self._bound(super().not_applicable(reason, sample))


def bind_to_judge(metric: Metric, judge: str) -> Metric:
    """A copy of ``metric`` that scores under the named ``judge`` (the runner hands it
    that judge's context): its scores are ``NAME@JUDGE`` with ``Score.judge`` set, and
    their meanings carry the judge, the unsuffixed name and the contexts shown."""
    return wrapped_copy(metric, _BoundToJudge, judge_name=judge)


def judge_of(metric: Metric) -> str | None:
    """The named judge ``metric`` scores under (:func:`bind_to_judge`), or None."""
    name = getattr(metric, "judge_name", None)
    return name if isinstance(name, str) else None


def context_mode(metric: Metric) -> str | None:
    """The contexts a metric's judge is shown (its ``contexts`` option), if it has one."""
    mode = getattr(getattr(metric, "options", None), "contexts", None)
    return None if mode is None else str(mode)


class EnsembleMetric(Metric):
    """A judged metric under several named judges whose verdicts are combined: it gives
    every judge's scores (``NAME@JUDGE``) and, under the metric's own names, the
    combined verdict with ``details = {"verdicts": {judge: value}, "agreement": bool}``
    (whether every judge gave the same verdict)."""

    needs_judge = True

    def __init__(self, base: Metric, members: Sequence[Metric], method: EnsembleMethod) -> None:
        self.base = base
        self.members = list(members)
        self.method = method
        self.name = base.name
        self.options = base.options
        self.requires = base.requires
        self.rows_not_applicable = base.rows_not_applicable

    @property
    def judges(self) -> list[str]:
        """The judges combined, in the order they are listed."""
        return [cast(str, judge_of(m)) for m in self.members]

    @property
    def needs_retriever(self) -> bool:
        return self.base.needs_retriever

    def embedding_specs(self) -> list[str]:
        return self.base.embedding_specs()

    def extras(self) -> list[str]:
        return self.base.extras()

    def model_roles(self) -> dict[str, str]:
        return self.base.model_roles()

    def check_target(self, target: Any) -> str | None:
        return self.base.check_target(target)

    def needed_in_some_row(self) -> dict[str, str]:
        return self.base.needed_in_some_row()

    def _combined_meanings(self, plain: Mapping[str, ScoreMeaning]) -> dict[str, ScoreMeaning]:
        contexts = context_mode(self.base)
        update = {"ensemble": tuple(self.judges), "contexts": contexts}
        return {name: m.model_copy(update=update) for name, m in plain.items()}

    def meanings(self) -> dict[str, ScoreMeaning]:
        found = {k: v for m in self.members for k, v in m.meanings().items()}
        return {**found, **self._combined_meanings(self.base.meanings())}

    def meanings_for(self, samples: Sequence[Sample]) -> dict[str, ScoreMeaning]:
        found = {k: v for m in self.members for k, v in m.meanings_for(samples).items()}
        return {**found, **self._combined_meanings(self.base.meanings_for(samples))}

    def score_names_for(self, sample: Sample) -> list[str]:
        members = [n for m in self.members for n in m.score_names_for(sample)]
        return [*members, *self.base.score_names_for(sample)]

    async def score(self, sample: Sample, output: Output, ctx: MetricContext) -> list[Score]:
        per_judge = await asyncio.gather(
            *(_member_scores(m, sample, output, ctx) for m in self.members)
        )
        given = [s for scores in per_judge for s in scores]
        by_name = {s.metric: s for s in given}
        combined = [
            combine_verdicts(
                name, {j: by_name.get(f"{name}@{j}") for j in self.judges}, self.method
            )
            for name in self.base.score_names_for(sample)
        ]
        return [*given, *combined]


async def _member_scores(
    member: Metric, sample: Sample, output: Output, ctx: MetricContext
) -> list[Score]:
    """One judge's scores of an ensemble, in that judge's context; a metric that raises
    gives its error as each score's."""
    own = ctx.judges.get(cast(str, judge_of(member)), ctx)
    if ctx.models and not own.models:  # the ensemble's agents serve each judge's run
        own = copy.copy(own)
        own.models = ctx.models
    try:
        return await member.score(sample, output, own)
    except Exception as exc:  # a metric bug or bad row becomes this judge's error
        return member.failed(f"{type(exc).__name__}: {exc}", sample=sample)


def combine_verdicts(
    name: str, verdicts: Mapping[str, Score | None], method: EnsembleMethod
) -> Score:
    """The combined score ``name`` from each judge's score: skipped when every judge
    skipped the sample, an error when a judge gave no verdict or (``majority``) the
    top verdicts tie, else the verdict most judges gave, or the mean or median."""
    scores = [s for s in verdicts.values() if s is not None]
    if scores and all(s.skipped for s in scores) and len(scores) == len(verdicts):
        return Score.not_applicable(name, cast(str, scores[0].skipped))
    values = {j: (s.value if s is not None else None) for j, s in verdicts.items()}
    details: dict[str, Any] = {"verdicts": values}
    calls = sorted({c for s in scores for c in s.judge_call_ids})
    missing = [j for j, v in values.items() if v is None]
    if missing:
        why = "; ".join(_why_no_verdict(j, verdicts[j]) for j in missing)
        return Score(metric=name, value=None, error=why, details=details, judge_call_ids=calls)
    given = [cast(float, v) for v in values.values()]
    details["agreement"] = len(set(given)) == 1
    value, error = _combined(given, method)
    if error is not None:
        return Score(metric=name, value=None, error=error, details=details, judge_call_ids=calls)
    return Score(metric=name, value=value, details=details, judge_call_ids=calls)


def _why_no_verdict(judge: str, score: Score | None) -> str:
    if score is None:
        return f"judge {judge!r} gave no score"
    reason = score.error or f"not applicable: {score.skipped}"
    return f"judge {judge!r} gave no verdict ({reason})"


def _combined(values: list[float], method: EnsembleMethod) -> tuple[float | None, str | None]:
    if method == "mean":
        return statistics.fmean(values), None
    if method == "median":
        return float(statistics.median(values)), None
    ranked = Counter(values).most_common()
    if len(ranked) > 1 and ranked[0][1] == ranked[1][1]:
        tied = sorted(v for v, n in ranked if n == ranked[0][1])
        shown = ", ".join(f"{v:g}" for v in tied)
        return None, f"the judges' verdicts tie ({shown}, {ranked[0][1]} each): no majority"
    return ranked[0][0], None
