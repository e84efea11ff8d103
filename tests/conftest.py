"""Fixtures shared across the suite."""

from __future__ import annotations

import importlib
import signal
import sys
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from types import ModuleType

import pytest

from ragjudge._util.known_secrets import forget_secrets


def pytest_configure(config: pytest.Config) -> None:
    """Ctrl-C and hang-up as a terminal delivers them, however the suite was started.

    A suite started in the background (``cmd &`` in a script, ``nohup``) inherits
    SIGINT and SIGHUP ignored, and ragjudge keeps an ignored signal ignored, as
    ``nohup`` asks; the tests that stop a run with these signals would then see no
    stop. The children the tests start inherit the defaults set here."""
    if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)
    if hasattr(signal, "SIGHUP") and signal.getsignal(signal.SIGHUP) is signal.SIG_IGN:
        signal.signal(signal.SIGHUP, signal.SIG_DFL)


QUICKSTART = Path(__file__).resolve().parents[1] / "examples" / "quickstart"
SHARED_DATA = Path(__file__).resolve().parents[2] / "shared" / "data"
"""Public benchmark data (MTRAG, HealthBench, …) kept in ``../shared/data`` beside the
checkout, not in the repository."""


def shared_data(*parts: str) -> Path:
    """The path ``parts`` under ``../shared/data``, e.g.
    ``shared_data("mtrag-un", "reference.jsonl")``.

    When that folder is not beside the checkout, the calling test (or fixture) is
    skipped and says so. A file missing from a folder that is present is not skipped:
    the test fails on it.
    """
    if not SHARED_DATA.is_dir():
        pytest.skip(
            f"../shared/data is not beside the checkout: {SHARED_DATA} does not exist "
            "(the public benchmark files live there, outside the repository)"
        )
    return SHARED_DATA.joinpath(*parts)


def import_quickstart(name: str) -> ModuleType:
    """Import a module of ``examples/quickstart`` (``rag_app``, ``rag_app_mqa``,
    ``serve``) by its plain name, as a ``rag_app:answer`` target is imported: one module
    object per name for the whole session."""
    if str(QUICKSTART) not in sys.path:
        sys.path.insert(0, str(QUICKSTART))
    return importlib.import_module(name)


@pytest.fixture(scope="session")
def quickstart() -> Callable[[str], ModuleType]:
    """:func:`import_quickstart` as a fixture."""
    return import_quickstart


@pytest.fixture(autouse=True)
def _no_known_secrets() -> Iterator[None]:
    """Every test starts knowing no secret: a run registers its config's secrets for the
    rest of the process, and they would be masked in later tests' output."""
    forget_secrets()
    yield
    forget_secrets()


ATTACK_TALLY: dict[str, Counter[str]] = {}
"""Attacks per metric family, from the tests that record an ``attack_family``."""


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    family = dict(report.user_properties).get("attack_family")
    if family is None or report.when != "call":
        return
    tally = ATTACK_TALLY.setdefault(str(family), Counter())
    tally["tried"] += 1
    tally["contained"] += report.passed


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """The prompt-injection suite's figures, per metric family: attacks where the
    stored value stayed the judge's own (or an explicit error), of those tried."""
    for family, tally in sorted(ATTACK_TALLY.items()):
        terminalreporter.write_line(
            f"prompt injection, judge disagreeing with the attacker: {family} "
            f"contained {tally['contained']} / tried {tally['tried']}"
        )
