"""The judge table for people: every metric × judge × context mode against the human
labels with its cost, then per metric and context mode the judges ranked by agreement,
with the cheapest judge within a margin of the best — for the terminal and as
Markdown."""

from __future__ import annotations

from ragjudge.meta._ranking import JudgeRanking, RankedJudge
from ragjudge.meta._table import (
    BINARY_FIGURES,
    SCALE_FIGURES,
    JudgeTable,
    JudgeTableRow,
    LabelFigures,
)
from ragjudge.terminal._grid import Grid, estimate_cell, number

__all__ = ["judge_rankings", "judge_table_grid", "judge_table_markdown", "ranking_verdict"]

FIGURE_TITLES = {
    "kendall": "Kendall τ",
    "spearman": "Spearman ρ",
    "pearson": "Pearson r",
    "kappa": "Cohen's κ",
    "accuracy": "accuracy",
    "auc": "AUC",
}
NO_CONTEXTS = "—"


def money(value: float | None) -> str:
    """Dollars with four decimals; ``–`` when unknown."""
    return "–" if value is None else f"${value:.4f}"


def judge_table_grid(table: JudgeTable) -> Grid:
    """One row per metric × judge × context mode: per human label its figures with
    their CIs and n, then the judge calls and their cost."""
    headers = ["metric", "judge", "contexts"]
    for human, kind in table.humans.items():
        figures = BINARY_FIGURES if kind == "binary" else SCALE_FIGURES
        headers += [f"{human}: {FIGURE_TITLES[f]}" for f in figures] + [f"{human}: n"]
    headers += ["calls", "cost", "per 1,000 samples"]
    grid = Grid(
        title=f"Judges against human labels ({table.confidence:.0%} bootstrap CI)",
        headers=headers,
        left=3,
    )
    previous: JudgeTableRow | None = None
    for row in table.rows:
        if previous is not None and previous.metric != row.metric:
            grid.section()
        grid.add(_row_cells(row, previous, table))
        previous = row
    for human, kind in table.humans.items():
        grid.notes.append(f"{human}: {_kind_note(kind)}")
    grid.notes.append("cost: the judge calls stored for the score, every sample and trial")
    return grid


def _kind_note(kind: str) -> str:
    if kind == "binary":
        return "a yes/no label — accuracy, Cohen's κ and AUC of the score against it"
    article = "an" if kind[0] in "aeiou" else "a"
    return f"{article} {kind} label — rank and linear correlations of the score with it"


def _row_cells(row: JudgeTableRow, previous: JudgeTableRow | None, table: JudgeTable) -> list[str]:
    same_metric = previous is not None and previous.metric == row.metric
    same_judge = same_metric and previous is not None and previous.judge == row.judge
    cells = [
        "" if same_metric else row.metric,
        "" if same_judge else _judge_name(row.judge, row.model),
        row.contexts or NO_CONTEXTS,
    ]
    for human, kind in table.humans.items():
        cells += _label_cells(row.labels[human], kind)
    return [*cells, str(row.cost.calls), money(row.cost.cost), money(row.cost.per_thousand)]


def _judge_name(judge: str | None, model: str | None) -> str:
    if judge is None:
        return NO_CONTEXTS
    return judge if model is None or model == judge else f"{judge} ({model})"


def _label_cells(found: LabelFigures, kind: str) -> list[str]:
    figures = BINARY_FIGURES if kind == "binary" else SCALE_FIGURES
    return [estimate_cell(found.figures.get(f)) for f in figures] + [str(found.n)]


# --------------------------------------------------------------------------- rankings


def judge_rankings(table: JudgeTable) -> list[Grid]:
    """Per human label, metric and context mode with several judges: the judges best
    first, with the verdict on the cheapest one within the margin as a note."""
    return [_ranking_grid(ranking, table.confidence) for ranking in table.rankings]


def _ranking_grid(ranking: JudgeRanking, confidence: float) -> Grid:
    figure = FIGURE_TITLES[ranking.figure]
    where = f", contexts {ranking.contexts}" if ranking.contexts else ""
    grid = Grid(
        title=f"Judges of {ranking.metric}{where} ranked by {figure} against {ranking.human}",
        headers=["rank", "judge", figure, "n", "calls", "cost per 1,000 samples"],
        left=2,
    )
    for rank, judge in enumerate(ranking.judges, start=1):
        grid.add(
            [
                str(rank),
                _judge_name(judge.judge, judge.model),
                estimate_cell(judge.agreement),
                str(judge.n),
                str(judge.calls),
                money(judge.cost_per_thousand),
            ]
        )
    grid.notes.append(ranking_verdict(ranking, confidence))
    return grid


def ranking_verdict(ranking: JudgeRanking, confidence: float = 0.95) -> str:
    """The line on the cheapest judge within the margin of the best, and whether the
    two are told apart on these samples."""
    figure = FIGURE_TITLES[ranking.figure]
    best = ranking.best
    margin = f"within {ranking.within:g} {figure} of the best"
    if best is None:
        return f"no judge has a defined {figure}: nothing to rank"
    cheapest = ranking.cheapest
    if cheapest is None:
        return f"cheapest judge {margin}: none of them has a priced cost"
    if cheapest is best:
        return (
            f"cheapest judge {margin}: {best.judge}, the best itself "
            f"({figure} {number(best.agreement.value)}, {money(best.cost_per_thousand)} "
            "per 1,000 samples)"
        )
    verdict = (
        f"cheapest judge {margin}: {cheapest.judge} ({figure} "
        f"{number(cheapest.agreement.value)} against {number(best.agreement.value)} of "
        f"{best.judge}; {money(cheapest.cost_per_thousand)} against "
        f"{money(best.cost_per_thousand)} per 1,000 samples)"
    )
    return verdict + "; " + _distinction(ranking, cheapest, best, confidence)


def _distinction(
    ranking: JudgeRanking, cheapest: RankedJudge, best: RankedJudge, confidence: float
) -> str:
    if ranking.distinguishable:
        return f"the difference lies outside both {confidence:.0%} CIs"
    return (
        f"the difference is within the {confidence:.0%} CI: the two are not "
        f"distinguishable on these {min(cheapest.n, best.n)} samples"
    )


def judge_table_markdown(table: JudgeTable) -> str:
    """The judge table and the rankings, as Markdown."""
    grids = [judge_table_grid(table), *judge_rankings(table)]
    return "\n".join(grid.to_markdown() for grid in grids)
