"""What the reply-reader tests share."""

from __future__ import annotations

import unicodedata

import pytest


@pytest.fixture
def normalised(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The length of every text the readers normalise (NFKC), as they normalise it: how
    often a reader reads the reply and the data."""
    counted: list[int] = []
    normalize = unicodedata.normalize

    def counting(form: str, text: str) -> str:
        counted.append(len(text))
        return normalize(form, text)  # type: ignore[arg-type]

    monkeypatch.setattr(unicodedata, "normalize", counting)
    return counted
