"""``ragjudge battle RUN_A RUN_B``: run B's responses against run A's, head to head.

The samples both runs answered are paired by ``request_id``; each pair is judged by a
head-to-head spec (``battle`` by default) twice, A shown first and B shown first, so
the judge's preference for a position cancels out (see
:mod:`ragjudge.metrics.classify.battle`). The battle is stored as a run of its own
(``ragjudge show`` and ``export`` work on it); the report gives B's win rate with a
bootstrap confidence interval over samples, overall and per ``--by`` subset, with the
position-bias rate and the counts of B wins, splits and A wins.

With ``graded`` the pairs are judged by
:class:`~ragjudge.metrics.classify.graded_battle.GradedBattle` instead: the judge grades
the two responses against each other with a score rubric and the reference answer and
names the better one; the report adds A's win rate, the confidence intervals of the
position-bias and first-position rates, and each sample's two verdicts.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from ragjudge.analysis._results import EvaluationResult
from ragjudge.config import ConfigError, EvalConfig, JudgeConfig
from ragjudge.metrics.classify.battle import BASELINE_KEY
from ragjudge.metrics.classify.graded_battle import RUBRIC_KEY
from ragjudge.models import Provider
from ragjudge.run._runner import run_evaluation
from ragjudge.stats import MetricSummary
from ragjudge.store._store import RunInfo, Store

__all__ = [
    "BATTLE_METRIC",
    "GRADED_METRIC",
    "BattleReport",
    "BattleRow",
    "PairVerdicts",
    "battle_rows",
    "run_battle",
]

BATTLE_METRIC = "ragjudge.metrics.classify.battle:Battle"
GRADED_METRIC = "ragjudge.metrics.classify.graded_battle:GradedBattle"
GRADED_SPEC = "graded (score rubric and reference answer)"
"""What the report names as the spec of a graded battle."""
LEFT_OUT_REASONS = ("only_in_a", "only_in_b", "no_response_a", "no_response_b")


@dataclass(frozen=True)
class BattleRow:
    """B against A over one group of samples (``group`` None: all of them)."""

    group: str | None
    win_rate_b: float | None
    ci_low: float | None
    ci_high: float | None
    n: int
    errors: int
    position_bias: float | None
    first_position: float | None
    b_wins: int
    splits: int
    a_wins: int
    position_bias_ci: tuple[float, float] | None = None
    """The bootstrap 95% interval of ``position_bias``."""
    first_position_ci: tuple[float, float] | None = None
    """The bootstrap 95% interval of ``first_position`` (0.5 inside it: no clear
    preference for a place)."""

    @property
    def win_rate_a(self) -> float | None:
        """A's win rate: 1 minus B's (a split counts half to each)."""
        return None if self.win_rate_b is None else 1.0 - self.win_rate_b

    @property
    def ci_a(self) -> tuple[float, float] | None:
        """The bootstrap 95% interval of A's win rate."""
        if self.ci_low is None or self.ci_high is None:
            return None
        return (1.0 - self.ci_high, 1.0 - self.ci_low)

    def to_dict(self) -> dict[str, Any]:
        """JSON-able form."""
        found = dict(vars(self))
        found["win_rate_a"] = self.win_rate_a
        for key in ("position_bias_ci", "first_position_ci"):
            found[key] = None if found[key] is None else list(found[key])
        found["ci_a"] = None if self.ci_a is None else list(self.ci_a)
        return found


@dataclass(frozen=True)
class PairVerdicts:
    """One sample of a graded battle: the run each of its two verdicts went to (``a``
    or ``b``) and whether they agree; None where the judge gave no verdict."""

    request_id: str
    winner_a_first: str | None
    winner_b_first: str | None
    agree: bool | None
    error: str | None

    def to_dict(self) -> dict[str, Any]:
        """JSON-able form."""
        return dict(vars(self))


