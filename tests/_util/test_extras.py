"""The optional extras: whether one is installed, and the error that names its pip
command."""

from __future__ import annotations

import sys

import pytest

from ragjudge._util.extras import (
    EXTRA_MODULES,
    extra_installed,
    install_command,
    require_extra,
)
from ragjudge.errors import ConfigError, MissingExtra


def test_an_extra_with_a_blocked_module_is_not_installed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "pypdf", None)
    assert not extra_installed("pdf")


def test_the_serve_extra_is_installed_where_the_tests_run() -> None:
    # make test and the core environment both install the serve extra
    assert extra_installed("serve")


def test_a_missing_extra_names_the_feature_the_modules_and_the_pip_command(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(sys.modules, "pypdf", None)
    with pytest.raises(MissingExtra) as raised:
        require_extra("pdf", "reading a.pdf")
    assert str(raised.value) == (
        "reading a.pdf needs the 'pdf' extra (pypdf), which is not installed: "
        "pip install 'ragjudge[pdf]'"
    )
    assert raised.value.extra == "pdf"
    # a config mistake for the command line (exit 2), an ImportError for old callers
    assert isinstance(raised.value, ConfigError)
    assert isinstance(raised.value, ImportError)


def test_every_extra_of_the_package_that_code_imports_is_known() -> None:
    assert set(EXTRA_MODULES) == {
        "local",
        "pdf",
        "mlflow",
        "agreement",
        "litellm",
        "serve",
        "ray",
        "delta",
        "jsonschema",
        "traces",
    }
    assert install_command("local") == "pip install 'ragjudge[local]'"
