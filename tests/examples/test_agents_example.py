"""The agents example: tool calls given in the data (OpenAI's nested form and the plain
one) and read from the TOOL spans of a real MLflow trace, scored by the tool metrics
without a judge; the shipped trace is what MLflow's tracing makes of the toy agent."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

import ragjudge as rj
from ragjudge.targets._traces import read_trace

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "agents"


def _calls(trace: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    reading = read_trace(trace)
    assert reading is not None and reading.tool_calls is not None
    return [(c.name, c.arguments) for c in reading.tool_calls]


def test_the_shipped_trace_gives_the_agents_tool_calls_in_order() -> None:
    trace = json.loads((EXAMPLE / "trace.json").read_text(encoding="utf-8"))
    assert _calls(trace) == [
        ("geocode", {"city": "Oslo"}),
        ("weather", {"lat": 59.91, "lon": 10.75, "day": "tomorrow"}),
    ]


def test_the_example_scores_every_row_as_worked_out_by_hand(tmp_path: Path) -> None:
    config = yaml.safe_load((EXAMPLE / "eval.yaml").read_text(encoding="utf-8"))
    result = rj.evaluate(
        str(EXAMPLE / "evalset.jsonl"),
        metrics=config["metrics"],
        store=tmp_path / "r.db",
        progress=False,
    )
    frame = result.to_pandas().set_index("request_id")
    expected = {
        # made: geocode(Paris), weather(day=today): everything as expected
        "in-order": (1.0, 1.0, 1.0, 1.0, 0.0, 2.0),
        # geocode twice: one extra call (F1 2·2/(2+3)), one redundant, and neither the
        # strict trajectory nor the unordered one (same calls, as a multiset) holds
        "repeated": (0.8, 1.0, 0.0, 0.0, 1.0, 3.0),
        # weather before geocode, and geocode of the wrong city
        "wrong-city": (1.0, 0.5, 0.0, 1.0, 0.0, 2.0),
        "traced": (1.0, 1.0, 1.0, 1.0, 0.0, 2.0),
    }
    names = (
        "tool_call_f1",
        "tool_argument_match",
        "trajectory_match",
        "trajectory_unordered",
        "redundant_tool_calls",
        "tool_steps",
    )
    found = {rid: tuple(float(frame.loc[rid, n]) for n in names) for rid in expected}
    for request_id, values in expected.items():
        assert found[request_id] == pytest.approx(values), request_id


@pytest.mark.skipif(importlib.util.find_spec("mlflow") is None, reason="needs the mlflow extra")
def test_mlflow_tracing_makes_the_shipped_trace_again() -> None:
    # A process of its own: MLflow's tracing keeps process-wide state that other tests set.
    code = (
        "import json, make_trace; print(json.dumps(make_trace.traced_answer(make_trace.QUESTION)))"
    )
    # MLflow settings other tests put in this process's environment stay out of it too.
    env = {k: v for k, v in os.environ.items() if not k.startswith(("MLFLOW_", "OTEL_"))}
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=EXAMPLE, env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr[-2000:]
    fresh = json.loads(done.stdout.strip().splitlines()[-1])
    shipped = json.loads((EXAMPLE / "trace.json").read_text(encoding="utf-8"))
    assert _calls(fresh) == _calls(shipped)
    assert read_trace(fresh).response == read_trace(shipped).response  # type: ignore[union-attr]
