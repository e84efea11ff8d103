"""What the MLflow export tests share: MLflow itself (skipped, saying so, without the
extra) and a folder to work in for each test module."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

NO_MLFLOW = "the mlflow extra is not installed (pip install 'ragjudge[mlflow]')"


@pytest.fixture(scope="module")
def mlflow() -> Any:
    return pytest.importorskip("mlflow", reason=NO_MLFLOW)


@pytest.fixture(scope="module")
def workdir(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A folder to work in: MLflow puts the artifacts of a SQLite store under ./mlruns."""
    folder = tmp_path_factory.mktemp("mlflow")
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(folder)
        yield folder
