"""Resuming a stored run: the run and its samples, and the config it goes on with."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ragjudge._util.redact import MASK
from ragjudge.config import ConfigError, EvalConfig
from ragjudge.schema import Sample
from ragjudge.store._store import RunInfo, RunNotFound, Store

__all__ = ["holds_mask", "resumed_config", "stored_run", "stored_system"]


def stored_run(
    config: EvalConfig, run_id: str, *, read: bool | Callable[[RunInfo], bool] = True
) -> tuple[RunInfo, list[Sample] | None]:
    """The run to resume and its samples (None unless ``read``, or ``read(run)`` when it
    is a function of the run); :class:`~ragjudge.store.RunNotFound` (a ``KeyError``) when
    there is none."""
    if not config.store_path.exists():
        raise RunNotFound(f"no run {run_id!r}: there is no store at {config.store_path}")
    with Store(config.store_path) as store:
        run = store.run(run_id)
        wanted = read(run) if callable(read) else read
        return run, store.samples(run.run_id) if wanted else None


def resumed_config(run: RunInfo, given: EvalConfig) -> EvalConfig:
    """The stored run's config, with the pace, the breakdown, the cost ceiling and
    the store of ``given``: a resumed run keeps its samples, metrics, trials and models. Secrets are
    not stored (``***``): a target, retriever or judge connection whose stored form
    holds one is taken from ``given``, the config the resume was started with, and so
    is any other setting (or judge setting) that holds one — a value that came from the
    environment is masked wherever it appears."""
    # the concurrency is the one given now; left unset, a batched run chooses its own
    settings = {k: v for k, v in run.config.items() if k not in ("system", "concurrency")}
    stored = EvalConfig.model_validate(settings)
    update: dict[str, Any] = {
        "executor": given.executor,
        "ray": given.ray,
        "by": given.by or stored.by,
        # a run stopped at its ceiling resumes with the one given now
        "max_cost": given.max_cost if given.max_cost is not None else stored.max_cost,
        # the store the run was found in, wherever the stored config says it was
        "store": str(given.store_path),
    }
    for section in ("target", "retriever"):
        if holds_mask(run.config.get(section)) and getattr(given, section) is not None:
            update[section] = getattr(given, section)
    judge = run.config.get("judge")
    if stored.judge is not None and given.judge is not None and isinstance(judge, dict):
        masked = {key for key, value in judge.items() if holds_mask(value)}
        if masked:
            connection = given.judge.model_dump(include=masked | {"base_url", "api_key_env"})
            update["judge"] = stored.judge.model_copy(update=connection)
    for key in [key for key, value in run.config.items() if holds_mask(value)]:
        if key in EvalConfig.model_fields and key not in update and key not in _SECTIONS:
            update[key] = getattr(given, key)
    if "concurrency" in given.model_fields_set:
        update["concurrency"] = given.concurrency
    resumed = stored.model_copy(update=update)
    resumed._system = stored_system(run, stored)
    return resumed


def stored_system(run: RunInfo, stored: EvalConfig) -> str | None:
    """The system of ``systems`` the stored run evaluated: the one its record names,
    else (a run stored before records named it) the one its name ``NAME/SYSTEM`` ends
    with; None for a run of a config without systems."""
    if not stored.systems:
        return None
    recorded = run.config.get("system")
    if isinstance(recorded, str) and recorded in stored.systems:
        return recorded
    suffix = (stored.name or "").rpartition("/")[2]
    if suffix in stored.systems:
        return suffix
    raise ConfigError(
        f"run {run.run_id} was made from a config with systems "
        f"({', '.join(stored.systems)}) and does not say which one it evaluated"
    )


_SECTIONS = ("target", "retriever", "judge")
"""Settings whose masked values :func:`resumed_config` takes in their own way."""


def holds_mask(value: Any) -> bool:
    """Whether a stored config section holds a masked secret."""
    if isinstance(value, str):
        return MASK in value
    if isinstance(value, dict):
        return any(holds_mask(v) for v in value.values())
    if isinstance(value, list):
        return any(holds_mask(v) for v in value)
    return False
