"""``ragjudge followups``: a run's evaluation set with the follow-up questions its
multi-turn evaluation asked, for a paired replay on another system."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from ragjudge.cli._common import DEFAULT_STORE, RunArgument, StoreOption, fail, opened_store, out

__all__ = ["register"]


def followups(
    run_id: RunArgument,
    output: Annotated[
        Path, typer.Option("-o", "--output", help="The evaluation set to write (JSON Lines).")
    ],
    store: StoreOption = DEFAULT_STORE,
) -> None:
    """Write RUN's samples with the follow-up questions its multi-turn evaluation asked
    (metadata.followups). Evaluate another system on that file with the 'multiturn'
    metric and 'replay: true': it gets exactly these questions, in the same order, so
    'ragjudge compare' sets the two systems side by side on the same dialogues."""
    from ragjudge.analysis._followups import replay_rows
    from ragjudge.errors import AnalysisError

    with opened_store(store) as opened:
        run = opened.run(run_id)
        try:
            rows = replay_rows(opened, run.run_id)
        except AnalysisError as exc:
            raise fail(str(exc)) from None
    output.parent.mkdir(parents=True, exist_ok=True)
    with output.open("w", encoding="utf-8") as handle:
        for row in rows:
            handle.write(json.dumps(row, ensure_ascii=False) + "\n")
    asked = sum(len(row["metadata"]["followups"]) for row in rows)
    out.print(f"wrote {len(rows)} sample(s) with {asked} follow-up question(s) to {output}")


def register(app: typer.Typer) -> None:
    """Add ``ragjudge followups``."""
    app.command()(followups)
