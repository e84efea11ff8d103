"""Terminal tables of a run with several named judges: the summary's rows grouped by
metric then judge, and the agreement among each metric's judges."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from rich import box
from rich.table import Table

from ragjudge.analysis._judge_names import grouped_names
from ragjudge.schema import ScoreMeaning
from ragjudge.terminal._names import WrappedName

if TYPE_CHECKING:
    from ragjudge.analysis._judges import JudgeGroup
    from ragjudge.stats import MetricSummary

__all__ = ["agreement_table", "grouped_by_judge", "has_judges", "judge_label"]

ALPHA_NOTE = (
    "α (Krippendorff's alpha): 1 the judges always agree, 0 no better than chance, "
    "below 0 worse; κ (Cohen's kappa) the same for two judges' yes/no verdicts"
)


def has_judges(names: Sequence[str], meanings: Mapping[str, ScoreMeaning]) -> bool:
    """Whether any of these scores names its judge or combines judges."""
    return any(
        name in meanings and (meanings[name].judge is not None or meanings[name].ensemble)
        for name in names
    )


def judge_label(meaning: ScoreMeaning | None) -> str:
    """The judge column's text: the judge's name, ``ensemble`` (the agreement table
    names its judges) or empty."""
    if meaning is None:
        return ""
    if meaning.ensemble:
        return "ensemble"
    return meaning.judge or ""


def grouped_by_judge(
    summaries: Sequence[MetricSummary], meanings: Mapping[str, ScoreMeaning]
) -> list[list[MetricSummary]]:
    """The summaries grouped by the metric they judge (in order of first appearance),
    each group's judges in the run's order and its ensemble last."""
    by_name = {s.metric: s for s in summaries}
    groups: dict[str, list[MetricSummary]] = {}
    for name in grouped_names(list(by_name), meanings):
        meaning = meanings.get(name)
        groups.setdefault((meaning.metric if meaning else None) or name, []).append(by_name[name])
    return list(groups.values())


def agreement_table(groups: Sequence[JudgeGroup]) -> Table:
    """Per metric with two or more judges: α at its level with its interval and the
    units it counts, and Cohen's kappa of each pair for yes/no scores."""
    table = Table(
        title="agreement among judges",
        title_justify="left",
        box=box.SIMPLE_HEAD,
        show_edge=False,
        pad_edge=False,
        collapse_padding=True,
        caption=ALPHA_NOTE,
        caption_justify="left",
    )
    for column in ("metric", "judges", "level", "α", "95% CI", "units", "pairs (κ)"):
        numeric = column in ("α", "95% CI", "units")
        table.add_column(column, justify="right" if numeric else "left", no_wrap=numeric)
    for group in groups:
        agreement = group.agreement
        if agreement is None:
            continue
        estimate = agreement.alpha.alpha
        ci = estimate.ci
        table.add_row(
            WrappedName(group.metric),
            ", ".join(agreement.judges),
            agreement.alpha.level,
            "–" if estimate.value is None else f"{estimate.value:.3f}",
            "–" if ci is None else f"[{ci.low:.3f}, {ci.high:.3f}]",
            str(agreement.alpha.units),
            "; ".join(
                f"{p.judge_a}–{p.judge_b} {'–' if p.kappa is None else f'{p.kappa:.2f}'}"
                for p in agreement.pairs
            ),
        )
    return table
