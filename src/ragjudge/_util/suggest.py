""" "Did you mean …": the closest known name to a misspelt one, in the words of an
error message."""

from __future__ import annotations

import difflib
from collections.abc import Iterable

__all__ = ["did_you_mean"]


def did_you_mean(name: str, known: Iterable[str]) -> str:
    """``"did you mean 'token_f1'? "`` for the known name closest to ``name``, or ``""``
    when none is close; meant to stand before the list of known names."""
    close = difflib.get_close_matches(name, list(known), n=1)
    return f"did you mean {close[0]!r}? " if close else ""
