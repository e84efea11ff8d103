"""The tree of errors: every error class ragjudge defines derives from RagjudgeError
through the branch that says what went wrong, keeps the builtin base callers catch,
and is importable from where it was."""

from __future__ import annotations

import importlib
import inspect
import pkgutil
from pathlib import Path

import pytest

import ragjudge
from ragjudge import errors
from ragjudge.analysis._columns import UnknownKeyError
from ragjudge.errors import (
    AnalysisError,
    ClusterError,
    ConfigError,
    DataError,
    DataFileNotFound,
    DatasetError,
    ExportError,
    JudgeError,
    MetricError,
    RagjudgeError,
    StoreError,
    TargetError,
    TargetSetupError,
    TextFileError,
)
from ragjudge.export import MlflowExportError
from ragjudge.metrics import MetricFailure, NotApplicable
from ragjudge.metrics._prompts import UndelimitedDataError
from ragjudge.metrics.classify import SpecError
from ragjudge.metrics.replies import ParseError
from ragjudge.models import CacheError, JudgeCallError, ModelError
from ragjudge.report import ReportError
from ragjudge.run._judging import JudgeUnavailable
from ragjudge.run._preparation import RequirementError
from ragjudge.store import RunBusy, RunNotFound, Store
from ragjudge.targets import ReplyTooLarge
from ragjudge.targets.http import HttpCallError, ResponseFormatError

BRANCHES = (
    ConfigError,
    DataError,
    StoreError,
    JudgeError,
    TargetError,
    ExportError,
    ClusterError,
    MetricError,
    AnalysisError,
)


def _defined_error_classes() -> list[type[BaseException]]:
    """Every exception class defined at the top of a ragjudge module (each imported)."""
    found: list[type[BaseException]] = []
    for info in pkgutil.walk_packages(ragjudge.__path__, "ragjudge."):
        module = importlib.import_module(info.name)
        found += [
            value
            for value in vars(module).values()
            if inspect.isclass(value)
            and issubclass(value, BaseException)
            and value.__module__ == module.__name__
        ]
    return found


def test_every_public_error_class_derives_from_the_root() -> None:
    public = [c for c in _defined_error_classes() if not c.__name__.startswith("_")]
    outside = [
        f"{c.__module__}.{c.__qualname__}" for c in public if not issubclass(c, RagjudgeError)
    ]

    assert len(public) > 30, "the walk found too few error classes to be complete"
    assert outside == []


@pytest.mark.parametrize(
    ("error", "branch"),
    [
        (SpecError, ConfigError),
        (JudgeUnavailable, ConfigError),
        (DatasetError, DataError),
        (TextFileError, DataError),
        (RequirementError, DataError),
        (DataFileNotFound, DataError),
        (RunNotFound, StoreError),
        (RunBusy, StoreError),
        (ModelError, JudgeError),
        (JudgeCallError, JudgeError),
        (CacheError, JudgeError),
        (TargetSetupError, TargetError),
        (ReplyTooLarge, TargetError),
        (HttpCallError, TargetError),
        (ResponseFormatError, TargetError),
        (MlflowExportError, ExportError),
        (ReportError, ExportError),
        (MetricFailure, MetricError),
        (NotApplicable, MetricError),
        (ParseError, MetricError),
        (UndelimitedDataError, MetricError),
        (UnknownKeyError, AnalysisError),
    ],
)
def test_each_error_sits_on_the_branch_of_what_went_wrong(
    error: type[Exception], branch: type[Exception]
) -> None:
    assert issubclass(error, branch)
    assert [b for b in BRANCHES if issubclass(error, b)] == [branch]


@pytest.mark.parametrize(
    ("error", "builtin"),
    [
        (ConfigError, ValueError),
        (DatasetError, ValueError),
        (RequirementError, ValueError),
        (DataFileNotFound, FileNotFoundError),
        (RunNotFound, KeyError),
        (RunBusy, OSError),
        (CacheError, ValueError),
        (TargetSetupError, ValueError),
        (ReplyTooLarge, ValueError),
        (HttpCallError, RuntimeError),
        (ExportError, ValueError),
        (MlflowExportError, RuntimeError),
        (ClusterError, RuntimeError),
        (ParseError, ValueError),
        (UndelimitedDataError, TypeError),
        (UnknownKeyError, LookupError),
    ],
)
def test_the_builtin_base_callers_catch_is_kept(
    error: type[Exception], builtin: type[Exception]
) -> None:
    assert issubclass(error, builtin)


def test_an_http_failure_is_no_value_error() -> None:
    # metrics turn a ValueError of their retriever into the score's own message
    assert not issubclass(HttpCallError, ValueError)
    assert not issubclass(TargetError, ValueError)


def test_an_unknown_run_is_a_key_error_whose_message_reads_plainly(tmp_path: Path) -> None:
    path = tmp_path / "runs.db"
    with Store(path) as store, pytest.raises(KeyError) as raised:
        store.run("nope")

    assert isinstance(raised.value, RunNotFound)
    assert str(raised.value) == f"no run 'nope' in {path}"


def test_the_root_and_the_branches_are_exported_by_the_package() -> None:
    for error in (RagjudgeError, *BRANCHES):
        assert getattr(ragjudge, error.__name__) is error
        assert error.__name__ in ragjudge.__all__


def test_the_classes_that_became_branches_are_importable_where_they_were() -> None:
    from ragjudge._util.importing import TargetError as importing_target_error
    from ragjudge.config import ClusterError as config_cluster_error
    from ragjudge.config import ConfigError as config_error
    from ragjudge.export import ExportError as export_error
    from ragjudge.loading import DatasetError as loading_dataset_error
    from ragjudge.store import StoreError as store_error

    assert importing_target_error is TargetError
    assert config_cluster_error is ClusterError
    assert config_error is ConfigError
    assert export_error is ExportError
    assert loading_dataset_error is DatasetError
    assert store_error is StoreError


def test_the_errors_module_holds_only_errors() -> None:
    defined = [
        value
        for value in vars(errors).values()
        if inspect.isclass(value) and value.__module__ == errors.__name__
    ]
    kinds = {"error" if issubclass(c, BaseException) else c.__name__ for c in defined}
    functions = [n for n, v in vars(errors).items() if inspect.isfunction(v)]

    assert kinds == {"error", "RowProblem"}
    assert functions == []
