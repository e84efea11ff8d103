"""A run evaluated on a generated set breaks down by the samples' kind and difficulty:
``show RUN --by metadata.kind`` and ``--by metadata.difficulty`` list every kind and
level the set holds."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from ragjudge.cli import app
from ragjudge.models.scripted import ScriptedProvider
from ragjudge.testsets._api import agenerate
from testset_script import GeneratorScript

runner = CliRunner()
KB = Path(__file__).resolve().parents[2] / "examples" / "quickstart" / "kb"


def generated_rows(tmp_path: Path) -> list[dict[str, Any]]:
    provider = ScriptedProvider(script=GeneratorScript().script(), model="gen")
    found = asyncio.run(
        agenerate(KB, 12, provider=provider, store=tmp_path / "gen.db", cache=False, seed=2)
    )
    assert found.complete, found.stopped
    return found.rows


def answered(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each row with its reference as the system's response (a data target)."""
    return [{**row, "response": row.get("expected_response", "")} for row in rows]


def test_show_breaks_a_generated_set_down_by_kind_and_difficulty(tmp_path: Path) -> None:
    rows = answered(generated_rows(tmp_path))
    (tmp_path / "set.jsonl").write_text(
        "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8"
    )
    config = tmp_path / "eval.yaml"
    config.write_text("data: set.jsonl\ntarget: data\nmetrics: [exact_match]\n", encoding="utf-8")
    store = str(tmp_path / ".ragjudge" / "runs.db")

    ran = runner.invoke(app, ["run", str(config), "--no-progress", "--json"])
    assert ran.exit_code == 0, ran.output
    by_kind = runner.invoke(app, ["show", "latest", "--store", store, "--by", "metadata.kind"])
    by_level = runner.invoke(
        app, ["show", "latest", "--store", store, "--by", "metadata.difficulty"]
    )

    assert by_kind.exit_code == 0 and by_level.exit_code == 0, by_kind.output + by_level.output
    kinds = {str(r["metadata"]["kind"]) for r in rows}
    levels = {str(r["metadata"]["difficulty"]) for r in rows}
    assert len(kinds) >= 4 and levels
    for kind in kinds:
        assert kind in by_kind.output
    for level in levels:
        assert level in by_level.output
