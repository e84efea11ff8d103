"""Scoring processes are as many as the CPUs other programs leave free."""

from __future__ import annotations

import os

import pytest

from ragjudge._util import parallel


def test_the_load_of_other_programs_takes_cpus_away(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(parallel, "usable_cpus", lambda: 4)
    monkeypatch.setattr(os, "getloadavg", lambda: (1.4, 0.0, 0.0))
    assert parallel.free_cpus() == 3
    monkeypatch.setattr(os, "getloadavg", lambda: (1.6, 0.0, 0.0))
    assert parallel.free_cpus() == 2


def test_a_busy_machine_still_leaves_one_cpu(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(parallel, "usable_cpus", lambda: 2)
    monkeypatch.setattr(os, "getloadavg", lambda: (5.0, 5.0, 5.0))
    assert parallel.free_cpus() == 1


def test_without_a_load_average_every_usable_cpu_is_free(monkeypatch: pytest.MonkeyPatch) -> None:
    def unavailable() -> tuple[float, float, float]:
        raise OSError("no load average")

    monkeypatch.setattr(parallel, "usable_cpus", lambda: 2)
    monkeypatch.setattr(os, "getloadavg", unavailable)
    assert parallel.free_cpus() == 2