@dataclass
class BattleReport:
    """The stored battle run and its table."""

    run_a: str
    run_b: str
    spec: str
    result: EvaluationResult
    rows: list[BattleRow]
    left_out: dict[str, int] = field(default_factory=dict)
    samples: list[PairVerdicts] = field(default_factory=list)
    """Each sample's two verdicts (a graded battle only)."""
    graded: bool = False

    @property
    def overall(self) -> BattleRow:
        """The row over every judged sample."""
        return self.rows[0]

    def to_dict(self) -> dict[str, Any]:
        """The JSON form printed by ``ragjudge battle --json``."""
        return {
            "run_a": self.run_a,
            "run_b": self.run_b,
            "battle_run": self.result.run_id,
            "spec": self.spec,
            "by": self.result.by,
            "rows": [row.to_dict() for row in self.rows],
            "left_out": self.left_out,
            "graded": self.graded,
            "samples": [sample.to_dict() for sample in self.samples],
            "exit_code": self.result.verdict.exit_code,
        }


def battle_rows(
    store_a: Store, run_a: RunInfo, store_b: Store, run_b: RunInfo
) -> tuple[list[dict[str, Any]], dict[str, int]]:
    """Rows for the battle: run A's samples that both runs answered, with B's response
    as the response and A's in the metadata (``response_a``); and how many samples were
    left out, by reason."""
    samples_b = {s.request_id for s in store_b.samples(run_b.run_id)}
    outputs_a, outputs_b = store_a.outputs(run_a.run_id), store_b.outputs(run_b.run_id)
    left_out: Counter[str] = Counter()
    rows: list[dict[str, Any]] = []
    samples_a = store_a.samples(run_a.run_id)
    for sample in samples_a:
        if sample.request_id not in samples_b:
            left_out["only_in_a"] += 1
            continue
        a, b = outputs_a.get(sample.request_id), outputs_b.get(sample.request_id)
        if a is None or a.response is None:
            left_out["no_response_a"] += 1
            continue
        if b is None or b.response is None:
            left_out["no_response_b"] += 1
            continue
        row = sample.model_dump(exclude={"response", "request"}, exclude_none=True)
        row["request"] = sample.request.original
        row["response"] = b.response
        row["metadata"] = {**sample.metadata, BASELINE_KEY: a.response}
        rows.append(row)
    left_out["only_in_b"] = len(samples_b - {s.request_id for s in samples_a})
    return rows, {k: left_out[k] for k in LEFT_OUT_REASONS if left_out[k]}


async def run_battle(
    store_a: Path,
    run_a: str,
    run_b: str,
    *,
    store_b: Path | None = None,
    spec: str = "battle",
    spec_dirs: list[str] | None = None,
    graded: bool = False,
    rubric: str | None = None,
    judge: JudgeConfig | None = None,
    by: str | None = None,
    concurrency: int = 8,
    judge_provider: Provider | None = None,
    progress: bool = True,
    use_cache: bool = True,
) -> BattleReport:
    """Judge run B against run A (stored in ``store_a``; B in ``store_b`` when given)
    and store the battle as a run in ``store_a``. The judge is ``judge``, else run A's.

    ``graded`` judges with a score rubric (``rubric``, or each row's metadata
    ``score_rubric``) and the reference answer instead of the head-to-head ``spec``."""
    with Store(store_a) as first:
        info_a = first.run(run_a)
        if store_b is None or store_b.resolve() == store_a.resolve():
            info_b = first.run(run_b)
            rows, left_out = battle_rows(first, info_a, first, info_b)
        else:
            with Store(store_b) as second:
                info_b = second.run(run_b)
                rows, left_out = battle_rows(first, info_a, second, info_b)
    if not rows:
        raise ConfigError(
            f"runs {info_a.run_id} and {info_b.run_id} share no sample that both answered"
        )
    if graded:
        _check_graded_rows(rows, rubric)
    metric = _graded_spec(rubric) if graded else _metric_spec(spec, spec_dirs or [])
    config = EvalConfig(
        name=f"battle {info_a.run_id} vs {info_b.run_id}",
        metrics=[metric],
        judge=judge or _stored_judge(info_a, judge_provider),
        by=by,
        concurrency=concurrency,
        store=str(store_a.resolve()),
    )
    result = await run_evaluation(
        config, data=rows, judge_provider=judge_provider, progress=progress, use_cache=use_cache
    )
    with Store(store_a) as store:
        table = _table(store, result)
        samples = _pair_verdicts(store, result) if graded else []
    shown_spec = GRADED_SPEC if graded else spec
    return BattleReport(
        info_a.run_id, info_b.run_id, shown_spec, result, table, left_out, samples, graded
    )


