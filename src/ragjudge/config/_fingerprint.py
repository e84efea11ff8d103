"""The config fingerprint: which stored runs were made with *the same config*, for
incremental runs and their series.

Two runs are of the same config when their fingerprints are equal: the digest of the
stored config record without the settings that choose which rows are read, how fast,
where the results go and what is checked afterwards (:data:`UNSCORED_SETTINGS`), and
without a judge's connection, limits and prices (:data:`UNSCORED_JUDGE_SETTINGS`). What
stays (the metrics and their options, the judges' models and sampling settings, the
target, the knowledge base, the trials, the system of a wide file …) decides the scores.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from typing import Any, Protocol, TypeVar

__all__ = [
    "UNSCORED_JUDGE_SETTINGS",
    "UNSCORED_SETTINGS",
    "config_fingerprint",
    "runs_of_fingerprint",
]


class _StoredRun(Protocol):
    @property
    def config(self) -> dict[str, Any]: ...


UNSCORED_SETTINGS = frozenset(
    {
        "name",
        "data",
        "limit",
        "sample",
        "sample_per",
        "data_where",
        "seed",
        "store",
        "base_dir",
        "concurrency",
        "processes",
        "executor",
        "ray",
        "cache",
        "max_cost",
        "max_error_rate",
        "dry_run_target_rows",
        "skip_invalid_rows",
        "max_field_bytes",
        "by",
        "report",
        "fail_under",
        "fail_over",
        "gate",
        "anchors",
        "reference_run",
        "incremental",
    }
)
"""Settings left out of the config fingerprint: they do not change a row's scores."""

UNSCORED_JUDGE_SETTINGS = frozenset(
    {
        "api_key",
        "api_key_env",
        "prices",
        "preflight",
        "rpm",
        "tpm",
        "max_concurrency",
        "max_retries",
        "timeout",
        "burst",
    }
)
"""Judge settings left out of the fingerprint: the connection, its limits and prices."""


def config_fingerprint(record: Mapping[str, Any]) -> str:
    """The fingerprint of a stored config record (see the module's description)."""
    kept = {key: value for key, value in record.items() if key not in UNSCORED_SETTINGS}
    if isinstance(kept.get("judge"), dict):
        kept["judge"] = _scored_judge(kept["judge"])
    if isinstance(kept.get("judges"), dict):
        kept["judges"] = {name: _scored_judge(j) for name, j in kept["judges"].items()}
    text = json.dumps(kept, sort_keys=True, ensure_ascii=False, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def _scored_judge(judge: Any) -> Any:
    if not isinstance(judge, dict):
        return judge
    return {key: value for key, value in judge.items() if key not in UNSCORED_JUDGE_SETTINGS}


R = TypeVar("R", bound=_StoredRun)


def runs_of_fingerprint(runs: Sequence[R], fingerprint: str) -> list[R]:
    """The runs (in the order given) whose config has ``fingerprint``."""
    return [run for run in runs if config_fingerprint(run.config) == fingerprint]
