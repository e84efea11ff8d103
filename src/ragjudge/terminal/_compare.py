"""The terminal tables of a paired comparison of two runs: B − A per metric, and the
paired pass rates of the scores with a per-sample pass in both runs."""

from __future__ import annotations

from rich.table import Table
from rich.text import Text

from ragjudge.analysis._compare import (
    DROP_REASONS,
    NO_CLEAR_DIFFERENCE,
    Comparison,
    MetricComparison,
    RunRef,
)
from ragjudge.stats import PairedDifference

__all__ = ["render_comparison", "render_paired_passes"]


def render_comparison(comparison: Comparison, *, title: str | None = None) -> Table:
    """A terminal table of B − A per metric: the overall rows first, then (with
    ``by``) one section per subset. The "B vs A" column says "B better" or "B worse"
    only when the interval of B − A excludes 0, and "no clear difference" otherwise."""
    percent = f"{comparison.confidence:.0%}"
    default = f"B − A, paired by request_id ({percent} bootstrap CI; p: sign-flip permutation)"
    out = Table(title=title or default, title_justify="left")
    if comparison.by is not None:
        out.add_column(comparison.by)
    out.add_column("metric")
    if comparison.judges:
        out.add_column("judge")
    out.add_column("A", justify="right")
    out.add_column("B", justify="right")
    out.add_column("B − A", justify="right")
    out.add_column(f"{percent} CI", justify="right")
    out.add_column("p", justify="right")
    out.add_column("n", justify="right")
    out.add_column("B better / equal / worse", justify="right")
    out.add_column("B vs A", justify="center")
    out.add_column("left out")
    sections = [("(all)", comparison.rows), *comparison.subsets.items()]
    for group, rows in sections:
        for i, row in enumerate(rows):
            lead = [Text(group if i == 0 else "")] if comparison.by is not None else []
            cells = _row_cells(row)
            if comparison.judges:
                cells[:1] = _judge_cells(row, comparison.judges, rows[i - 1] if i else None)
            out.add_row(*lead, *cells, end_section=i == len(rows) - 1)
    out.caption = Text(_caption(comparison))  # names and statuses are not markup
    out.caption_justify = "left"
    return out


def render_paired_passes(comparison: Comparison) -> Table | None:
    """A table of the pass rates of A and B over the samples both runs judged, their
    difference, the samples passing in only one run and McNemar's exact p-value on
    those (None when no compared score has a per-sample pass in both runs)."""
    if not comparison.pass_rates:
        return None
    out = Table(
        title="pass rates, paired by request_id (p: McNemar's exact test)", title_justify="left"
    )
    for header in ("metric", "A", "B", "B − A", "p", "n", "only A passed", "only B passed"):
        out.add_column(header, justify="left" if header == "metric" else "right")
    for rate in comparison.pass_rates:
        out.add_row(
            rate.metric,
            _share(rate.rate_a),
            _share(rate.rate_b),
            "–" if rate.difference is None else f"{rate.difference:+.1%}",
            _p_value(rate.p_value),
            str(rate.n),
            str(rate.only_a),
            str(rate.only_b),
        )
    return out


def _share(value: float | None) -> str:
    return "–" if value is None else f"{value:.1%}"


def _row_cells(row: MetricComparison) -> list[Text]:
    p = row.paired
    metric = row.metric + (" ↓" if row.direction == "lower" else "")
    ci = "–" if p.ci is None else f"[{p.ci.low:+.3f}, {p.ci.high:+.3f}]"
    return [
        Text(metric),
        Text(_number(p.mean_a)),
        Text(_number(p.mean_b)),
        Text(_number(p.difference, signed=True)),
        Text(ci),
        Text(_p_value(p.p_value)),
        Text(str(p.n)),
        Text(_shares(p)),
        _winner_cell(row),
        Text(_left_out(row)),
    ]


def _judge_cells(
    row: MetricComparison,
    judges: dict[str, tuple[str, str]],
    previous: MetricComparison | None,
) -> list[Text]:
    """The metric (on its first row only) and the judge, for a run with judges."""
    metric, judge = judges.get(row.metric, (row.metric, ""))
    same = previous is not None and judges.get(previous.metric, (previous.metric,))[0] == metric
    arrow = " ↓" if row.direction == "lower" else ""
    return [Text("" if same else metric + arrow), Text(judge)]


def _winner_cell(row: MetricComparison) -> Text:
    verdict = row.verdict
    if verdict is None:
        return Text("–")
    if verdict == NO_CLEAR_DIFFERENCE:
        return Text(verdict)
    return Text(f"B {verdict}", style="bold green" if verdict == "better" else "bold red")


def _caption(comparison: Comparison) -> str:
    lines = [
        f"{side} = {_describe(ref)}"
        for side, ref in (("A", comparison.run_a), ("B", comparison.run_b))
    ]
    lines.append(
        "B better / B worse: the interval of B − A excludes 0; otherwise no clear "
        "difference; ↓ lower is better"
    )
    if comparison.excluded_values:
        shown = "; ".join(
            f"{m}: {', '.join(f'{v:g}' for v in vs)}"
            for m, vs in comparison.excluded_values.items()
        )
        lines.append(f"values left out of the means: {shown}")
    if comparison.only_a:
        lines.append(f"only in A (not compared): {', '.join(comparison.only_a)}")
    if comparison.only_b:
        lines.append(f"only in B (not compared): {', '.join(comparison.only_b)}")
    return "\n".join(lines)


def _describe(ref: RunRef) -> str:
    name = f" ({ref.name})" if ref.name else ""
    status = "" if ref.status == "completed" else f" [{ref.status}]"
    return f"{ref.run_id}{name}{status} in {ref.store}"


def _number(value: float | None, *, signed: bool = False) -> str:
    if value is None:
        return "–"
    return f"{value:+.3f}" if signed else f"{value:.3f}"


def _p_value(value: float | None) -> str:
    if value is None:
        return "–"
    return "<0.001" if value < 0.001 else f"{value:.3f}"


def _shares(p: PairedDifference) -> str:
    if p.better is None or p.equal is None or p.worse is None:
        return "–"
    return f"{p.better:.0%} / {p.equal:.0%} / {p.worse:.0%}"


def _left_out(row: MetricComparison) -> str:
    labels = {
        "missing_a": "missing in A",
        "missing_b": "missing in B",
        "errors": "errors",
        "excluded": "excluded",
    }
    parts = [f"{labels[r]} {getattr(row, r)}" for r in DROP_REASONS if getattr(row, r)]
    return ", ".join(parts) or "–"
