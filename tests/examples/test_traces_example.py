"""The traces example (examples/traces): an OTLP file written by the LangChain
instrumentation and a LangSmith export run as evaluation sets, with the token counts
and latency of their traces and a check on their answers."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from ragjudge._util.extras import extra_installed
from ragjudge.cli import app

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "traces"


def _means(tmp_path: Path, config: str) -> dict[str, Any]:
    folder = tmp_path / "traces"
    shutil.copytree(EXAMPLE, folder, ignore=shutil.ignore_patterns(".ragjudge"))
    result = CliRunner().invoke(app, ["run", str(folder / config), "--json", "--no-progress"])
    assert result.exit_code == 0, result.output
    return {m["metric"]: m["mean"] for m in json.loads(result.stdout)["metrics"]}


def test_the_opentelemetry_file(tmp_path: Path) -> None:
    if not extra_installed("traces"):
        pytest.skip("needs the 'traces' extra")
    means = _means(tmp_path, "eval.yaml")
    assert means["agent/total_input_token_count"] == 42
    assert means["agent/total_output_token_count"] == 7
    assert means["agent/latency_seconds"] > 0
    assert means["contains_any"] == 1.0


def test_the_langsmith_export(tmp_path: Path) -> None:
    means = _means(tmp_path, "langsmith.yaml")
    assert means["agent/total_token_count"] == 93
    assert means["agent/latency_seconds"] == pytest.approx(2.25)
    assert means["contains_any"] == 1.0
