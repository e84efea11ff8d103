"""The pytest plugin ragjudge registers (entry point ``pytest11``): fixtures that run an
evaluation the way a test wants it — stored in the test's temporary folder (or in the
store the ``ragjudge_store`` ini option names, so judge replies are cached between test
sessions) and without a progress bar.

::

    def test_answers(ragjudge_evaluate):
        result = ragjudge_evaluate("evalset.jsonl", target="rag_app:answer", metrics=["rouge_l"])
        assert_metric(result, "rouge_l", at_least=0.4)

Nothing heavy is imported when pytest loads the plugin: the evaluation machinery loads
on a fixture's first use.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from ragjudge.analysis._results import EvaluationResult

__all__ = ["pytest_addoption", "ragjudge_aevaluate", "ragjudge_evaluate", "ragjudge_store"]

STORE_INI = "ragjudge_store"


def pytest_addoption(parser: pytest.Parser) -> None:
    """The ``ragjudge_store`` ini option."""
    parser.addini(
        STORE_INI,
        "the store the ragjudge fixtures keep their runs in (relative to the rootdir; its "
        "judge reply cache is kept beside it); default: each test's temporary folder",
        default="",
    )


@pytest.fixture
def ragjudge_store(request: pytest.FixtureRequest, tmp_path: Path) -> Path:
    """Where the fixtures store a test's runs: the ``ragjudge_store`` ini option, else
    ``runs.db`` in the test's temporary folder."""
    configured = str(request.config.getini(STORE_INI) or "")
    if configured:
        return Path(request.config.rootpath, configured)
    return tmp_path / "runs.db"


@pytest.fixture
def ragjudge_evaluate(ragjudge_store: Path) -> Callable[..., EvaluationResult]:
    """:func:`ragjudge.evaluate` with ``store`` and ``progress`` defaulting to the test's
    store and no progress bar; every other argument is passed as given."""

    def evaluate(data: Any = None, **options: Any) -> EvaluationResult:
        from ragjudge.api import evaluate as run_evaluation

        return run_evaluation(data, **_test_defaults(options, ragjudge_store))

    return evaluate


@pytest.fixture
def ragjudge_aevaluate(ragjudge_store: Path) -> Callable[..., Awaitable[EvaluationResult]]:
    """:func:`ragjudge.aevaluate` (for async tests) with the defaults of
    :func:`ragjudge_evaluate`."""

    async def aevaluate(data: Any = None, **options: Any) -> EvaluationResult:
        from ragjudge.api import aevaluate as run_evaluation

        return await run_evaluation(data, **_test_defaults(options, ragjudge_store))

    return aevaluate


def _test_defaults(options: dict[str, Any], store: Path) -> dict[str, Any]:
    return {"store": store, "progress": False, **options}
