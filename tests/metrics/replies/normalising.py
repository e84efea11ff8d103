"""Counting how much text the reply readers normalise (NFKC): how often a reader reads
the reply and the data."""

from __future__ import annotations

import unicodedata

import pytest


def counting_normalisation(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """A list that receives the length of every text normalised from now on."""
    counted: list[int] = []
    normalize = unicodedata.normalize

    def counting(form: str, text: str) -> str:
        counted.append(len(text))
        return normalize(form, text)  # type: ignore[arg-type]

    monkeypatch.setattr(unicodedata, "normalize", counting)
    return counted
