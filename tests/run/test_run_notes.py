"""What a run stores about itself: the versions its scores were computed with."""

from __future__ import annotations

import importlib.metadata

import pytest

from ragjudge.run._run_notes import _installed_versions, versions


def test_versions_are_read_from_the_installed_packages_once_per_process(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    looked_up: list[str] = []
    real = importlib.metadata.version

    def counted(name: str) -> str:
        looked_up.append(name)
        return real(name)

    monkeypatch.setattr(importlib.metadata, "version", counted)
    _installed_versions.cache_clear()
    try:
        first = versions()
        first["pydantic"] = "changed by a caller"
        second = versions()
    finally:
        _installed_versions.cache_clear()
    assert looked_up == ["pydantic", "numpy", "scipy", "bm25s", "fugashi"]
    assert second["pydantic"] == real("pydantic")
    assert {"ragjudge", "python", "pydantic"} <= second.keys()
