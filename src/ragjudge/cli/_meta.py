"""``ragjudge meta``: a run's metrics against human labels — correlation, agreement,
the annotators' own agreement, prediction-powered estimates and the correlation table of
every metric against the human scores."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, cast

import typer
from rich.text import Text

from ragjudge.cli._common import (
    DEFAULT_STORE,
    RunArgument,
    StoreOption,
    err,
    fail,
    opened_store,
    out,
    table_console,
)

if TYPE_CHECKING:
    from ragjudge.meta._result import MetaTable
    from ragjudge.meta._table import JudgeTable

__all__ = ["register"]

_COMBINE = ("mean", "median", "majority")
_KINDS = ("auto", "numeric", "ordinal", "binary")
_WEIGHTS = ("quadratic", "linear", "none")
_CORRELATIONS = ("pearson", "spearman", "kendall")
_TABLE_SUFFIXES = (".json", ".csv", ".md")
_LEVELS = ("sample", "summary", "system")


def _choice(option: str, value: str, allowed: tuple[str, ...]) -> str:
    if value not in allowed:
        raise fail(f"{option} must be one of {', '.join(allowed)}, not {value!r}")
    return value


def parse_thresholds(items: list[str]) -> dict[str, float]:
    """``VALUE`` (every metric) or ``METRIC=VALUE``, as ``{"*" or metric: value}``."""
    found: dict[str, float] = {}
    for item in items:
        metric, sep, text = item.rpartition("=")
        name = metric.strip() if sep else "*"
        try:
            found[name or "*"] = float(text)
        except ValueError:
            raise fail(f"--threshold takes VALUE or METRIC=VALUE, not {item!r}") from None
    return found


def parse_human_exclusions(items: list[str]) -> dict[str, list[float]]:
    """``VALUE`` (every label) or ``LABEL=VALUE``, as ``{"*" or label: [values]}``."""
    found: dict[str, list[float]] = {}
    for item in items:
        label, sep, text = item.rpartition("=")
        name = label.strip() if sep else "*"
        try:
            found.setdefault(name or "*", []).append(float(text))
        except ValueError:
            raise fail(f"--exclude-human takes VALUE or LABEL=VALUE, not {item!r}") from None
    return found


def meta(
    run_id: RunArgument,
    human: Annotated[
        list[str] | None,
        typer.Option(
            help="Metadata key holding a human label (repeat for several), or "
            "NAME=KEY1,KEY2 for one label whose annotators are under several keys."
        ),
    ] = None,
    labels: Annotated[
        bool,
        typer.Option(
            "--labels",
            help="Use the labels stored with the run (`ragjudge labels`) as human "
            "labels: one per labelled score, named labels:SCORE, its annotators "
            "combined as --combine says.",
        ),
    ] = False,
    combine: Annotated[
        str, typer.Option(help="How to combine several annotators: mean, median or majority.")
    ] = "mean",
    kind: Annotated[
        str, typer.Option(help="The labels' kind: auto, numeric, ordinal or binary.")
    ] = "auto",
    acceptable: Annotated[
        float | None,
        typer.Option(help="A non-binary label at or above this counts as acceptable."),
    ] = None,
    threshold: Annotated[
        list[str] | None,
        typer.Option(
            help="Where a metric calls a sample acceptable: VALUE, or METRIC=VALUE "
            "(repeat); default 0.5 for yes/no metrics, else the middle of the range."
        ),
    ] = None,
    kappa_weights: Annotated[
        str, typer.Option(help="Weights of the ordinal kappa: quadratic, linear or none.")
    ] = "quadratic",
    by: Annotated[str | None, typer.Option(help="One table per value of a metadata key.")] = None,
    extra: Annotated[
        list[str] | None,
        typer.Option(help="Metadata key holding another system's score, set as a row."),
    ] = None,
    pairs: Annotated[
        str | None,
        typer.Option(
            help="Metadata key of the pair a sample belongs to: the labels are preferences "
            "(positive favours the second sample by id) and metrics are compared as differences."
        ),
    ] = None,
    ppi: Annotated[
        bool,
        typer.Option(
            "--ppi",
            help="Estimate the human label's mean (and acceptance rate) from the samples "
            "that carry it plus the metric on all: prediction-powered inference.",
        ),
    ] = False,
    ppi_labels: Annotated[
        int | None,
        typer.Option(
            help="With --ppi on a fully labelled run: keep only this many labels, drawn at "
            "random, to see what labelling that many samples would buy."
        ),
    ] = None,
    table: Annotated[
        bool,
        typer.Option(
            "--table",
            help="Print the judge table instead: one row per metric, judge and context "
            "mode, with its agreement with each human label (correlations for a scale, "
            "accuracy, kappa and AUC for yes/no; CIs and n) and what its judge calls cost, "
            "then the judges ranked by agreement and the cheapest one within --within of "
            "the best.",
        ),
    ] = False,
    within: Annotated[
        float,
        typer.Option(
            help="With --table: the margin, in the ranked figure's units (Kendall tau "
            "for a scale, kappa for yes/no), of the cheapest judge within it of the best."
        ),
    ] = 0.05,
    as_csv: Annotated[
        bool, typer.Option("--csv", help="With --table: print the judge table as CSV.")
    ] = False,
    output: Annotated[
        Path | None,
        typer.Option(
            "--output",
            "-o",
            help="With --table: write the judge table to this file, as JSON, CSV or "
            "Markdown by its suffix (.json, .csv, .md).",
        ),
    ] = None,
    table_out: Annotated[
        Path | None,
        typer.Option(
            help="Write the correlation table of every metric against the human scores "
            "and the agreement tables as Markdown."
        ),
    ] = None,
    correlation: Annotated[
        str,
        typer.Option(
            help="The correlation in the correlation table: pearson, spearman or kendall."
        ),
    ] = "pearson",
    where: Annotated[
        str | None,
        typer.Option(
            help="Keep only the samples whose metadata match, e.g. "
            '"collection == govt and turn >= 2" (==, !=, <, <=, >, >=, in (A, B), '
            "and, or, not, parentheses; quote values with spaces)."
        ),
    ] = None,
    level: Annotated[
        str,
        typer.Option(
            help="sample: one point per sample. summary: correlate within each group of "
            "--group (the answers to one input) and average. system: correlate the means "
            "per group of --group (one point per system)."
        ),
    ] = "sample",
    group: Annotated[
        str | None,
        typer.Option(help="Metadata key of the groups of --level summary or system."),
    ] = None,
    positive: Annotated[
        str | None,
        typer.Option(
            help='For text labels: the label that counts as yes (e.g. "Fully '
            'attributable"); every other text counts as no.'
        ),
    ] = None,
    exclude_human: Annotated[
        list[str] | None,
        typer.Option(
            help='A human value that means "could not judge": VALUE, or LABEL=VALUE '
            "(repeat). It is dropped before annotators are combined; samples left "
            "without a label are left out and counted."
        ),
    ] = None,
    seed: Annotated[
        int, typer.Option(help="Seed of the bootstrap resamples and random draws.")
    ] = 0,
    resamples: Annotated[
        int, typer.Option(help="Bootstrap resamples behind every interval.", min=1)
    ] = 2000,
    store: StoreOption = DEFAULT_STORE,
    as_json: Annotated[bool, typer.Option("--json", help="Print as JSON.")] = False,
) -> None:
    """Set every metric of a run against human labels: correlations (Pearson, Spearman,
    Kendall), agreement (accuracy, kappa, AUC, precision/recall for yes/no labels;
    weighted kappa, exact and ±1 for ordinal ones) with the majority-label baseline,
    the annotators' own agreement, and with --ppi calibrated estimates of the human
    mean. With --table, the judge table: every metric, judge and context mode against
    the labels with its cost, and the judges ranked. All intervals are bootstrap CIs
    (PPI's are normal)."""
    from ragjudge.meta._evaluation import Combine, meta_for_run
    from ragjudge.meta._labels import KindOption
    from ragjudge.stats import KappaWeights

    how = cast(Combine, _choice("--combine", combine, _COMBINE))
    label_kind = cast(KindOption, _choice("--kind", kind, _KINDS))
    weights = cast(KappaWeights, _choice("--kappa-weights", kappa_weights, _WEIGHTS))
    _choice("--correlation", correlation, _CORRELATIONS)
    _choice("--level", level, _LEVELS)
    if not human and not labels:
        raise fail("name the human labels: --human KEY (a field of the data) or --labels")
    if not table and (as_csv or output is not None):
        raise fail("--csv and --output write the judge table: add --table")
    options: dict[str, Any] = dict(
        combine=how,
        by=by,
        extra=extra or [],
        kind=label_kind,
        acceptable=acceptable,
        thresholds=parse_thresholds(threshold or []),
        kappa_weights=weights,
        pairs=pairs,
        seed=seed,
        n_resamples=resamples,
        where=where,
        level=level,
        group=group,
        positive=positive,
        exclude_human=parse_human_exclusions(exclude_human or []),
        stored_labels=labels,
    )
    if table:
        _judge_table(
            run_id, human or [], options, _JudgeTableOutput(within, as_json, as_csv, output), store
        )
        return
    with opened_store(store) as s:
        result = meta_for_run(
            s,
            run_id,
            human or [],
            ppi=ppi or ppi_labels is not None,
            ppi_labels=ppi_labels,
            **options,
        )
    if as_json:
        print(json.dumps(result.to_dict(), ensure_ascii=False, indent=2))
        return
    if table_out is not None:
        _correlation_table(result, correlation, table_out)
        return
    _print_all(result)


@dataclass(frozen=True)
class _JudgeTableOutput:
    within: float
    as_json: bool
    as_csv: bool
    path: Path | None


def _judge_table(
    run_id: str,
    human: list[str],
    options: dict[str, Any],
    output: _JudgeTableOutput,
    store: Path,
) -> None:
    from ragjudge.meta._table import judge_table_for_run
    from ragjudge.terminal import judge_rankings, judge_table_grid

    if output.path is not None and output.path.suffix.lower() not in _TABLE_SUFFIXES:
        raise fail(
            f"--output {output.path}: the suffix must be .json, .csv or .md, "
            f"not {output.path.suffix!r}"
        )
    with opened_store(store) as s:
        found = judge_table_for_run(s, run_id, human, within=output.within, **options)
    if output.path is not None:
        _write_judge_table(found, output.path)
    if output.as_json:
        print(json.dumps(found.to_dict(), ensure_ascii=False, indent=2))
    elif output.as_csv:
        print(found.to_frame().to_csv(index=False), end="")
    else:
        console = table_console()
        console.print(judge_table_grid(found).to_rich())
        for grid in judge_rankings(found):
            console.print(grid.to_rich())
    if output.path is not None:
        err.print(Text(f"wrote {output.path}"), highlight=False)


def _write_judge_table(found: JudgeTable, path: Path) -> None:
    from ragjudge.errors import ExportError
    from ragjudge.terminal import judge_table_markdown

    suffix = path.suffix.lower()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        if suffix == ".json":
            text = json.dumps(found.to_dict(), ensure_ascii=False, indent=2) + "\n"
        elif suffix == ".csv":
            text = found.to_frame().to_csv(index=False)
        else:
            text = judge_table_markdown(found)
        path.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise ExportError(f"cannot write {path}: {exc.strerror or exc}") from None


def _correlation_table(result: MetaTable, correlation: str, path: Path | None) -> None:
    from ragjudge.errors import ExportError
    from ragjudge.terminal import correlation_table, correlation_table_markdown

    table_console().print(correlation_table(result, correlation=correlation).to_rich())
    if path is None:
        return
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        markdown = correlation_table_markdown(result, correlation=correlation)
        path.write_text(markdown, encoding="utf-8")
    except OSError as exc:
        raise ExportError(f"cannot write {path}: {exc.strerror or exc}") from None
    out.print(Text(f"wrote {path}"), highlight=False)


def _print_all(result: MetaTable) -> None:
    from ragjudge.terminal import agreement_grids, annotator_notes, ppi_grid, render_meta

    console = table_console()
    console.print(render_meta(result))
    for grid in agreement_grids(result):
        console.print(grid.to_rich())
    for note in annotator_notes(result):
        console.print(Text(note), highlight=False)
    found = ppi_grid(result)
    if found is not None:
        console.print(found.to_rich())


def register(app: typer.Typer) -> None:
    """Add ``meta`` to the command line."""
    app.command("meta")(meta)
