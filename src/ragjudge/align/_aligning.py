"""``align``: a better judge for one score of a stored run, proposed from the labels
people gave its samples and measured by cross-validation on labels it did not learn
from. Nothing stored or configured changes: the result is a judge to review."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ragjudge.align._crossval import before_and_after, cross_validate, split_folds
from ragjudge.align._judges import JudgeEntry, judge_entry
from ragjudge.align._labelled import (
    LabelledSample,
    check_pass_line,
    labelled_samples,
    score_meaning,
)
from ragjudge.align._learning import Learned, Learner
from ragjudge.align._result import (
    CANDIDATES,
    AlignPlan,
    AlignResult,
    Candidate,
    CandidateResult,
)
from ragjudge.config import ConfigError
from ragjudge.config._judges import JudgeConfig
from ragjudge.errors import SpendingLimitReached
from ragjudge.metrics import MetricContext
from ragjudge.models import GenerateConfig, JudgeModel, Provider
from ragjudge.run._judging import generate_config, judge_model, open_cache
from ragjudge.schema import ScoreMeaning
from ragjudge.store import Store

__all__ = ["AlignSettings", "align_judge", "align_plan"]


@dataclass(frozen=True)
class AlignSettings:
    """How ``align`` learns and measures."""

    folds: int = 5
    seed: int = 0
    examples: int = 4
    """Worked examples a candidate adds (chosen from its training folds' disagreements)."""
    candidates: tuple[Candidate, ...] | None = None
    """The candidates to try; default: every one the judge takes (a built-in metric
    takes worked examples only)."""
    judge: str | None = None
    """The judge model (``openai/gpt-4o-mini``); default: the run's judge."""
    max_cost: float | None = None
    cache: bool = True
    """Use the run's reply cache (when it had one): aligning again asks nothing twice."""


@dataclass(frozen=True)
class _Setting:
    """What a plan and an alignment share: the judge's entry, the labels, the folds."""

    plan: AlignPlan
    entry: JudgeEntry
    meaning: ScoreMeaning
    labelled: list[LabelledSample]
    folds: list[list[str]]
    config: Mapping[str, Any]


def align_plan(store: Store, run_id: str, metric: str, settings: AlignSettings) -> AlignPlan:
    """What aligning ``metric`` of ``run_id`` would call and cost; calls nothing."""
    return _setting(store, run_id, metric, settings).plan


async def align_judge(
    store: Store,
    run_id: str,
    metric: str,
    settings: AlignSettings | None = None,
    *,
    provider: Provider | None = None,
) -> AlignResult:
    """Learn each candidate judge fold by fold, measure it on the held-out labels, and
    learn the best one from every label. ``provider`` replaces the judge's endpoint (a
    scripted model in tests)."""
    settings = settings or AlignSettings()
    setting = _setting(store, run_id, metric, settings)
    _check_cost(setting.plan, settings.max_cost)
    judge = _judge_config(setting.config, settings.judge, provider)
    cache = open_cache(reply_cache(setting.config, store.path) if settings.cache else None)
    # Its calls are not stored with the run, which stays as it was.
    model = judge_model(judge, None, cache, provider)
    try:
        return await _aligned(setting, settings, model, generate_config(judge))
    finally:
        await model.aclose()


async def _aligned(
    setting: _Setting, settings: AlignSettings, model: JudgeModel, sampling: GenerateConfig
) -> AlignResult:
    learner = Learner(
        setting.entry, model, sampling, settings.examples, settings.seed, setting.plan.metric
    )
    ctx = MetricContext(judge=model, generate_config=sampling)
    results = []
    for name in setting.plan.candidates:
        spent = _spent(model)
        folds, verdicts = await cross_validate(
            learner, name, setting.labelled, setting.folds, ctx, setting.meaning
        )
        on_scale = all(s.on_scale for s in setting.labelled)
        before, after = before_and_after(verdicts, on_scale=on_scale, seed=settings.seed)
        calls, cost = _difference(_spent(model), spent)
        results.append(CandidateResult(name, tuple(folds), before, after, calls, cost))
    best = max(results, key=lambda r: r.gain, default=None)
    found = AlignResult(setting.plan, results, best if best and best.gain > 0 else None)
    found.original = learner.spec_of(Learned({}, ()))
    if found.best is not None:
        found.spec = learner.spec_of(await learner.learn(found.best.name, setting.labelled))
    found.calls, found.cost = _spent(model)
    return found


def _setting(store: Store, run_id: str, metric: str, settings: AlignSettings) -> _Setting:
    run = store.run(run_id)
    meaning = score_meaning(store, run.run_id, metric)
    entry = judge_entry(run.config, metric)
    candidates = _candidates(settings.candidates, entry)
    check_pass_line(meaning, metric)
    labelled = labelled_samples(store, run.run_id, metric, meaning)
    folds = split_folds([s.request_id for s in labelled], settings.folds, settings.seed)
    rewrites = len(folds) + 1 if any("criteria" in c for c in candidates) else 0
    calls = len(labelled) * len(candidates) + rewrites
    per_call = _cost_per_call(store, run.run_id, metric)
    plan = AlignPlan(
        run.run_id,
        metric,
        len(labelled),
        sum(s.disagrees for s in labelled),
        len(folds),
        candidates,
        calls,
        None if per_call is None else per_call * calls,
        entry.builtin,
    )
    return _Setting(plan, entry, meaning, labelled, folds, run.config)


def _candidates(given: tuple[Candidate, ...] | None, entry: JudgeEntry) -> tuple[Candidate, ...]:
    """The candidates to try; :class:`ConfigError` for rewritten criteria asked of a
    built-in metric (its criteria are the metric's own)."""
    if entry.builtin is None:
        return given or CANDIDATES
    if given is not None and any("criteria" in c for c in given):
        raise ConfigError(
            f"--candidate: rewritten criteria apply to custom judges only; the built-in "
            f"metric {entry.builtin!r} learns worked examples (--candidate examples)"
        )
    return ("examples",)


def reply_cache(config: Mapping[str, Any], store_path: Path) -> Path | None:
    """The reply cache file the run used: ``cache.db`` beside its store, the file its
    config named (relative to the config's folder), or None when it had none."""
    cache = config.get("cache", True)
    if cache is False:
        return None
    if cache is True:
        return Path(store_path).parent / "cache.db"
    base = config.get("base_dir")
    path = Path(str(cache))
    return path if path.is_absolute() or not isinstance(base, str) else Path(base) / path


def _judge_config(
    config: Mapping[str, Any], judge: str | None, provider: Provider | None
) -> JudgeConfig:
    if judge is not None:
        return JudgeConfig(model=judge)
    named = config.get("judges") or {}
    stored = config.get("judge") or next(iter(named.values()), None)
    if stored is not None:
        try:
            found = JudgeConfig.model_validate(stored)
        except ValueError as exc:
            raise ConfigError(f"the run's judge settings: {exc}") from None
        return found.model_copy(update={"mode": "direct", "preflight": False})
    if provider is not None:
        return JudgeConfig(model=f"scripted/{provider.model}")
    raise ConfigError(
        "the run's judge was given as a model object, not as settings: name the judge "
        "to use with --judge (openai/gpt-4o-mini …)"
    )


def _cost_per_call(store: Store, run_id: str, metric: str) -> float | None:
    scores = [score for _, _, score in store.scores(run_id) if score.metric == metric]
    ids = {i for score in scores for i in score.judge_call_ids}
    costs = [u.cost for i, u in store.call_usage(run_id).items() if i in ids]
    priced = [c for c in costs if c is not None]
    return sum(priced) / len(priced) if priced else None


def _check_cost(plan: AlignPlan, max_cost: float | None) -> None:
    if max_cost is not None and plan.cost is not None and plan.cost > max_cost:
        raise SpendingLimitReached(
            f"--max-cost: aligning {plan.metric} would make {plan.calls} judge calls, "
            f"estimated at ${plan.cost:.4f}, above ${max_cost:g}; raise --max-cost, "
            "lower --folds or choose fewer --candidate"
        )


def _spent(model: JudgeModel) -> tuple[int, float | None]:
    total = model.usage.total()
    return total.calls, total.cost


def _difference(
    now: tuple[int, float | None], then: tuple[int, float | None]
) -> tuple[int, float | None]:
    cost = None if now[1] is None else now[1] - (then[1] or 0.0)
    return now[0] - then[0], cost
