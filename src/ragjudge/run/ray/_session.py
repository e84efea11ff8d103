"""Ray connected for a run: the session a run opens (or joins) and the check that a
runtime environment can still be applied."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import ray

from ragjudge.config import ConfigError
from ragjudge.config._ray import RayConfig, cluster_address

__all__ = ["ray_session"]


@contextmanager
def ray_session(
    settings: RayConfig | None, runtime_env: dict[str, Any] | None = None
) -> Iterator[None]:
    """Ray connected for the run: the one already initialised in this process, the
    cluster at ``ray.address`` or ``RAY_ADDRESS``, else a local one (stopped after).
    ``runtime_env`` (:func:`~ragjudge.run.ray._runtime_env.job_runtime_env`) is the job's
    runtime environment when this process connects."""
    if ray.is_initialized():
        _check_joinable(runtime_env)
        yield
        return
    settings = settings or RayConfig()
    address = cluster_address(settings)
    try:
        ray.init(
            # "local": a cluster of its own, even when another one runs on this machine
            address=address or "local",
            num_cpus=settings.num_cpus if address is None else None,
            include_dashboard=False,
            log_to_driver=False,
            logging_level=logging.WARNING,
            runtime_env=runtime_env,
        )
    except (ValueError, ConnectionError, RuntimeError, TimeoutError) as exc:
        where = "ray.address" if settings.address else "RAY_ADDRESS"
        raise ConfigError(
            f"{where}: cannot connect to a Ray cluster at {address!r}: {exc}"
        ) from None
    try:
        yield
    finally:
        ray.shutdown()


def _check_joinable(runtime_env: dict[str, Any] | None) -> None:
    """Ray started by the caller keeps its own runtime environment: a folder or packages
    to ship cannot be added to it (variables are, per worker)."""
    shipped = [key for key in ("working_dir", "pip") if key in (runtime_env or {})]
    if shipped:
        raise ConfigError(
            f"ray.runtime_env.{shipped[0]}: Ray is already initialised in this process, so "
            "ragjudge cannot ship it; pass runtime_env to your own ray.init() instead"
        )
