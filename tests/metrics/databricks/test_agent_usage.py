"""``agent/*_token_count`` and ``agent/latency_seconds``: from the trace, else from what
the target reported; not applicable when nothing did."""

from __future__ import annotations

import pytest
from databricks_helpers import TRACE_ROW, score_row

from ragjudge.schema import Output, Usage
from ragjudge.targets._traces import read_trace

NAMES = (
    "agent/total_token_count",
    "agent/total_input_token_count",
    "agent/total_output_token_count",
)
LATENCY = "agent/latency_seconds"


async def test_from_the_trace() -> None:
    scored = await score_row("agent_usage", TRACE_ROW)
    assert [scored[n].value for n in NAMES] == [93, 57, 36]
    reading = read_trace(TRACE_ROW["trace"])
    assert reading is not None
    assert scored[LATENCY].value == pytest.approx(reading.latency)


async def test_from_the_targets_usage_and_measured_latency() -> None:
    output = Output(response="a", usage=Usage(input_tokens=10, output_tokens=4), latency=1.5)
    scored = await score_row("agent_usage", {"request": "q"}, output=output)
    assert [scored[n].value for n in NAMES] == [14, 10, 4]
    assert scored[LATENCY].value == 1.5


async def test_the_trace_wins_over_the_measured_latency() -> None:
    output = Output(response="a", trace=TRACE_ROW["trace"], latency=9.0)
    scored = await score_row("agent_usage", {"request": "q"}, output=output)
    assert scored[LATENCY].value < 1


async def test_nothing_reported_is_not_applicable_not_zero() -> None:
    scored = await score_row("agent_usage", {"request": "q", "response": "a"})
    for name in (*NAMES, LATENCY):
        assert scored[name].value is None and scored[name].error is None
        assert scored[name].skipped
