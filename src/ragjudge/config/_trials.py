"""The checks of a config's trials: how many a run may plan, and how they are reduced."""

from __future__ import annotations

from ragjudge.errors import ConfigError

__all__ = ["MAX_TRIALS", "MAX_TRIAL_ROWS", "check_trial_rows", "check_trials_reduce"]

MAX_TRIALS = 1000
"""The most ``trials`` a run may have."""
MAX_TRIAL_ROWS = 1_000_000
"""The most rows × trials of a run with several trials: a run plans its pending work
(every trial of every metric of every row) in memory."""


def check_trials_reduce(method: str, k: int | None, pass_threshold: float | None) -> None:
    """Raise ``ValueError`` when ``trials_reduce_k`` or ``trials_pass_threshold`` is given
    to a reducer that does not count, or a counting reducer lacks its k."""
    counting = method in ("pass_at_k", "at_least_k")
    if (k is not None or pass_threshold is not None) and not counting:
        raise ValueError(
            "trials_reduce_k and trials_pass_threshold apply to 'trials_reduce: pass_at_k' "
            f"or 'at_least_k', not {method!r}"
        )
    if counting and k is None:
        raise ValueError(f"trials_reduce: {method} needs trials_reduce_k")


def check_trial_rows(trials: int, rows: int) -> None:
    """Refuse (:class:`ConfigError`) more rows × trials than a run plans in memory."""
    if trials > 1 and rows * trials > MAX_TRIAL_ROWS:
        raise ConfigError(
            f"trials: {trials:,} trials of {rows:,} rows are "
            f"{rows * trials:,} scorings of each metric; a run with several "
            f"trials plans at most {MAX_TRIAL_ROWS:,} (its pending work is held in "
            "memory): lower trials, or evaluate fewer rows with limit or sample"
        )
