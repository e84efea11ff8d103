"""What ``ragjudge generate`` prints: the dry run's plan, and after a generation the
samples kept per kind, the candidates dropped by each check (with what the check
means), the calls and cost, and why a set is short."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.table import Table
from rich.text import Text

from ragjudge.cli._common import err, out, table_console

if TYPE_CHECKING:
    from ragjudge.testsets import GeneratedSet
    from ragjudge.testsets._dryrun import GenerationPlan

__all__ = ["CHECK_MEANINGS", "print_plan", "print_summary", "summary_dict"]

CHECK_MEANINGS: dict[str, str] = {
    "generated": "the model's reply held no usable question and answer",
    "answerable": "the judge could not answer the question from its source chunks",
    "grounded": "the reference answer says more than its source chunks",
    "closed_book": "the model answered it correctly without the chunks (too easy)",
    "every_passage": "one chunk alone answers a question meant to need two",
    "needs_history": "the follow-up reads as well without its earlier turns",
    "not_in_knowledge_base": "an 'unanswerable' question the knowledge base answers after all",
    "duplicate": "nearly repeats a sample kept before it",
    "error": "a model call failed after its retries",
}
"""What each check (:data:`ragjudge.testsets.CheckName`) dropping a candidate means."""


def _money(value: float | None) -> str:
    return "no price known" if value is None else f"${value:.4f}"


def print_plan(plan: GenerationPlan, as_json: bool) -> None:
    """The dry run: samples wanted per kind, candidates, calls, tokens and cost (each
    from low to high) and where the prices come from."""
    figures = plan.to_dict()
    if as_json:
        print(json.dumps(figures, ensure_ascii=False, indent=2))
        return
    out.print(Text(f"Dry run with {plan.generator} as the generator: nothing was called."))
    table = Table("kind", "samples wanted", "note")
    for kind, count in plan.wanted.items():
        table.add_row(kind, str(count), plan.unavailable.get(kind, ""))
    table_console().print(table)
    rows = [
        ("candidates checked", figures["candidates"]),
        ("model calls", figures["calls"]),
        ("input tokens", figures["input_tokens"]),
        ("output tokens", figures["output_tokens"]),
    ]
    for label, span in rows:
        out.print(
            Text(f"{label}: {span['low']} to {span['high']}"), highlight=False, soft_wrap=True
        )
    cost = figures["cost"]
    out.print(
        Text(f"cost: {_money(cost['low'])} to {_money(cost['high'])}"),
        highlight=False,
        soft_wrap=True,
    )
    out.print(
        Text(
            "low: every candidate passes its checks; high: every kind uses all its "
            "attempts (--attempts)."
        )
    )
    if plan.price_source:
        out.print(Text(f"prices: {plan.price_source}"), highlight=False, soft_wrap=True)
    if plan.price_note:
        out.print(Text(plan.price_note), highlight=False, soft_wrap=True)


def summary_dict(found: GeneratedSet, output: Path) -> dict[str, Any]:
    """The generation's outcome as JSON-able data (``generate --json``)."""
    assembly = found.assembly
    return {
        "output": str(output),
        "generation_id": found.generation_id,
        "complete": found.complete,
        "samples": len(found.rows),
        "wanted": found.wanted,
        "kept": found.kept_by_kind(),
        "checked": assembly.checked,
        "dropped": dict(assembly.dropped),
        "spare": assembly.spare,
        "resumed": found.resumed,
        "calls": found.calls,
        "cost": found.cost,
        "stopped": found.stopped,
        "errors": list(found.errors),
    }


def print_summary(found: GeneratedSet, output: Path, as_json: bool) -> None:
    """The generation's outcome (see the module's docstring)."""
    if as_json:
        print(json.dumps(summary_dict(found, output), ensure_ascii=False, indent=2))
        return
    kept = found.kept_by_kind()
    table = Table("kind", "wanted", "kept")
    for kind, wanted in found.wanted.items():
        table.add_row(kind, str(wanted), str(kept.get(kind, 0)))
    table.add_row("all", str(sum(found.wanted.values())), str(len(found.rows)), style="bold")
    console = table_console()
    console.print(table)
    _print_checks(found)
    assembly = found.assembly
    lines = [
        f"candidates checked: {assembly.checked} ({found.resumed} read back from the store, "
        "not paid again)",
        f"spare (passed every check after their kind was full, kept for a larger set): "
        f"{assembly.spare}",
        f"model calls: {found.calls}; cost: {_money(found.cost)}",
        f"wrote {len(found.rows)} samples to {output}",
    ]
    for line in lines:
        out.print(Text(line), highlight=False, soft_wrap=True)
    _print_shortfall(found)


def _print_checks(found: GeneratedSet) -> None:
    dropped = found.assembly.dropped
    if not dropped:
        out.print(Text("No candidate was dropped."))
        return
    table = Table("check", "dropped", "what it means")
    for check, meaning in CHECK_MEANINGS.items():
        if dropped.get(check):
            table.add_row(check, str(dropped[check]), meaning)
    table_console().print(table)


def _print_shortfall(found: GeneratedSet) -> None:
    if found.errors:
        err.print(Text("The generator model failed with:", style="bold"))
        for error in found.errors:
            err.print(Text(f"  - {error}"), highlight=False, soft_wrap=True)
    if found.stopped is not None:
        short = sum(found.wanted.values()) - len(found.rows)
        err.print(
            Text(f"The set is {short} samples short: {found.stopped}", style="yellow"),
            highlight=False,
            soft_wrap=True,
        )
