"""Stability over trials: the figures recover what a stochastic judge was built to do."""

from __future__ import annotations

import json
import random
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

import ragjudge as rj
from ragjudge.cli import app
from ragjudge.models.scripted import ReplyScript, ScriptedProvider, prompt_text
from ragjudge.stats import icc_one_way, stability_of


def frame_of(values: np.ndarray) -> pd.DataFrame:
    """A long score frame of an ``n × k`` array (samples × trials)."""
    n, k = values.shape
    return pd.DataFrame(
        {
            "sample_id": [f"s{i}" for i in range(n) for _ in range(k)],
            "trial": [t for _ in range(n) for t in range(k)],
            "metric": "m",
            "value": values.reshape(-1),
            "error": None,
        }
    )


@pytest.mark.parametrize("p", [0.1, 0.3, 0.5])
def test_a_verdict_flipping_with_probability_p_is_recovered(p: float) -> None:
    rng = np.random.default_rng(1)
    n, k = 2000, 6
    values = (rng.random((n, k)) < p).astype(float)
    (found,) = stability_of(frame_of(values), n_resamples=100)
    # a 0/1 value drawn with probability p: variance p(1 − p); it flips unless all
    # trials agree, with probability 1 − p^k − (1 − p)^k
    assert found.within_var == pytest.approx(p * (1 - p), rel=0.05)
    assert found.flips == pytest.approx(1 - p**k - (1 - p) ** k, abs=0.03)
    # every sample has the same p: no variance between samples, ICC near 0
    assert found.icc is not None and abs(found.icc) < 0.05


def test_icc_of_known_cases() -> None:
    assert icc_one_way(np.array([[1.0, 1.0], [0.0, 0.0], [0.5, 0.5]])) == pytest.approx(1.0)
    # MSB = 2·0.5 / 1 = 1; MSW = (0.25 + 0.25 + 0.25 + 0.25) / 2 = 0.5; (1 − 0.5) / (1 + 0.5)
    assert icc_one_way(np.array([[1.0, 0.0], [1.0, 2.0]])) == pytest.approx(1 / 3)
    # no variance between samples, all of it within: MSB = 0, ICC = −MSW / (k − 1)MSW
    assert icc_one_way(np.array([[1.0, 0.0], [0.0, 1.0]])) == pytest.approx(-1.0)
    assert icc_one_way(np.array([[1.0, 1.0], [1.0, 1.0]])) is None  # no variance at all


def test_small_texts_are_the_unstable_ones() -> None:
    rng = np.random.default_rng(2)
    rows, sizes = [], {}
    for i in range(120):
        size = int(rng.integers(1, 12))
        sizes[("m", f"s{i}")] = float(size)
        for trial in range(5):  # each of `size` statements supported with p = 0.7
            rows.append((f"s{i}", trial, (rng.random(size) < 0.7).mean()))
    frame = pd.DataFrame(rows, columns=["sample_id", "trial", "value"]).assign(
        metric="m", error=None
    )
    (found,) = stability_of(frame, sizes, n_resamples=50)
    assert found.size_spearman is not None and found.size_spearman < -0.3
    assert found.size_n == 120


def test_a_run_with_trials_reports_stability_beside_the_ragas_style_ratings(
    tmp_path: Path,
) -> None:
    rng = random.Random(5)

    def judge(messages: list[dict[str, object]]) -> str:
        prompt = prompt_text(messages)
        if prompt.startswith("You break an answer into statements."):
            count = int(re.search(r"fact (\d+)", prompt).group(1)) % 3 + 1  # type: ignore[union-attr]
            return json.dumps({"statements": [f"claim {i}" for i in range(count)]})
        count = len(re.findall(r"<<<BEGIN STATEMENT \d+>>>", prompt))
        flips = [("yes" if rng.random() < 0.6 else "no") for _ in range(count)]
        return json.dumps({"verdicts": [{"reason": "r", "verdict": v} for v in flips]})

    rows = [
        {
            "request_id": f"q{i}",
            "request": f"question {i}",
            "response": f"fact {i}",
            "retrieved_context": [{"doc_uri": "d", "content": "text"}],
        }
        for i in range(40)
    ]
    result = rj.evaluate(
        rows,
        metrics=["faithfulness"],
        judge=ScriptedProvider(ReplyScript(function=judge)),
        trials=4,
        store=tmp_path / "r.db",
        progress=False,
    )
    (row,) = result.stability
    assert row["seed_rating"] == "low" and row["samples"] == 40 and row["trials"] == 4
    assert 0.1 < row["within_sd"] < 0.6 and row["flips"] > 0.3
    assert row["size_spearman"] is not None and row["size_spearman"] < 0
    shown = CliRunner().invoke(
        app, ["stability", result.run_id, "--store", str(tmp_path / "r.db")], env={"COLUMNS": "200"}
    )
    assert shown.exit_code == 0, shown.output
    assert "faithfulness" in shown.output and "low" in shown.output
    assert "RAGAS-style stability rating" in shown.output and "seed" not in shown.output
