"""A stored run of 40 samples whose ``exact_match`` (a yes/no score) accepts 30 and
``token_f1`` (no labels), with people's yes/no labels of ``exact_match`` on a random
draw of 20 samples that accept far fewer than the judge does, and two targeted labels
the estimate must leave out."""

from __future__ import annotations

from pathlib import Path

import numpy as np

import ragjudge as rj
from ragjudge.stats import PPIEstimate, ppi_estimate
from ragjudge.store import Label, Store

MATCHED = 30
ROWS = [
    {
        "request_id": f"q{i}",
        "request": f"question {i}",
        "response": f"answer {i}" if i < MATCHED else "something else",
        "expected_response": f"answer {i}",
    }
    for i in range(40)
]
LABELLED = list(range(0, 40, 2))
"""The samples people labelled at random: every second one."""


def human_says(i: int) -> bool:
    """People accept only a third of the samples the judge accepts, and none other."""
    return i < MATCHED and i % 3 == 0


def evaluated_run(store: Path) -> rj.EvaluationResult:
    """Evaluate :data:`ROWS` into ``store`` (no labels yet)."""
    return rj.evaluate(ROWS, metrics=["exact_match", "token_f1"], store=store, progress=False)


def add_labels(store: Path, run_id: str) -> None:
    """People's labels of ``exact_match``: random ones on :data:`LABELLED`, and two
    targeted ones that contradict them."""
    labels = [
        Label(
            run_id=run_id,
            request_id=f"q{i}",
            metric="exact_match",
            annotator="ann",
            kind="yesno",
            value=human_says(i),
        )
        for i in LABELLED
    ]
    labels += [
        Label(
            run_id=run_id,
            request_id=f"q{i}",
            metric="exact_match",
            annotator="ann",
            kind="yesno",
            value=True,
            drawn="targeted",
        )
        for i in (1, 3)
    ]
    with Store(store) as opened:
        opened.save_labels(labels)


def labelled_run(store: Path) -> rj.EvaluationResult:
    """:func:`evaluated_run` with :func:`add_labels`."""
    result = evaluated_run(store)
    add_labels(store, result.run_id)
    return result


def expected_estimate() -> PPIEstimate:
    """The estimate computed straight from the arrays: the judge's verdict on every
    sample, the label on the random draw, NaN elsewhere."""
    judge = np.array([1.0 if i < MATCHED else 0.0 for i in range(40)])
    human = np.full(40, np.nan)
    for i in LABELLED:
        human[i] = 1.0 if human_says(i) else 0.0
    return ppi_estimate(judge, human, label_range=(0.0, 1.0), judge_range=(0.0, 1.0))
