"""Exports of stored runs: files (JSON Lines, CSV, Parquet) and MLflow runs.

It may import :mod:`ragjudge.analysis`, :mod:`ragjudge.store`, :mod:`ragjudge.schema` and
:mod:`ragjudge.errors`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ragjudge._util.lazy import lazy_names

# Each public name and the module that defines it, imported on first use.
_EXPORTS = {
    "EXPORT_FORMATS": "ragjudge.export._files",
    "ExportError": "ragjudge.export._files",
    "write_export": "ragjudge.export._files",
    "MlflowExportError": "ragjudge.export._mlflow",
    "export_to_mlflow": "ragjudge.export._mlflow",
    "log_to_mlflow": "ragjudge.export._mlflow",
}

if TYPE_CHECKING:
    from ragjudge.export._files import EXPORT_FORMATS, ExportError, write_export
    from ragjudge.export._mlflow import MlflowExportError, export_to_mlflow, log_to_mlflow

__all__ = [
    "EXPORT_FORMATS",
    "ExportError",
    "MlflowExportError",
    "export_to_mlflow",
    "log_to_mlflow",
    "write_export",
]

__getattr__ = lazy_names(__name__, _EXPORTS, globals())
