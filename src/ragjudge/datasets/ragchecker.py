"""The RAGChecker meta-evaluation file (``ragchecker/human_labeled_data.json``): 280
questions, each answered by two RAG systems and compared by two annotators.

Each question gives two samples, ``<instance>::model1`` and ``<instance>::model2``, with
the question, that system's response and the ground-truth answer. Their metadata holds
the pair (``pair``, ``side``, ``system``, ``dataset``) and the annotators' pairwise
preferences as lists (one value per annotator, −2 … 2, positive favouring model 2):
``correctness_label``, ``completeness_label``, ``overall_label``. The file holds no
retrieved contexts.
"""

from __future__ import annotations

import ast
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ragjudge.datasets.mtrag._records import make_sample, read_text, resolve_file, samples_or_error
from ragjudge.errors import DatasetError, RowProblem
from ragjudge.schema import Sample

__all__ = ["LABELS", "RAGCHECKER_FILE", "load_ragchecker"]

RAGCHECKER_FILE = "human_labeled_data.json"
LABELS = ("correctness_label", "completeness_label", "overall_label")
SIDES = ("model1", "model2")


def load_ragchecker(path: str | Path) -> list[Sample]:
    """Two samples per question of the RAGChecker file (or the folder holding it)."""
    file = resolve_file(path, RAGCHECKER_FILE)
    label = str(file)
    try:
        records = json.loads(read_text(file))
    except json.JSONDecodeError as exc:
        raise DatasetError(
            [RowProblem(source=label, row=0, field="", reason=f"not JSON: {exc}")]
        ) from None
    if not isinstance(records, list):
        raise DatasetError(
            [RowProblem(source=label, row=0, field="", reason="expected a JSON list")]
        )
    pairs: dict[str, dict[str, Any]] = {}
    problems: list[RowProblem] = []
    for row, record in enumerate(records, start=1):
        try:
            _merge(pairs, record)
        except (KeyError, TypeError, ValueError, SyntaxError) as exc:
            problems.append(
                RowProblem(source=label, row=row, field="", reason=f"unreadable record: {exc}")
            )
    rows = [
        (index, sample)
        for index, pair in enumerate(pairs.values(), start=1)
        for sample in _samples(pair)
    ]
    return samples_or_error(label, rows, problems, empty="the file holds no record")


def _side(value: Any) -> Mapping[str, Any]:
    """A system's record: a JSON object, or the Python-literal text the file holds."""
    found = value if isinstance(value, Mapping) else ast.literal_eval(str(value))
    if not isinstance(found, Mapping):
        raise ValueError("a system's record is not an object")
    return found


def _merge(pairs: dict[str, dict[str, Any]], record: Mapping[str, Any]) -> None:
    """Add one annotator's record to its question's pair."""
    key = str(record["instance_id"])
    pair = pairs.setdefault(
        key,
        {
            "instance": key,
            "record": record,
            "sides": {side: _side(record[side]) for side in SIDES},
            "labels": {name: [] for name in LABELS},
        },
    )
    for name in LABELS:
        pair["labels"][name].append(int(record[name]))


def _samples(pair: Mapping[str, Any]) -> list[Sample]:
    record = pair["record"]
    return [
        make_sample(
            request_id=f"{pair['instance']}::{side}",
            request=str(record["query"]),
            response=str(pair["sides"][side]["response"]),
            expected_response=str(record["gt_answer"]),
            metadata={
                "pair": pair["instance"],
                "side": side,
                "system": str(pair["sides"][side].get("model_name", side)),
                "dataset": str(record.get("dataset", "")),
                **pair["labels"],
            },
        )
        for side in SIDES
    ]
