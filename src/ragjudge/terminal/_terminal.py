"""Terminal tables of run summaries, stored runs, judge usage and dry-run plans."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from rich import box
from rich.console import Console, RenderableType
from rich.table import Table
from rich.text import Text

from ragjudge.analysis._rate_limits import summary_line
from ragjudge.schema import ScoreMeaning
from ragjudge.terminal._judges import agreement_table, grouped_by_judge, has_judges, judge_label
from ragjudge.terminal._names import WrappedName
from ragjudge.terminal._passes import pass_table

if TYPE_CHECKING:
    # annotations only: `ragjudge runs` draws its table without the statistics stack
    from ragjudge.analysis._outcome import ErrorGroup
    from ragjudge.analysis._results import EvaluationResult
    from ragjudge.analysis._status import RunState
    from ragjudge.run._dryrun import DryRunPlan
    from ragjudge.stats import MetricSummary

_HIGHER = ScoreMeaning()


def _fmt(value: float | None, digits: int = 3) -> str:
    return "–" if value is None else f"{value:.{digits}f}"


def summary_table(
    summaries: Sequence[MetricSummary],
    *,
    title: str | None = None,
    meanings: Mapping[str, ScoreMeaning] | None = None,
) -> Table:
    """A table of per-metric mean, 95% CI, n and errors (and trial spread when
    repeated); a metric where lower is better (per ``meanings``) is marked ↓. Scores
    of several named judges are grouped by metric, with a judge column."""
    meanings = meanings or {}
    judged = has_judges([s.metric for s in summaries], meanings)
    trials = max((s.trials for s in summaries), default=1)
    excluded = any(s.excluded or s.excludes for s in summaries)
    skipped = any(s.skipped for s in summaries)
    reduced = trials > 1 and any(s.reduce != "mean" for s in summaries)
    # no vertical rules: at 80 columns the metric names keep the room
    table = Table(
        title=title,
        title_justify="left",
        box=box.SIMPLE_HEAD,
        show_edge=False,
        pad_edge=False,
        collapse_padding=True,
    )
    table.add_column("metric")
    if judged:
        table.add_column("judge")
    table.add_column("mean", justify="right", no_wrap=True)
    table.add_column("95% CI", justify="right", no_wrap=True)
    table.add_column("n", justify="right", no_wrap=True)
    table.add_column("errors", justify="right", no_wrap=True)
    if skipped:
        table.add_column("n/a", justify="right", no_wrap=True)
    if excluded:
        table.add_column("excluded", justify="right", no_wrap=True)
        table.add_column("mean (all)", justify="right", no_wrap=True)
    if reduced:
        table.add_column("per sample", no_wrap=True)
    if trials > 1:
        table.add_column("trial sd", justify="right", no_wrap=True)
        table.add_column("agreement", justify="right", no_wrap=True)
    groups = grouped_by_judge(summaries, meanings) if judged else [[s] for s in summaries]
    for group in groups:
        for position, s in enumerate(group):
            row = _summary_row(s, meanings, judged=judged, first=position == 0)
            table.add_row(*_summary_extras(row, s, (skipped, excluded, reduced), trials))
        if judged:
            table.rows[-1].end_section = True
    if any(meanings.get(s.metric, _HIGHER).lower_is_better for s in summaries):
        table.caption = "↓ lower is better"
        table.caption_justify = "left"
    return table


def _summary_row(
    s: MetricSummary, meanings: Mapping[str, ScoreMeaning], *, judged: bool, first: bool
) -> list[RenderableType]:
    """The name (with the judge beside it when judged), mean, CI, n and errors."""
    ci = "–" if s.ci is None else f"[{s.ci.low:.3f}, {s.ci.high:.3f}]"
    meaning = meanings.get(s.metric)
    lower = meaning is not None and meaning.lower_is_better
    if not judged:
        return [
            WrappedName(s.metric + (" ↓" if lower else "")),
            _fmt(s.mean),
            ci,
            str(s.n),
            str(s.errors),
        ]
    metric = (meaning.metric if meaning else None) or s.metric
    name = WrappedName(metric + (" ↓" if lower else "") if first else "")
    return [name, Text(judge_label(meaning)), _fmt(s.mean), ci, str(s.n), str(s.errors)]


def _summary_extras(
    row: list[RenderableType], s: MetricSummary, shown: tuple[bool, bool, bool], trials: int
) -> list[RenderableType]:
    """The optional columns (``shown``: not applicable, excluded values, how trials are
    reduced), and the trial spread."""
    skipped, excluded, reduced = shown
    if skipped:
        row.append(str(s.skipped))
    if excluded:
        if s.excludes or s.excluded:
            share = "" if s.excluded_share is None else f" ({s.excluded_share:.0%})"
            row += [f"{s.excluded}{share}", _fmt(s.mean_all)]
        else:
            row += ["–", "–"]
    if reduced:
        row.append(s.reduce)
    if trials > 1:
        row += [_fmt(s.trial_sd), _fmt(s.trial_agreement, 2)]
    return row


def print_result(result: EvaluationResult, console: Console) -> None:
    """Print the summary, the per-subset tables and where the run is stored."""
    title = f"run {result.run_id} — {result.n_samples} samples"
    if result.trials > 1:
        title += f" × {result.trials} trials"
    console.print(summary_table(result.summaries, title=title, meanings=result.meanings))
    for group, summaries in result.subsets.items():
        console.print()
        console.print(
            summary_table(summaries, title=f"{result.by} = {group}", meanings=result.meanings)
        )
    console.print()
    if (passes := pass_table(result.pass_rates)) is not None:
        console.print(passes)
        console.print()
    if any(group.agreement is not None for group in result.judges):
        console.print(agreement_table(result.judges))
        console.print()
    if result.errors:
        console.print(errors_table(result.errors))
    if result.judge_usage:
        console.print(usage_table(result.judge_usage))
        if any(row["cost"] is None for row in result.judge_usage):
            console.print(Text(f"cost –: {UNPRICED}"), soft_wrap=True)
    if result.anchors is not None:
        from ragjudge.terminal._drift import print_anchors

        print_anchors(result.anchors, console)
    for note in result.notes:
        console.print(Text(f"note: {note}"), soft_wrap=True)
    if (rate_limits := summary_line(result.rate_limits)) is not None:
        console.print(Text(rate_limits, style="yellow"), soft_wrap=True)
    if result.judge:
        console.print(Text(f"judge: {result.judge}"))
    console.print(
        Text("status: ")
        + Text(result.status, style=STATUS_STYLES.get(result.status, ""))
        + Text(f"; stored in {result.store_path}")
    )
    verdict = result.verdict
    if verdict.exit_code:
        console.print(
            Text(f"not every score arrived (exit {verdict.exit_code}): ", style="bold red")
            + Text("; ".join(verdict.reasons))
        )
    console.print(
        f"details: ragjudge show {result.run_id} --store {result.store_path}; "
        f"per-sample rows: ragjudge export {result.run_id} --store {result.store_path} -o results.jsonl",
        highlight=False,
        soft_wrap=True,
    )
    console.print(_report_line(result), highlight=False, soft_wrap=True)


def _report_line(result: EvaluationResult) -> Text:
    """Where the HTML report is (written at the end of the run), or how to write it."""
    if result.report_path is not None:
        return Text(f"report: {result.report_path}")
    line = Text(f"report: ragjudge report {result.run_id} --store {result.store_path}")
    if result.report_error:
        line += Text(f" (not written: {result.report_error})", style="bold red")
    return line


def errors_table(groups: Sequence[ErrorGroup]) -> Table:
    """Each metric's errors by cause: how many, and one example message."""
    table = Table(title="errors by cause", title_justify="left")
    table.add_column("metric")
    table.add_column("cause", no_wrap=True)
    table.add_column("count", justify="right")
    table.add_column("example")
    for group in groups:
        example = group.example if len(group.example) <= 160 else group.example[:159] + "…"
        table.add_row(WrappedName(group.metric), group.cause, str(group.count), Text(example))
    return table


