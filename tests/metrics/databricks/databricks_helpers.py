"""What the Databricks metric tests share: the example's trace row, and scoring one row
with a scripted judge (see :mod:`judged_row`)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from judged_row import Scored, score_row

__all__ = ["EXAMPLE", "TRACE_ROW", "Scored", "score_row"]

EXAMPLE = Path(__file__).resolve().parents[3] / "examples" / "databricks"
TRACE_ROW: dict[str, Any] = {
    "request": "Why is reduceByKey usually faster than groupByKey in Spark?",
    "trace": json.loads((EXAMPLE / "trace.json").read_text(encoding="utf-8")),
}
"""A row with only a request and MLflow's trace of the toy RAG system."""
