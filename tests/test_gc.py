"""A run collects cyclic garbage less often and gives the collector's settings back."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest

from ragjudge._gc import THRESHOLDS, fewer_collections


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
