"""``ragjudge battle RUN_A RUN_B``: run B's responses against run A's, head to head.

The samples both runs answered are paired by ``request_id``; each pair is judged by a
head-to-head spec (``battle`` by default) twice, A shown first and B shown first, so
the judge's preference for a position cancels out (see
:mod:`ragjudge.metrics.classify.battle`). The battle is stored as a run of its own
(``ragjudge show`` and ``export`` work on it); the report gives B's win rate with a
bootstrap confidence interval over samples, overall and per ``--by`` subset, with the
position-bias rate and the counts of B wins, splits and A wins.
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
from ragjudge.models import Provider
from ragjudge.run._runner import run_evaluation
from ragjudge.stats import MetricSummary
from ragjudge.store._store import RunInfo, Store

__all__ = ["BATTLE_METRIC", "BattleReport", "BattleRow", "battle_rows", "run_battle"]

BATTLE_METRIC = "ragjudge.metrics.classify.battle:Battle"
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
    judge: JudgeConfig | None = None,
    by: str | None = None,
    concurrency: int = 8,
    judge_provider: Provider | None = None,
    progress: bool = True,
    use_cache: bool = True,
) -> BattleReport:
    """Judge run B against run A (stored in ``store_a``; B in ``store_b`` when given)
    and store the battle as a run in ``store_a``. The judge is ``judge``, else run A's."""
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
    config = EvalConfig(
        name=f"battle {info_a.run_id} vs {info_b.run_id}",
        metrics=[_metric_spec(spec, spec_dirs or [])],
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
    return BattleReport(info_a.run_id, info_b.run_id, spec, result, table, left_out)


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
    )


def _mean_of(summaries: dict[str, MetricSummary], name: str) -> float | None:
    found = summaries.get(name)
    return None if found is None else found.mean
