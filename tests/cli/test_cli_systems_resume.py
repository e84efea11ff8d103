"""A ``ragjudge run`` of a wide file stopped by Ctrl-C in its first system's run: it
prints the command resuming that run and names the systems not started, and the
resume finishes that run only."""

from __future__ import annotations

import re
import signal
import sqlite3
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ragjudge.cli import app
from ragjudge.metrics import Metric, MetricContext
from ragjudge.metrics._registry import _REGISTRY
from ragjudge.schema import Output, Sample, Score
from wide_files import mtrag_wide_rows, write_wide

ROWS = 6
STOP_AT = 3
"""The call of the metric during which the run is interrupted."""


class InterruptingMetric(Metric):
    """Scores 1.0, but its ``STOP_AT``-th call sends this process a Ctrl-C (SIGINT)."""

    requires = ("response",)
    calls = 0

    def __init__(self) -> None:
        self.name = "interrupting"

    async def score(self, sample: Sample, output: Output, ctx: MetricContext) -> Score:
        InterruptingMetric.calls += 1
        if InterruptingMetric.calls == STOP_AT:
            signal.raise_signal(signal.SIGINT)
        return Score(metric=self.name, value=1.0)


@pytest.fixture
def interrupting(monkeypatch: pytest.MonkeyPatch) -> None:
    InterruptingMetric.kind = "interrupting"
    monkeypatch.setattr(InterruptingMetric, "calls", 0)
    monkeypatch.setitem(_REGISTRY, "interrupting", InterruptingMetric)


def test_an_interrupted_run_of_two_systems_resumes_the_first_and_names_the_second(
    tmp_path: Path, interrupting: None
) -> None:
    write_wide(tmp_path / "mtrag_wide.tsv", mtrag_wide_rows(ROWS))
    config = tmp_path / "eval.yaml"
    config.write_text(
        "name: mtrag\ndata: mtrag_wide.tsv\n"
        "columns: {request: question, expected_response: reference}\n"
        "systems: {gpt4o: response_gpt4o, llama: response_llama}\n"
        "metrics: [interrupting]\nstore: runs.db\nconcurrency: 1\n",
        encoding="utf-8",
    )
    store = tmp_path / "runs.db"

    stopped = CliRunner().invoke(app, ["run", str(config), "--no-progress"])

    assert stopped.exit_code == 130, stopped.output
    command = re.search(r"Resume with: ragjudge run \S+ --resume (\S+)", stopped.stderr)
    assert command is not None, stopped.stderr
    assert "systems not started: llama" in stopped.stderr
    with sqlite3.connect(store) as conn:
        ((run_id, name, status),) = conn.execute("SELECT run_id, name, status FROM runs")
    assert (command.group(1), name, status) == (run_id, "mtrag/gpt4o", "interrupted")

    resumed = CliRunner().invoke(
        app, ["run", str(config), "--resume", run_id, "--no-progress", "--store", str(store)]
    )

    assert resumed.exit_code == 0, resumed.output
    with sqlite3.connect(store) as conn:
        runs = conn.execute("SELECT run_id, status FROM runs").fetchall()
        (scores,) = conn.execute("SELECT COUNT(*) FROM scores WHERE error IS NULL").fetchone()
    assert runs == [(run_id, "completed")]
    assert scores == ROWS
