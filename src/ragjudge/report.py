"""Terminal rendering of run summaries."""

from __future__ import annotations

from collections.abc import Sequence

from rich.console import Console
from rich.table import Table

from ragjudge.runner import EvaluationResult
from ragjudge.stats import MetricSummary
from ragjudge.store import RunInfo


def _fmt(value: float | None, digits: int = 3) -> str:
    return "–" if value is None else f"{value:.{digits}f}"


def summary_table(summaries: Sequence[MetricSummary], *, title: str | None = None) -> Table:
    """A table of per-metric mean, 95% CI, n and errors (and trial spread when repeated)."""
    trials = max((s.trials for s in summaries), default=1)
    excluded = any(s.excluded for s in summaries)
    table = Table(title=title, title_justify="left")
    table.add_column("metric")
    table.add_column("mean", justify="right")
    table.add_column("95% CI", justify="right")
    table.add_column("n", justify="right")
    table.add_column("errors", justify="right")
    if excluded:
        table.add_column("excluded", justify="right")
        table.add_column("mean (all)", justify="right")
    if trials > 1:
        table.add_column("trial sd", justify="right")
        table.add_column("agreement", justify="right")
    for s in summaries:
        ci = "–" if s.ci is None else f"[{s.ci.low:.3f}, {s.ci.high:.3f}]"
        row = [s.metric, _fmt(s.mean), ci, str(s.n), str(s.errors)]
        if excluded:
            row += [str(s.excluded), _fmt(s.mean_all)]
        if trials > 1:
            row += [_fmt(s.trial_sd), _fmt(s.trial_agreement, 2)]
        table.add_row(*row)
    return table


def print_result(result: EvaluationResult, console: Console) -> None:
    """Print the summary, the per-subset tables and where the run is stored."""
    title = f"run {result.run_id} — {result.n_samples} samples"
    if result.trials > 1:
        title += f" × {result.trials} trials"
    console.print(summary_table(result.summaries, title=title))
    for group, summaries in result.subsets.items():
        console.print(summary_table(summaries, title=f"{result.by} = {group}"))
    console.print(f"status: {result.status}; stored in {result.store_path}")
    console.print(
        f"details: ragjudge show {result.run_id} --store {result.store_path}; "
        f"per-sample rows: ragjudge export {result.run_id} --store {result.store_path} -o results.jsonl",
        highlight=False,
        soft_wrap=True,
    )


def runs_table(runs: Sequence[RunInfo]) -> Table:
    """A table of stored runs, oldest first."""
    table = Table(title="runs", title_justify="left")
    for column in ("run", "name", "status", "created", "samples", "trials"):
        table.add_column(column, no_wrap=True)
    table.add_column("metrics")
    for run in runs:
        metrics = ", ".join(
            m if isinstance(m, str) else str(m.get("name") or m.get("metric"))
            for m in run.config.get("metrics", [])
        )
        table.add_row(
            run.run_id,
            run.name or "",
            run.status,
            run.created_at[:16].replace("T", " "),
            str(run.n_samples),
            str(run.trials),
            metrics,
        )
    return table
