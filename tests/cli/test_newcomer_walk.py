"""The first hour of a new user, as real commands in a fresh folder: ``ragjudge init``
→ the config pointed at a local OpenAI-compatible judge → a judged run → ``show
latest`` → ``report latest`` → ``runs``; each step's output is checked. A second walk
meets a judge that fails every call and sees the run called failed everywhere."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

import ragjudge
from ragjudge.testing import FaultPlan, OpenAITestServer, ReplyScript

pytestmark = pytest.mark.smoke  # run in the core-only environment of `make test` too

RATING = "response/llm_judged/relevance_to_query/rating"


def ragjudge_command(folder: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """``ragjudge ARGS`` in ``folder``, in a new interpreter with this checkout's code."""
    source = str(Path(ragjudge.__file__).parent.parent)
    path = os.pathsep.join(p for p in (source, os.environ.get("PYTHONPATH")) if p)
    env = {**os.environ, "PYTHONPATH": path, "COLUMNS": "200", "OPENAI_API_KEY": ""}
    return subprocess.run(
        [sys.executable, "-m", "ragjudge", *args],
        cwd=folder,
        capture_output=True,
        text=True,
        env=env,
        stdin=subprocess.DEVNULL,
        timeout=300,
    )


@pytest.fixture(scope="module")
def judge() -> Iterator[OpenAITestServer]:
    # a JSON reply to the rating prompt, also where no reply schema constrains it (the
    # core install has no JSON Schema checker for the test server)
    rating = ("give the response a whole-number rating", '{"explanation": "clear", "rating": 4}')
    script = ReplyScript(rules=[rating], default="Answer: yes, it answers it.")
    with OpenAITestServer(replies=script) as server:
        yield server


def pointed_at(config: Path, base_url: str) -> None:
    """Point the written config's local judge at ``base_url``, as a user edits it."""
    text = config.read_text(encoding="utf-8")
    assert "base_url: http://localhost:11434/v1" in text
    text = text.replace("http://localhost:11434/v1", base_url)
    config.write_text(text.replace("openai/llama3.1", "openai/test-model"), encoding="utf-8")


def test_init_run_show_report_in_a_fresh_folder(tmp_path: Path, judge: OpenAITestServer) -> None:
    init = ragjudge_command(tmp_path, "init", "--no-reference", "--judge", "local")
    assert init.returncode == 0, init.stderr
    assert "wrote eval.yaml" in init.stdout and "wrote evalset.jsonl" in init.stdout
    assert "relevance_to_query" in (tmp_path / "eval.yaml").read_text(encoding="utf-8")
    again = ragjudge_command(tmp_path, "init")
    assert again.returncode == 2 and "eval.yaml exists" in again.stderr

    pointed_at(tmp_path / "eval.yaml", judge.base_url)
    run = ragjudge_command(tmp_path, "run", "eval.yaml", "--no-progress")
    assert run.returncode == 0, run.stdout + run.stderr
    assert RATING in run.stdout and "status: completed" in run.stdout

    show = ragjudge_command(tmp_path, "show", "latest", "--json")
    assert show.returncode == 0, show.stderr
    shown = json.loads(show.stdout)
    assert shown["status"] == "completed" and shown["n_samples"] == 3
    means = {m["metric"]: m["mean"] for m in shown["metrics"]}
    assert means[RATING] == 1.0

    report = ragjudge_command(tmp_path, "report", "latest", "-o", "latest.html")
    assert report.returncode == 0, report.stderr
    page = (tmp_path / "latest.html").read_text(encoding="utf-8")
    assert shown["run_id"] in page and 'class="status completed"' in page

    runs = ragjudge_command(tmp_path, "runs", "--json")
    (listed,) = json.loads(runs.stdout)
    assert listed["run_id"] == shown["run_id"] and listed["status"] == "completed"
    cache = ragjudge_command(tmp_path, "cache", "stats", "--json")
    assert cache.returncode == 0 and json.loads(cache.stdout)["entries"] >= 3


def test_a_run_whose_every_judge_call_fails_looks_failed_everywhere(tmp_path: Path) -> None:
    faults = FaultPlan(error_500_rate=1.0)
    with OpenAITestServer(faults=faults) as broken:
        init = ragjudge_command(tmp_path, "init", "--no-reference", "--judge", "local")
        assert init.returncode == 0, init.stderr
        pointed_at(tmp_path / "eval.yaml", broken.base_url)
        text = (tmp_path / "eval.yaml").read_text(encoding="utf-8")
        quick = "  temperature: 0\n  preflight: false\n  max_retries: 0\n"
        (tmp_path / "eval.yaml").write_text(text.replace("  temperature: 0\n", quick))
        run = ragjudge_command(tmp_path, "run", "eval.yaml", "--no-progress")
    assert run.returncode == 4, run.stdout + run.stderr
    assert "status: failed" in run.stdout

    runs = ragjudge_command(tmp_path, "runs")
    assert runs.returncode == 0, runs.stderr
    assert "failed" in runs.stdout and "judge server error" in runs.stdout
    (listed,) = json.loads(ragjudge_command(tmp_path, "runs", "--json").stdout)
    assert listed["status"] == "failed" and listed["errors_by_cause"] == {"judge server error": 9}

    report = ragjudge_command(tmp_path, "report", "latest", "-o", "failed.html")
    assert report.returncode == 0, report.stderr
    page = (tmp_path / "failed.html").read_text(encoding="utf-8")
    assert 'class="status failed"' in page and "9 judge server error" in page
