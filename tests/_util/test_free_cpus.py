"""Scoring processes are as many as the CPUs other programs leave free."""

from __future__ import annotations

import os

import pytest

from ragjudge._util import parallel


def test_cpus_busy_with_other_programs_are_taken_away(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(parallel, "usable_cpus", lambda: 4)
    assert parallel.free_cpus(lambda: 1.4) == 3
    assert parallel.free_cpus(lambda: 1.6) == 2
    assert parallel.free_cpus(lambda: 0.1) == 4


def test_a_busy_machine_still_leaves_one_cpu(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(parallel, "usable_cpus", lambda: 2)
    assert parallel.free_cpus(lambda: 5.0) == 1


def test_without_a_measure_every_usable_cpu_is_free(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(parallel, "usable_cpus", lambda: 2)
    assert parallel.free_cpus(lambda: None) == 2


def test_the_busy_cpus_are_measured_between_none_and_every_cpu() -> None:
    busy = parallel.busy_cpus(0.05)
    if busy is None:
        pytest.skip("this platform has no /proc/stat")
    assert 0.0 <= busy <= (os.cpu_count() or 1) + 1e-9
