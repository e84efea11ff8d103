"""Produce ``trace.json``: a real MLflow trace of a toy weather agent that calls two
tools (TOOL spans: ``geocode``, then ``weather``), and put it into the ``traced`` row of
``evalset.jsonl``, beside the calls the agent is expected to make. Nothing is called
over the network; the trace is kept in a throw-away local tracking store.

    pip install 'ragjudge[mlflow]'
    python examples/agents/make_trace.py
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any

import mlflow
from mlflow.entities import SpanType

HERE = Path(__file__).resolve().parent
QUESTION = "Will I need an umbrella in Oslo tomorrow?"
PLACES = {"Oslo": (59.91, 10.75), "Paris": (48.86, 2.35)}


@mlflow.trace(span_type=SpanType.TOOL)
def geocode(city: str) -> dict[str, float]:
    """The coordinates of a city."""
    lat, lon = PLACES[city]
    return {"lat": lat, "lon": lon}


@mlflow.trace(span_type=SpanType.TOOL)
def weather(lat: float, lon: float, day: str) -> dict[str, Any]:
    """A stand-in forecast."""
    return {"day": day, "rain_mm": 6.5 if lat > 55 else 0.0}


@mlflow.trace(span_type=SpanType.AGENT)
def agent(question: str) -> str:
    """The toy agent under test: find the place, ask for the forecast, answer."""
    place = geocode("Oslo")
    forecast = weather(place["lat"], place["lon"], day="tomorrow")
    if forecast["rain_mm"] > 1:
        return f"Yes: {forecast['rain_mm']} mm of rain are expected in Oslo tomorrow."
    return "No rain is expected in Oslo tomorrow."


def traced_answer(question: str) -> dict[str, Any]:
    """Run the agent once and return its trace as MLflow's JSON (the tracking store
    lives in a temporary folder, the working folder while tracing)."""
    here = Path.cwd()
    with tempfile.TemporaryDirectory() as store:
        os.chdir(store)
        mlflow.set_tracking_uri(f"sqlite:///{store}/mlflow.db")
        try:
            agent(question)
            mlflow.flush_trace_async_logging()
            trace_id = mlflow.get_last_active_trace_id()
            trace = mlflow.get_trace(trace_id) if trace_id else None
        finally:
            os.chdir(here)
        if trace is None:
            raise RuntimeError("MLflow recorded no trace")
        found: dict[str, Any] = json.loads(trace.to_json())
    # The tracking store's temporary folder says nothing about the agent.
    found.get("info", {}).get("tags", {}).pop("mlflow.artifactLocation", None)
    return found


def update_evalset(trace: dict[str, Any]) -> None:
    """Replace (or add) the ``traced`` row of ``evalset.jsonl``."""
    path = HERE / "evalset.jsonl"
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]
    row = {
        "request_id": "traced",
        "request": QUESTION,
        "trace": trace,
        "expected_tool_calls": [
            {"name": "geocode", "arguments": {"city": "Oslo"}, "order": 0},
            {"name": "weather", "arguments": {"day": "tomorrow"}, "order": 1},
        ],
    }
    rows = [r for r in rows if r.get("request_id") != "traced"] + [row]
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), "utf-8")


def main() -> None:
    trace = traced_answer(QUESTION)
    (HERE / "trace.json").write_text(
        json.dumps(trace, ensure_ascii=False, indent=2) + "\n", encoding="utf-8"
    )
    update_evalset(trace)
    print(f"wrote {HERE / 'trace.json'} and the 'traced' row of {HERE / 'evalset.jsonl'}")


if __name__ == "__main__":
    main()
