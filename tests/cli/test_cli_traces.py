"""``ragjudge run`` on an OpenTelemetry trace file: the format is recognised from the
content, token counts and latency come from the trace, and a trace without an answer
stops the run naming the file and the trace."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ragjudge.cli import app

pytest.importorskip("openinference.instrumentation.langchain")
pytest.importorskip("opentelemetry.sdk")

from traced_chain import write_langchain_trace

runner = CliRunner()


def _config(tmp_path: Path, data: Path) -> Path:
    config = tmp_path / "eval.yaml"
    config.write_text(f"data: {data.name}\nmetrics: [agent_usage]\n")
    return config


def test_run_on_an_otlp_file_scores_the_tokens_and_latency_of_its_trace(tmp_path: Path) -> None:
    data = write_langchain_trace(tmp_path / "traces.json")
    result = runner.invoke(app, ["run", str(_config(tmp_path, data)), "--json", "--no-progress"])
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout)
    means = {m["metric"]: m["mean"] for m in summary["metrics"]}
    assert means["agent/total_input_token_count"] == 42
    assert means["agent/total_output_token_count"] == 7
    assert means["agent/total_token_count"] == 49
    assert means["agent/latency_seconds"] > 0
    assert summary["n_samples"] == 1
    assert any(
        "read as OpenTelemetry traces, OTLP JSON (guessed from the file's content" in note
        for note in summary["notes"]
    )


def test_a_trace_without_an_answer_stops_the_run_naming_it(tmp_path: Path) -> None:
    span = {
        "traceId": "ab" * 16,
        "spanId": "cd" * 8,
        "name": "agent",
        "startTimeUnixNano": "1",
        "attributes": [{"key": "input.value", "value": {"stringValue": "q"}}],
    }
    data = tmp_path / "traces.json"
    data.write_text(json.dumps({"resourceSpans": [{"scopeSpans": [{"spans": [span]}]}]}))
    result = runner.invoke(app, ["run", str(_config(tmp_path, data)), "--no-progress"])
    assert result.exit_code == 2
    assert str(data) in result.stderr
    assert f"trace {'ab' * 16}: agent.output" in result.stderr
    assert "the root span has no output" in result.stderr
