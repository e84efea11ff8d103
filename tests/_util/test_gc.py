"""A run collects cyclic garbage less often and gives the collector's settings back."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from ragjudge import evaluate
from ragjudge._util import gc as _gc
from ragjudge._util.gc import THRESHOLDS, fewer_collections
from ragjudge.config import EvalConfig
from ragjudge.run import _runner as runner
from ragjudge.run import _spooling as spooling
from ragjudge.run._executors import executor_kind

ROWS = [{"request": f"q{i}", "response": "a b c", "expected_response": "a b d"} for i in range(5)]


@pytest.fixture(autouse=True)
def kept_thresholds() -> Iterator[None]:
    before = gc.get_threshold()
    yield
    gc.set_threshold(*before)


def test_thresholds_are_raised_inside_and_restored_after() -> None:
    gc.set_threshold(700, 10, 10)
    with fewer_collections():
        assert gc.get_threshold() == THRESHOLDS
    assert gc.get_threshold() == (700, 10, 10)


def test_higher_thresholds_of_the_caller_are_kept() -> None:
    gc.set_threshold(50_000, 5, 20)
    with fewer_collections():
        assert gc.get_threshold() == (50_000, 10, 20)
    assert gc.get_threshold() == (50_000, 5, 20)


def test_thresholds_are_restored_when_the_block_fails() -> None:
    gc.set_threshold(700, 10, 10)
    with pytest.raises(RuntimeError), fewer_collections():
        raise RuntimeError("the run failed")
    assert gc.get_threshold() == (700, 10, 10)


def recorded_freezes(monkeypatch: pytest.MonkeyPatch) -> list[bool]:
    """Each freeze asked for, as whether the collector was paused then (this test process
    keeps its objects collectable: nothing is frozen)."""
    freezes: list[bool] = []
    monkeypatch.setattr(gc, "freeze", lambda: freezes.append(not gc.isenabled()))
    return freezes


def test_a_program_calling_the_api_has_nothing_frozen(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    freezes = recorded_freezes(monkeypatch)
    monkeypatch.setattr(_gc, "_command", False)
    result = evaluate(ROWS, metrics=["token_f1"], store=tmp_path / "r.db", progress=False)
    assert result.summaries[0].n == len(ROWS)
    assert freezes == []
    assert gc.isenabled()


def test_the_command_reads_a_set_held_whole_paused_and_freezes_it(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    freezes = recorded_freezes(monkeypatch)
    monkeypatch.setattr(_gc, "_command", False)
    _gc.command_owns_process()
    loaded_while: list[bool] = []
    real_prepare = runner.prepare

    def prepare(*args: Any, **kwargs: Any) -> Any:
        loaded_while.append(gc.isenabled())
        return real_prepare(*args, **kwargs)

    monkeypatch.setattr(runner, "prepare", prepare)
    result = evaluate(ROWS, metrics=["token_f1"], store=tmp_path / "r.db", progress=False)
    assert result.summaries[0].n == len(ROWS)
    assert loaded_while == [False]  # held whole: read with the collector paused
    assert freezes == [True]  # and frozen once loaded
    assert gc.isenabled()  # the collector back on for the run


def test_the_command_reads_a_set_page_by_page_with_the_collector_on(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    freezes = recorded_freezes(monkeypatch)
    monkeypatch.setattr(_gc, "_command", True)
    read_while: list[bool] = []

    def prepare_streamed(*args: Any, **kwargs: Any) -> tuple[str, None]:
        read_while.append(gc.isenabled())
        return "prepared", None

    monkeypatch.setattr(spooling, "parquet_folder", lambda config, data: tmp_path)
    monkeypatch.setattr(spooling, "prepare_streamed", prepare_streamed)
    config = EvalConfig.model_validate({"metrics": ["token_f1"], "executor": "ray"})
    kind = executor_kind(config.executor)
    assert runner._prepared(kind, config, None, None, None, None, None) == ("prepared", None)
    assert read_while == [True]  # its pages' garbage is freed as it goes
    assert freezes == [False]


def test_the_collector_comes_back_on_when_a_paused_block_fails(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    freezes = recorded_freezes(monkeypatch)
    monkeypatch.setattr(_gc, "_command", True)
    with pytest.raises(ImportError), _gc.kept_for_good(paused=True):
        assert not gc.isenabled()
        raise ImportError("a module that fails to load")
    assert freezes == [True]
    assert gc.isenabled()
