"""``ragjudge metrics``: every registered metric with what it measures, the part of the
pipeline it measures, its range and direction, its inputs and its judge calls per
sample — from the metrics' own declarations (:mod:`ragjudge.metrics._info`)."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Group
from rich.table import Table
from rich.text import Text

from ragjudge.cli._common import table_console

if TYPE_CHECKING:
    from ragjudge.config import Preset
    from ragjudge.metrics._info import MetricInfo

__all__ = ["register"]


def metrics(
    verbose: Annotated[
        bool, typer.Option("--verbose", "-v", help="Every score of each metric and its options.")
    ] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print as JSON.")] = False,
    presets: Annotated[
        bool,
        typer.Option(
            "--presets",
            help="The named sets of metrics (metrics: [preset: NAME]) and why each "
            "metric is in them.",
        ),
    ] = False,
) -> None:
    """List every metric: what it measures, the part of the RAG pipeline it measures
    (retrieval, generation, end to end), range, direction, inputs and judge calls per
    sample."""
    if presets:
        _print_presets(as_json)
        return
    from ragjudge.metrics._info import all_metric_info

    found = all_metric_info()
    if as_json:
        print(json.dumps([m.to_dict() for m in found], ensure_ascii=False, indent=2))
        return
    console = table_console()
    console.print(_overview(found))
    if verbose:
        for info in found:
            console.print(_details(info))


def _overview(found: list[MetricInfo]) -> Table:
    table = Table(title="metrics (↑ higher is better, ↓ lower)", title_justify="left")
    table.add_column("metric", no_wrap=True)
    table.add_column("measures", ratio=3)
    table.add_column("part", ratio=1)
    table.add_column("range", no_wrap=True)
    table.add_column("", no_wrap=True)
    table.add_column("inputs", ratio=2)
    table.add_column("judge calls / sample", ratio=2)
    for info in found:
        first = info.scores[0]
        several = len(info.scores) > 1
        table.add_row(
            Text(info.name),
            _measures(info, several),
            Text(_parts(info)),
            Text("various" if several and _mixed(info) else first.range),
            "↓" if first.direction == "lower" else "↑",
            Text(", ".join(info.inputs) or "–"),
            Text(info.judge_calls),
        )
    return table


def _measures(info: MetricInfo, several: bool) -> Text:
    """What the metric measures, and the extra to install when it is missing here."""
    text = Text(info.measures + (f" ({len(info.scores)} scores)" if several else ""))
    if info.install_hint:
        text.append(f"; {info.install_hint}", style="yellow")
    return text


def _parts(info: MetricInfo) -> str:
    """The parts of the pipeline the metric measures, or "–" when it does not say."""
    return ", ".join(info.parts) or "–"


def _mixed(info: MetricInfo) -> bool:
    return len({(s.range, s.direction) for s in info.scores}) > 1


def _details(info: MetricInfo) -> Group:
    scores = Table(title=f"{info.name}", title_justify="left", show_edge=False)
    scores.add_column("score", no_wrap=True)
    scores.add_column("range", no_wrap=True)
    scores.add_column("", no_wrap=True)
    scores.add_column("meaning")
    for score in info.scores:
        left_out = f" (mean leaves out {', '.join(f'{v:g}' for v in score.excluded)})"
        scores.add_row(
            Text(score.name),
            Text(score.range),
            "↓" if score.direction == "lower" else "↑",
            Text(score.description + (left_out if score.excluded else "")),
        )
    lines = [
        Text(f"  part of the pipeline it measures: {_parts(info)}"),
        Text(f"  inputs: {', '.join(info.inputs) or '–'}"),
        Text(f"  judge calls per sample: {info.judge_calls}"),
        Text("  options: " + ("; ".join(f"{k}: {v}" for k, v in info.options.items()) or "none")),
    ]
    if info.install_hint:
        lines.append(Text(f"  {info.install_hint}"))
    return Group(scores, *lines, Text(""))


def _print_presets(as_json: bool) -> None:
    from ragjudge.config import PRESETS

    if as_json:
        print(json.dumps([_preset_dict(p) for p in PRESETS], ensure_ascii=False, indent=2))
        return
    table = Table(title=Text("presets (metrics: [preset: NAME])"), title_justify="left")
    table.add_column("preset", no_wrap=True)
    table.add_column("for", ratio=2)
    table.add_column("rows need", ratio=2)
    table.add_column("metrics: why", ratio=4)
    for preset in PRESETS:
        why = "\n".join(f"{m.name}: {m.why}" for m in preset.metrics)
        table.add_row(Text(preset.name), Text(preset.case), Text(preset.needs), Text(why))
    table_console().print(table)


def _preset_dict(preset: Preset) -> dict[str, object]:
    return {
        "name": preset.name,
        "case": preset.case,
        "needs": preset.needs,
        "metrics": [{"entry": m.entry, "why": m.why} for m in preset.metrics],
    }


def register(app: typer.Typer) -> None:
    """Add ``metrics`` to the ``ragjudge`` app."""
    app.command("metrics")(metrics)
