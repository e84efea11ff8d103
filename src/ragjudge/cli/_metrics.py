"""``ragjudge metrics``: every registered metric with what it measures, the part of the
pipeline it measures, its range and direction, its inputs, whether it needs a judge and
its judge calls per sample — from the metrics' own declarations
(:mod:`ragjudge.metrics._info`), listed in groups by what they measure."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Group
from rich.table import Table
from rich.text import Text

from ragjudge.cli._common import fail, table_console

if TYPE_CHECKING:
    from ragjudge.config import Preset
    from ragjudge.metrics._info import MetricInfo

__all__ = ["register"]

GROUP_HEADINGS = {
    "retrieval": "retrieval: finding the contexts",
    "generation": "generation: answering from the contexts",
    "end to end": "end to end: the answer of the whole system",
    "agent": "agent: what the system does on the way (tools, tokens, time)",
    "conversation": "conversation: exchanges of several turns",
    "other": "other: metrics that name no part",
}


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
    part: Annotated[
        str | None,
        typer.Option(
            "--part",
            help="Only the metrics that measure this part: retrieval, generation, "
            "'end to end', agent or conversation.",
        ),
    ] = None,
    judge: Annotated[
        bool | None,
        typer.Option(
            "--judge/--no-judge",
            help="Only the metrics that need an LLM judge (--judge) or that need none "
            "(--no-judge).",
        ),
    ] = None,
) -> None:
    """List every metric, grouped by what it measures (retrieval, generation, end to
    end, agent, conversation): what it measures, range, direction, inputs, whether it
    needs a judge and its judge calls per sample."""
    if presets:
        _print_presets(as_json)
        return
    from ragjudge.metrics._info import all_metric_info

    found = _selected(all_metric_info(), part, judge)
    if as_json:
        print(json.dumps([m.to_dict() for m in found], ensure_ascii=False, indent=2))
        return
    console = table_console()
    if not found:
        console.print("no metric matches the filter")
    for group, members in _grouped(found):
        console.print(_overview(group, members))
    if verbose:
        for info in found:
            console.print(_details(info))


def _selected(found: list[MetricInfo], part: str | None, judge: bool | None) -> list[MetricInfo]:
    """The metrics that measure ``part`` (any part when None) and need a judge as
    ``judge`` says (either way when None)."""
    from ragjudge.metrics._base import PIPELINE_PARTS

    if part is not None and part not in PIPELINE_PARTS:
        known = ", ".join(repr(p) for p in PIPELINE_PARTS)
        raise fail(f"--part {part!r} is not a part of the pipeline; use one of {known}")
    return [
        info
        for info in found
        if (part is None or part in info.parts) and (judge is None or info.needs_judge == judge)
    ]


def _grouped(found: list[MetricInfo]) -> list[tuple[str, list[MetricInfo]]]:
    """The metrics by group, groups in their fixed order; in a group, those without a
    judge first, then by name."""
    from ragjudge.metrics._info import GROUPS

    ordered = sorted(found, key=lambda info: (info.needs_judge, info.name))
    groups = [(g, [info for info in ordered if info.group == g]) for g in GROUPS]
    return [(group, members) for group, members in groups if members]


def _overview(group: str, found: list[MetricInfo]) -> Table:
    title = f"{GROUP_HEADINGS[group]} (↑ higher is better, ↓ lower)"
    table = Table(title=title, title_justify="left", title_style="bold")
    table.add_column("metric", no_wrap=True)
    table.add_column("measures", ratio=3)
    table.add_column("part", ratio=1)
    table.add_column("range", no_wrap=True)
    table.add_column("", no_wrap=True)
    table.add_column("inputs", ratio=2)
    table.add_column("judge", no_wrap=True)
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
            "yes" if info.needs_judge else "no",
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