def _graded_spec(rubric: str | None) -> dict[str, Any]:
    return {"metric": GRADED_METRIC, "name": "graded_battle", "rubric": rubric}


def _check_graded_rows(rows: list[dict[str, Any]], rubric: str | None) -> None:
    """A graded battle needs every row's reference answer, and a rubric for each."""
    for row in rows:
        where = f"sample {row.get('request_id')!r} of run A"
        if not row.get("expected_response"):
            raise ConfigError(f"{where} has no expected_response: a graded battle needs one")
        if rubric is None and not row.get("metadata", {}).get(RUBRIC_KEY):
            raise ConfigError(
                f"{where} has no score rubric (metadata {RUBRIC_KEY!r}); pass --rubric TEXT "
                "or --rubric-file PATH"
            )


def _pair_verdicts(store: Store, result: EvaluationResult) -> list[PairVerdicts]:
    metric = next(s.metric for s in result.summaries if "/" not in s.metric)
    found = []
    for request_id, _, score in store.scores(result.run_id):
        if score.metric != metric:
            continue
        details = score.details or {}
        found.append(
            PairVerdicts(
                request_id=request_id,
                winner_a_first=details.get("winner_a_first"),
                winner_b_first=details.get("winner_b_first"),
                agree=details.get("agree"),
                error=score.error,
            )
        )
    return found


def _metric_spec(spec: str, spec_dirs: list[str]) -> dict[str, Any]:
    """The battle metric of the stored config (paths absolute, so the run record
    names them wherever it is read)."""
    if spec.split("#")[0].endswith((".yaml", ".yml")):
        path, _, name = spec.partition("#")
        spec = str(Path(path).expanduser().resolve()) + (f"#{name}" if name else "")
    dirs = [str(Path(d).expanduser().resolve()) for d in spec_dirs]
    return {"metric": BATTLE_METRIC, "spec": spec, "spec_dirs": dirs}


def _stored_judge(run: RunInfo, provider: Provider | None) -> JudgeConfig | None:
    stored = run.config.get("judge")
    if isinstance(stored, dict) and stored.get("model"):
        return JudgeConfig.model_validate(stored)
    if provider is not None:
        return None
    raise ConfigError(
        f"run {run.run_id} had no judge model to reuse; pass --judge MODEL (e.g. openai/gpt-4o-mini)"
    )


def _table(store: Store, result: EvaluationResult) -> list[BattleRow]:
    metric = next(s.metric for s in result.summaries if "/" not in s.metric)
    frame = store.score_frame(result.run_id)
    rows = [_row(None, result.summaries, metric, frame)]
    if result.by is not None:
        column = f"metadata.{result.by.removeprefix('metadata.')}"
        for group, summaries in result.subsets.items():
            subset = frame[frame[column].astype(str) == group] if column in frame else frame
            rows.append(_row(group, summaries, metric, subset))
    return rows


def _row(
    group: str | None, summaries: list[MetricSummary], metric: str, frame: pd.DataFrame
) -> BattleRow:
    by_name = {s.metric: s for s in summaries}
    main = by_name[metric]
    values = frame[(frame["metric"] == metric) & frame["error"].isna()]
    per_sample = values.groupby("sample_id")["value"].mean()
    return BattleRow(
        group=group,
        win_rate_b=main.mean,
        ci_low=main.ci.low if main.ci else None,
        ci_high=main.ci.high if main.ci else None,
        n=main.n,
        errors=main.errors,
        position_bias=_mean_of(by_name, f"{metric}/position_bias"),
        first_position=_mean_of(by_name, f"{metric}/first_position"),
        b_wins=int((per_sample == 1.0).sum()),
        splits=int(((per_sample > 0.0) & (per_sample < 1.0)).sum()),
        a_wins=int((per_sample == 0.0).sum()),
        position_bias_ci=_ci_of(by_name, f"{metric}/position_bias"),
        first_position_ci=_ci_of(by_name, f"{metric}/first_position"),
    )


def _mean_of(summaries: dict[str, MetricSummary], name: str) -> float | None:
    found = summaries.get(name)
    return None if found is None else found.mean


def _ci_of(summaries: dict[str, MetricSummary], name: str) -> tuple[float, float] | None:
    found = summaries.get(name)
    if found is None or found.ci is None:
        return None
    return (found.ci.low, found.ci.high)