STATUS_STYLES = {
    "completed": "green",
    "incomplete": "yellow",
    "interrupted": "yellow",
    "failed": "bold red",
    "running": "cyan",
}
"""How each run status is drawn."""


def runs_table(runs: Sequence[RunState]) -> Table:
    """A table of stored runs, oldest first: each one's status and its failed results
    counted by cause."""
    from ragjudge.analysis._status import metric_names

    table = Table(title="runs", title_justify="left")
    for column in ("run", "name", "status", "errors", "created", "samples", "trials"):
        table.add_column(column, no_wrap=column != "errors")
    table.add_column("metrics")
    for state in runs:
        run = state.info
        table.add_row(
            run.run_id,
            Text(run.name or ""),
            Text(state.status, style=STATUS_STYLES.get(state.status, "")),
            Text(_causes(state.errors)),
            run.created_at[:16].replace("T", " "),
            str(run.n_samples),
            str(run.trials),
            Text(", ".join(metric_names(run))),
        )
    return table


def _causes(errors: Mapping[str, int]) -> str:
    """``12 judge unreachable, 1 parse error``."""
    return ", ".join(f"{count} {cause}" for cause, count in errors.items())


UNPRICED = (
    "the judge model has no price in the config nor in the published price list "
    "(or its server is not the provider's own API); give it under judge.prices "
    "(dollars per million tokens)"
)


