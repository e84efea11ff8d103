"""The system under test: responses already in the data, a Python callable, or an HTTP
endpoint (:mod:`ragjudge.targets.http`); each gives an :class:`~ragjudge.schema.Output`
(response, retrieved context, trace, usage, latency). Also the reading of MLflow traces.

It may import :mod:`ragjudge.schema`, :mod:`ragjudge.errors`, ``ragjudge._util``,
:mod:`ragjudge.loading` and :mod:`ragjudge.models` (the HTTP client's error mapping).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ragjudge._util.lazy import lazy_names

# Each public name and the module that defines it, imported on first use.
_EXPORTS = {
    "DataTarget": "ragjudge.targets._targets",
    "CallableTarget": "ragjudge.targets._targets",
    "ReplyLimits": "ragjudge.targets._targets",
    "ReplyTooLarge": "ragjudge.targets._targets",
    "Target": "ragjudge.targets._targets",
    "output_of_row": "ragjudge.targets._targets",
    "TraceReading": "ragjudge.targets._traces",
    "is_mlflow_trace": "ragjudge.targets._traces",
    "read_trace": "ragjudge.targets._traces",
    "with_trace": "ragjudge.targets._traces",
}

if TYPE_CHECKING:
    from ragjudge.targets._targets import (
        CallableTarget,
        DataTarget,
        ReplyLimits,
        ReplyTooLarge,
        Target,
        output_of_row,
    )
    from ragjudge.targets._traces import TraceReading, is_mlflow_trace, read_trace, with_trace

__all__ = [
    "CallableTarget",
    "DataTarget",
    "ReplyLimits",
    "ReplyTooLarge",
    "Target",
    "TraceReading",
    "is_mlflow_trace",
    "output_of_row",
    "read_trace",
    "with_trace",
]

__getattr__ = lazy_names(__name__, _EXPORTS, globals())
