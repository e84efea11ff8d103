"""The tool metrics through a whole evaluation: tool calls given in the data, in
OpenAI's nested form and the plain one, carried into the outputs and scored; a call
whose arguments cannot be read fails its sample's scores and the run says so."""

from __future__ import annotations

from pathlib import Path

import pytest

import ragjudge as rj

ROWS = [
    {
        "request_id": "right",
        "request": "Weather in Paris, in Celsius?",
        "response": "18 °C",
        "tool_calls": [
            {"function": {"name": "geocode", "arguments": '{"city": "Paris"}'}},
            {"function": {"name": "weather", "arguments": '{"lat": 48.9, "unit": "C"}'}},
        ],
        "expected_tool_calls": [
            {"name": "geocode", "arguments": {"city": "Paris"}, "order": 0},
            {"name": "weather", "order": 1},
        ],
    },
    {
        "request_id": "swapped",
        "request": "Weather in Rome?",
        "response": "21 °C",
        "tool_calls": [
            {"name": "weather", "arguments": {}},
            {"name": "geocode", "arguments": {"city": "Rome"}},
            {"name": "geocode", "arguments": {"city": "Rome"}},
        ],
        "expected_tool_calls": [
            {"name": "geocode", "arguments": {"city": "Rome"}, "order": 0},
            {"name": "weather", "order": 1},
        ],
    },
    {
        "request_id": "broken",
        "request": "Weather in Oslo?",
        "response": "3 °C",
        "tool_calls": [{"function": {"name": "geocode", "arguments": "{city: Oslo"}}],
        "expected_tool_calls": [{"name": "geocode"}],
    },
]


def test_tool_metrics_score_a_stored_run(tmp_path: Path) -> None:
    with pytest.warns(rj.RunFailedWarning, match="1 of 3 results failed"):
        result = rj.evaluate(
            ROWS,
            metrics=["tool_call_f1", "trajectory_match", "redundant_tool_calls"],
            store=tmp_path / "r.db",
            progress=False,
        )
    frame = result.to_pandas().set_index("request_id")

    def value(request_id: str, metric: str) -> object:
        return frame.loc[request_id, metric]

    assert value("right", "tool_call_f1") == 1.0
    assert value("right", "trajectory_match") == 1.0
    assert value("swapped", "trajectory_match") == 0.0
    assert value("swapped", "redundant_tool_calls") == 1.0
    assert value("swapped", "tool_call_f1") == 0.8
    error = str(value("broken", "tool_call_f1.error"))
    assert "could not be read" in error
