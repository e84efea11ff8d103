"""Meta-evaluation: how well each metric agrees with human labels (correlation,
agreement, thresholds, prediction-powered estimates), read from a stored run.

It may import :mod:`ragjudge.analysis`, :mod:`ragjudge.store`, :mod:`ragjudge.stats`,
:mod:`ragjudge.text`, :mod:`ragjudge.schema` and :mod:`ragjudge.errors`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ragjudge._util.lazy import lazy_names

# Each public name and the module that defines it, imported on first use.
_EXPORTS = {
    "HumanLabel": "ragjudge.meta._evaluation",
    "JudgeTable": "ragjudge.meta._table",
    "MetaBlock": "ragjudge.meta._evaluation",
    "MetaRow": "ragjudge.meta._evaluation",
    "MetaTable": "ragjudge.meta._evaluation",
    "meta_evaluate": "ragjudge.meta._evaluation",
    "meta_for_run": "ragjudge.meta._evaluation",
    "judge_table_for_run": "ragjudge.meta._table",
}

if TYPE_CHECKING:
    from ragjudge.meta._evaluation import (
        HumanLabel,
        MetaBlock,
        MetaRow,
        MetaTable,
        meta_evaluate,
        meta_for_run,
    )
    from ragjudge.meta._table import JudgeTable, judge_table_for_run

__all__ = [
    "HumanLabel",
    "JudgeTable",
    "MetaBlock",
    "MetaRow",
    "MetaTable",
    "judge_table_for_run",
    "meta_evaluate",
    "meta_for_run",
]

__getattr__ = lazy_names(__name__, _EXPORTS, globals())
