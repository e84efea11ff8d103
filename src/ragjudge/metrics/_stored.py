"""Score meanings for runs an older version stored without them, rebuilt from each
run's config by the registry. The command line records them when it opens a store, so
the code that reads stored runs never needs the metric registry."""

from __future__ import annotations

import sqlite3

from ragjudge.metrics._registry import meanings_of_stored_config
from ragjudge.store import Store

__all__ = ["record_missing_meanings"]


def record_missing_meanings(store: Store) -> None:
    """Give every run of ``store`` stored without its scores' meanings those of the
    metrics its config names, once. A store that cannot be written keeps them missing:
    its scores then read as higher-is-better, with no value left out of the mean."""
    for run_id, config in store.runs_without_meanings():
        try:
            store.record_meanings(run_id, meanings_of_stored_config(config))
        except sqlite3.OperationalError:  # read-only, or busy past the timeout
            return
