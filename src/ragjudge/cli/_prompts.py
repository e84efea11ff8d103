"""``ragjudge prompts``: the judge prompt(s) a metric would send for one sample of the
evaluation set, built as a dry run builds them (nothing is called), each call labelled."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.rule import Rule
from rich.text import Text

from ragjudge.cli._common import fail, out

if TYPE_CHECKING:
    from ragjudge.config import EvalConfig
    from ragjudge.run._prompts import SamplePrompts

__all__ = ["register"]


def prompts(
    metric: Annotated[str, typer.Argument(help="The metric whose judge prompts to show.")],
    config: Annotated[
        Path | None,
        typer.Argument(
            help="The evaluation YAML file (its data, target and the metric's options)."
        ),
    ] = None,
    data: Annotated[
        Path | None,
        typer.Option(help="The evaluation set (instead of the config's data)."),
    ] = None,
    row: Annotated[
        int | None, typer.Option(min=1, help="The row to show, counted from 1 (default 1).")
    ] = None,
    request_id: Annotated[
        str | None, typer.Option("--id", metavar="REQUEST_ID", help="The row with this id.")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the calls as JSON.")] = False,
) -> None:
    """Print the judge prompt(s) METRIC would send for one sample: the rendered
    template with the evaluated text inside its delimiters, one block per judge call.
    Nothing is called; a target's answer is stood in for as in --dry-run."""
    import asyncio

    from ragjudge.run._prompts import metric_prompts

    if row is not None and request_id is not None:
        raise fail("give --row or --id, not both")
    chosen = _config(metric, config, data)
    found = asyncio.run(metric_prompts(chosen, row=row, request_id=request_id))
    if as_json:
        print(json.dumps(_as_dict(found), ensure_ascii=False, indent=2))
    else:
        _print(found)


def _config(metric: str, config: Path | None, data: Path | None) -> EvalConfig:
    from ragjudge.config import ConfigError, EvalConfig, load_config
    from ragjudge.run._prompts import only_metric

    if config is not None:
        loaded = load_config(config, data=None if data is None else str(data.resolve()))
        return only_metric(loaded, metric)
    if data is None:
        raise fail("give the evaluation YAML file, or the evaluation set with --data")
    try:
        return EvalConfig(data=str(data.resolve()), metrics=[metric], target={"kind": "data"})
    except ValueError as exc:
        raise ConfigError(f"--data: {exc}") from None


def _as_dict(found: SamplePrompts) -> dict[str, object]:
    return {
        "metric": found.metric,
        "request_id": found.request_id,
        "needs_judge": found.needs_judge,
        "not_applicable": found.not_applicable,
        "stand_in_response": found.stand_in_response,
        "calls": [{"purpose": c.purpose, "messages": c.messages} for c in found.calls],
    }


def _print(found: SamplePrompts) -> None:
    where = f"{found.metric} on {found.request_id}"
    if not found.needs_judge:
        out.print(Text(f"{where}: {found.metric} calls no judge; it scores without a model"))
        return
    if found.not_applicable is not None:
        out.print(Text(f"{where}: no judge call, the row lacks an input: {found.not_applicable}"))
        return
    total = len(found.calls)
    out.print(Text(f"{where}: {total} judge call{'s' if total != 1 else ''}"))
    if found.stand_in_response:
        out.print(
            Text("(the target is not called: its reference answer stands in for its response)")
        )
    for number, call in enumerate(found.calls, start=1):
        label = f"call {number} of {total}" + (f": {call.purpose}" if call.purpose else "")
        out.print(Rule(Text(label), align="left"))
        for message in call.messages:
            out.print(Text(f"[{message.get('role', '?')}]", style="bold"))
            out.print(Text(str(message.get("content", ""))), soft_wrap=True)


def register(app: typer.Typer) -> None:
    """Add ``ragjudge prompts``."""
    app.command()(prompts)
