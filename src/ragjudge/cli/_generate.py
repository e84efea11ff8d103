"""``ragjudge generate``: an evaluation set generated from a knowledge base — questions,
reference answers, expected facts and their source chunks, each candidate checked
before it is kept; progress is stored, so a second run continues without paying
twice."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from ragjudge.cli._common import fail

if TYPE_CHECKING:
    from ragjudge.cli._generate_inputs import GenerateInputs
    from ragjudge.testsets import GeneratedSet

__all__ = ["EXIT_COST_CEILING", "EXIT_SHORT", "register"]

EXIT_SHORT = 3
"""The set is smaller than asked (the kept samples are written)."""
EXIT_COST_CEILING = 6
"""The generation stopped at ``--max-cost`` (as ``ragjudge run`` does)."""


def generate(
    kb: Annotated[
        Path | None,
        typer.Option("--kb", help="The knowledge base: a folder of .txt/.md files or a JSONL."),
    ] = None,
    config: Annotated[
        Path | None,
        typer.Option(
            "--config",
            help="An eval.yaml: its knowledge_base, judge (the generator), cache and store.",
        ),
    ] = None,
    n: Annotated[int, typer.Option("--n", help="Samples wanted.")] = 20,
    output: Annotated[
        Path, typer.Option("-o", "--output", help="The evaluation set written (JSON Lines).")
    ] = Path("evalset.jsonl"),
    mix: Annotated[
        str | None,
        typer.Option(
            help="The share of each kind, e.g. single=0.4,multi=0.2,comparative=0.1,"
            "unanswerable=0.1,conversational=0.2 (a kind left out gets none)."
        ),
    ] = None,
    persona: Annotated[
        list[str] | None,
        typer.Option("--persona", help="Who asks (repeatable); drawn per question."),
    ] = None,
    personas: Annotated[
        Path | None, typer.Option("--personas", help="A file of personas, one per line.")
    ] = None,
    style: Annotated[
        str | None,
        typer.Option(
            "--style",
            help="How questions are worded, drawn per question: plain, terse, verbose, "
            "misspelt (comma-separated).",
        ),
    ] = None,
    language: Annotated[
        str | None,
        typer.Option(help="auto (the language of each question's chunks), en or ja."),
    ] = None,
    seed: Annotated[
        int | None, typer.Option(help="The same seed and settings make the same set.")
    ] = None,
    attempts: Annotated[
        float | None,
        typer.Option(help="At most this many candidates checked per sample wanted (default 3)."),
    ] = None,
    concurrency: Annotated[
        int | None, typer.Option(help="Candidates checked at once (default 8).")
    ] = None,
    embedding: Annotated[
        str | None,
        typer.Option(
            help="An embedding model (local, openai/text-embedding-3-small) to find "
            "near-duplicate questions; default: compare their words."
        ),
    ] = None,
    reference: Annotated[
        str | None,
        typer.Option(
            help="answer: rows hold a reference answer; facts: the expected facts "
            "(the other is kept in metadata)."
        ),
    ] = None,
    judge: Annotated[
        str | None,
        typer.Option(
            help="The generator model, e.g. openai/gpt-4o-mini; default: the config's judge."
        ),
    ] = None,
    chunk_size: Annotated[
        int | None,
        typer.Option(help="Characters per chunk (default: the config's, else 800)."),
    ] = None,
    chunk_overlap: Annotated[
        int | None,
        typer.Option(
            help="Characters shared by neighbouring chunks (default: the config's, else 100)."
        ),
    ] = None,
    store: Annotated[
        Path | None,
        typer.Option(
            "--store",
            help="The SQLite store keeping the progress (default: the config's, else "
            ".ragjudge/runs.db in this folder).",
        ),
    ] = None,
    no_cache: Annotated[
        bool, typer.Option("--no-cache", help="Do not use the model reply cache.")
    ] = False,
    dry_run: Annotated[
        bool,
        typer.Option(
            "--dry-run", help="Print the calls, tokens and cost it would take; call nothing."
        ),
    ] = False,
    max_cost: Annotated[
        float | None,
        typer.Option(
            help="Dollars the generation may spend: refused when its lowest estimate is "
            "above, and no more candidates are sent once the next ones would pass it."
        ),
    ] = None,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print the summary (or the plan) as JSON.")
    ] = False,
) -> None:
    """Generate an evaluation set from a knowledge base: questions with reference
    answers, expected facts and their source chunks. Each candidate is checked
    (answerable from its chunks, not answerable without them, grounded, not a
    near-duplicate) before it is kept. Progress is stored: run the same command again
    and it continues where it stopped without paying twice.

    Exit codes: 0 the set is complete; 3 it is short (the kept samples are written, the
    reason is printed); 6 stopped at --max-cost (run again with a higher one to
    continue); 2 a mistake in the options or config.
    """
    from ragjudge._util.known_secrets import register_secrets
    from ragjudge.cli._generate_inputs import (
        parse_mix,
        parse_styles,
        read_personas,
        resolve_inputs,
        settings_given,
    )

    if n < 1:
        raise fail(f"--n: ask for at least 1 sample (got {n})")
    inputs = resolve_inputs(
        kb,
        config,
        judge=judge,
        chunk_size=chunk_size,
        chunk_overlap=chunk_overlap,
        store=store,
        no_cache=no_cache,
    )
    register_secrets(inputs.secrets)
    chosen_personas = read_personas(persona or [], personas)
    settings = settings_given(
        mix=None if mix is None else parse_mix(mix),
        personas=chosen_personas or None,
        styles=None if style is None else parse_styles(style),
        language=language,
        seed=seed,
        attempts=attempts,
        concurrency=concurrency,
        embedding=embedding,
        reference=reference,
        max_cost=max_cost,
    )
    if dry_run:
        _dry_run(inputs, n, settings, as_json)
        return
    found = _generated(inputs, n, settings, output)
    _finish(found, output, as_json)


def _dry_run(inputs: GenerateInputs, n: int, settings: dict[str, object], as_json: bool) -> None:
    import asyncio

    from ragjudge.cli._generate_view import print_plan
    from ragjudge.testsets._api import plan

    settings = {k: v for k, v in settings.items() if k != "max_cost"}
    found = asyncio.run(
        plan(
            inputs.kb,
            n,
            judge=inputs.judge,
            chunk_size=inputs.chunk_size,
            chunk_overlap=inputs.chunk_overlap,
            **settings,
        )
    )
    print_plan(found, as_json)


def _generated(
    inputs: GenerateInputs, n: int, settings: dict[str, object], output: Path
) -> GeneratedSet:
    from ragjudge.testsets._api import generate

    return generate(
        inputs.kb,
        n,
        judge=inputs.judge,
        store=inputs.store,
        cache=inputs.cache,
        output=output,
        chunk_size=inputs.chunk_size,
        chunk_overlap=inputs.chunk_overlap,
        **settings,
    )


def _finish(found: GeneratedSet, output: Path, as_json: bool) -> None:
    from ragjudge.cli._generate_view import print_summary

    print_summary(found, output, as_json)
    if found.stopped is None:
        return
    raise typer.Exit(EXIT_COST_CEILING if "cost ceiling" in found.stopped else EXIT_SHORT)


def register(app: typer.Typer) -> None:
    """Add ``generate`` to the command line."""
    app.command("generate")(generate)
