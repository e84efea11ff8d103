"""The score list of a multi-turn follow-up dialogue (one score per judged answer) and
its three scores: ``wscore`` (turn-weighted), ``lscore`` (turns needed; lower is better)
and ``mscore`` (the best score)."""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["lscore", "mscore", "wscore"]

_EMPTY = "the score list is empty: a dialogue judges at least one answer"


def _check_sigma(sigma: Sequence[float], n: int) -> None:
    if n < 1:
        raise ValueError(f"the turn limit n must be at least 1, not {n}")
    if not sigma:
        raise ValueError(_EMPTY)
    if len(sigma) > n:
        raise ValueError(
            f"the score list holds {len(sigma)} scores, more than the turn limit n = {n}"
        )
    if any(s < 0 for s in sigma):
        raise ValueError(f"the score list holds a negative score: {list(sigma)}")


def wscore(sigma: Sequence[float], n: int) -> float:
    """The turn-weighted score of the score list ``sigma`` for the turn limit ``n``.

    ``(n·s0 + … + (n-k)·sk + Σ_{i=1}^{n-k-1} (n-k-i)·sk) / (n + … + 1)``: score ``i``
    weighs ``n - i``, and the last score ``sk`` also fills the turns after it.
    ``wscore([1, 5], 3) == 3.0``. Raises ``ValueError`` for an empty list, one longer
    than ``n``, or a negative score.
    """
    _check_sigma(sigma, n)
    padded = [*sigma, *[sigma[-1]] * (n - len(sigma))]
    weighted = sum((n - i) * s for i, s in enumerate(padded))
    return weighted / (n * (n + 1) / 2)


def lscore(sigma: Sequence[float]) -> int:
    """The turns needed: the number of judged answers until the dialogue ended, the
    length of the score list (lower is better)."""
    if not sigma:
        raise ValueError(_EMPTY)
    return len(sigma)


def mscore(sigma: Sequence[float]) -> float:
    """The best score of the dialogue: the highest in its score list."""
    if not sigma:
        raise ValueError(_EMPTY)
    return max(sigma)