def _money(value: float | None) -> str:
    return "–" if value is None else f"${value:.4f}"


def _per_metric_table(title: str, counts: Sequence[str]) -> Table:
    """A table with an unwrapped ``metric`` column followed by right-aligned ``counts``."""
    table = Table(title=title, title_justify="left")
    table.add_column("metric", no_wrap=True)
    for column in counts:
        table.add_column(column, justify="right")
    return table


def usage_table(usage: Sequence[dict[str, Any]]) -> Table:
    """Judge calls, cache hits, tokens, cost and errors per metric, with a total row."""
    table = _per_metric_table(
        "judge usage", ("calls", "cached", "input tokens", "output tokens", "cost", "errors")
    )
    for row in usage:
        table.add_row(
            row["purpose"],
            str(row["calls"]),
            str(row["cached"]),
            str(row["input_tokens"]),
            str(row["output_tokens"]),
            _money(row["cost"]),
            str(row["errors"]),
        )
    if len(usage) > 1:
        costs = [r["cost"] for r in usage if r["cost"] is not None]
        table.add_row(
            "total",
            str(sum(r["calls"] for r in usage)),
            str(sum(r["cached"] for r in usage)),
            str(sum(r["input_tokens"] for r in usage)),
            str(sum(r["output_tokens"] for r in usage)),
            _money(sum(costs) if costs else None),
            str(sum(r["errors"] for r in usage)),
        )
    return table


def print_plan(plan: DryRunPlan, console: Console) -> None:
    """The dry-run estimate: calls and tokens per metric, the target calls, the cost,
    where the prices come from (or why there is no cost) and whether it is a lower
    bound."""
    asked = f"; the target answered {plan.target_rows} row(s)" if plan.target_rows else ""
    table = _per_metric_table(
        f"dry run — {plan.samples} samples × {plan.trials} trial(s); no judge was called{asked}",
        ("judge calls", "input tokens (est.)", "output tokens (est.)", "cost"),
    )
    for p in plan.purposes:
        label = p.purpose if p.judge is None else f"{p.purpose}@{p.judge}"
        table.add_row(
            label, str(p.calls), str(p.input_tokens), str(p.output_tokens), _money(p.cost)
        )
    for judge, spent in plan.by_judge().items():
        table.add_row(f"judge {judge}", str(spent["calls"]), "", "", _money(spent["cost"]))
    table.add_row(
        "total",
        str(plan.total_calls),
        str(sum(p.input_tokens for p in plan.purposes)),
        str(sum(p.output_tokens for p in plan.purposes)),
        _money(plan.total_cost),
    )
    console.print(table)
    judges = ", ".join(f"{name} {model}" for name, model in plan.judge_models.items())
    judged_by = f"judges: {judges}" if judges else f"judge: {plan.judge_model or '(none)'}"
    console.print(
        f"target calls: {plan.target_calls}; {judged_by}; "
        f"output tokens assumed per call: {plan.output_tokens_per_call}",
        highlight=False,
    )
    if plan.price_source is not None:
        console.print(Text(f"prices: {plan.price_source}"), soft_wrap=True)
    if plan.price_note is not None:
        console.print(Text(f"cost –: {plan.price_note}", style="yellow"), soft_wrap=True)
    if plan.max_cost is not None:
        console.print(Text(_ceiling_line(plan.max_cost, plan.total_cost)), soft_wrap=True)
    if plan.lower_bound is not None:
        console.print(Text(f"lower bound: {plan.lower_bound}", style="yellow"), soft_wrap=True)
    for error in plan.errors[:10]:
        console.print(f"[yellow]could not plan:[/] {error}", highlight=False)


def _ceiling_line(ceiling: float, cost: float | None) -> str:
    """What the run's ``max_cost`` makes of the estimate."""
    if cost is None:
        return f"max_cost ${ceiling:.4f}: without a price the run cannot be held to it"
    if cost > ceiling:
        return f"max_cost ${ceiling:.4f}: the estimate is above it: the run would not start, or would stop at the ceiling"
    return f"max_cost ${ceiling:.4f}: the estimate is below it"
