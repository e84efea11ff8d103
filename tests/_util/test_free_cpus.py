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


class FakeMachine:
    """Two CPUs' ticks (100 a second each), a clock and this process's CPU seconds."""

    def __init__(self) -> None:
        self.now = 0.0
        self.total = 0
        self.idle = 0
        self.mine = 0.0
        self.slept: list[float] = []

    def run(self, seconds: float, *, others: float, mine: float) -> None:
        """``seconds`` pass with ``others`` CPUs busy with other programs and ``mine``
        with this process."""
        self.now += seconds
        self.total += round(200 * seconds)
        self.idle += round(100 * seconds * (2 - others - mine))
        self.mine += mine * seconds

    def watch(self) -> parallel.BusyWatch:
        return parallel.BusyWatch(
            0.1,
            clock=lambda: self.now,
            ticks=lambda: (self.total, self.idle),
            own=lambda: self.mine,
            sleep=self.sleep,
        )

    def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.run(seconds, others=self.others_while_sleeping, mine=0.0)

    others_while_sleeping = 0.0


def test_a_watch_leaves_out_the_cpu_this_process_used(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    machine = FakeMachine()
    watch = machine.watch()
    machine.run(0.5, others=1.0, mine=1.0)
    busy = watch()
    assert busy == pytest.approx(1.0)
    assert machine.slept == []


def test_a_watch_asked_early_waits_for_the_rest_of_its_interval(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    machine = FakeMachine()
    machine.others_while_sleeping = 2.0
    watch = machine.watch()
    machine.run(0.04, others=2.0, mine=0.0)
    assert watch() == pytest.approx(2.0)
    assert machine.slept == [pytest.approx(0.06)]


def test_a_watch_without_proc_stat_measures_nothing() -> None:
    watch = parallel.BusyWatch(0.0, ticks=lambda: None)
    assert watch() is None
