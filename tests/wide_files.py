"""Wide evaluation files, one response column per system, derived from the MTRAG
human evaluations in ``../shared/data`` (tests are skipped when it is absent)."""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any

from conftest import shared_data

MODELS = {"gpt4o": "gpt-4o", "llama": "llama-3.1-405b-instruct"}
"""System name → the MTRAG model id whose responses its column holds."""


def mtrag_wide_rows(count: int) -> list[dict[str, Any]]:
    """The first ``count`` MTRAG tasks, one row each: the last user turn, the reference
    answer, and each model's response in its own column ``response_NAME`` (no id
    column)."""
    path = shared_data("mtrag-human", "reference_subset_with_human_evaluations.json")
    document = json.loads(path.read_text(encoding="utf-8"))
    responses = {
        (item["task_id"], item["model_id"]): item["model_response"]
        for item in document["evaluations"]
    }
    rows = []
    for task in document["tasks"][:count]:
        question = [turn["text"] for turn in task["input"] if turn["speaker"] == "user"][-1]
        row = {"question": question, "reference": task["targets"][0]["text"]}
        for name, model in MODELS.items():
            row[f"response_{name}"] = responses[(task["task_id"], model)]
        rows.append(row)
    return rows


def write_wide(path: Path, rows: list[dict[str, Any]]) -> Path:
    """``rows`` written to ``path`` as a tab-separated file."""
    with path.open("w", encoding="utf-8", newline="") as file:
        writer = csv.DictWriter(file, fieldnames=list(rows[0]), delimiter="\t")
        writer.writeheader()
        writer.writerows(rows)
    return path
