"""The tree of errors: every error class ragjudge defines derives from RagjudgeError
through the branch that says what went wrong, keeps the builtin base callers catch,
and is importable from where it was."""

from __future__ import annotations

import importlib
import inspect
import pkgutil
from pathlib import Path

import pandas as pd
import pytest

import ragjudge
from ragjudge import errors
from ragjudge.analysis._columns import UnknownKeyError
from ragjudge.analysis._gates import parse_gate
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
    RunFailed,
    StoreError,
    TargetError,
    TargetSetupError,
    TextFileError,
)
from ragjudge.export import MlflowExportError
from ragjudge.loading import _readers as readers
from ragjudge.loading import load_samples
from ragjudge.meta._labels import label_column, parse_human
from ragjudge.metrics import MetricFailure, NotApplicable
from ragjudge.metrics._prompts import UndelimitedDataError
from ragjudge.metrics.classify import SpecError
from ragjudge.metrics.replies import ParseError
from ragjudge.models import CacheError, JudgeCallError, ModelError
from ragjudge.report import ReportError
from ragjudge.run._judging import JudgeUnavailable
from ragjudge.run._preparation import RequirementError
from ragjudge.stats import metadata_column
from ragjudge.store import RunBusy, RunNotFound, Store, run_lock
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
    RunFailed,
)


def _defined_error_classes() -> list[type[BaseException]]:
    """Every exception class defined at the top of a ragjudge module (each imported);
    warning categories are not errors."""
    found: list[type[BaseException]] = []
    for info in pkgutil.walk_packages(ragjudge.__path__, "ragjudge."):
        module = importlib.import_module(info.name)
        found += [
            value
            for value in vars(module).values()
            if inspect.isclass(value)
            and issubclass(value, BaseException)
            and not issubclass(value, Warning)
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


# --- mistakes found deep down are ragjudge errors -----------------------------------------


def test_a_malformed_gate_is_a_config_error() -> None:
    with pytest.raises(ConfigError, match="--fail-under takes METRIC=VALUE"):
        parse_gate("rouge_l", floor=True)


def test_a_human_label_option_without_keys_is_a_config_error() -> None:
    with pytest.raises(ConfigError, match="NAME=KEY1,KEY2"):
        parse_human("ok=")


def test_labels_that_do_not_read_are_analysis_errors() -> None:
    raw = pd.DataFrame({"h": ["yes", "maybe"]}, index=["a", "b"])
    with pytest.raises(AnalysisError, match="sample 'b', metadata 'h'"):
        label_column(raw, "h", combine="mean")


def test_a_metadata_key_no_sample_has_is_an_analysis_error() -> None:
    frame = pd.DataFrame({"sample_id": ["a"], "metadata.lang": ["en"]})
    with pytest.raises(
        AnalysisError, match="no sample has metadata key 'topic'; keys present: lang"
    ):
        metadata_column(frame, "topic")


def test_a_set_that_cannot_be_read_is_a_dataset_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "set.jsonl"
    path.write_text('{"request": "q"}\n', encoding="utf-8")

    def unreadable(*args: object) -> str:
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(readers, "read_text_lines", unreadable)  # JSON Lines: a line at a time

    with pytest.raises(DatasetError, match=r"set\.jsonl: cannot be read: Permission denied"):
        load_samples(path)


def test_a_run_that_cannot_be_locked_is_a_store_error(tmp_path: Path) -> None:
    (tmp_path / "locks").write_text("a file where the lock folder goes", encoding="utf-8")

    with (
        pytest.raises(StoreError, match=r"cannot lock run r1: .*locks/r1\.lock"),
        run_lock(tmp_path / "runs.db", "r1"),
    ):
        pass
