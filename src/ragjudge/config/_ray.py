"""The config of the Ray executor (``executor: ray`` and the ``ray:`` section); no
``ray`` import here, so the config loads without the extra."""

from __future__ import annotations

import os
import re
import socket

from pydantic import BaseModel, ConfigDict, Field, field_validator

from ragjudge.errors import ClusterError as ClusterError

__all__ = [
    "EXECUTORS",
    "ClusterError",
    "RayConfig",
    "RuntimeEnvConfig",
    "check_address",
    "check_reachable",
    "cluster_address",
]

EXECUTORS = ("local", "ray")
"""Where the samples of a run are evaluated."""

_HOST_PORT = re.compile(r"^(ray://)?[A-Za-z0-9_.\-\[\]:]+:\d{1,5}$")


def check_address(address: str) -> str:
    """``auto``, ``local``, ``host:port`` or ``ray://host:port``; anything else is a
    ``ValueError`` saying what is expected."""
    if address in ("auto", "local") or _HOST_PORT.match(address):
        return address
    raise ValueError(
        f"address {address!r} is not a Ray cluster address: give 'host:port' (the head "
        "node's GCS port, e.g. 10.0.0.5:6379), 'ray://host:10001' (Ray Client), 'auto' "
        "(the cluster this machine belongs to) or leave it out to start a local cluster"
    )


_ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


class RuntimeEnvConfig(BaseModel):
    """``ray.runtime_env``: the code, packages and environment variables every Ray
    worker gets, on whichever node it runs (Ray's runtime environment)."""

    model_config = ConfigDict(extra="forbid")

    working_dir: str | None = None
    """A folder (relative to the config's folder) copied to every node; workers run in
    the copy and find the target module and relative paths (knowledge base) there."""
    excludes: list[str] = Field(default_factory=list)
    """Files left out of ``working_dir`` (gitignore-style patterns, e.g. ``data/``)."""
    pip: list[str] = Field(default_factory=list)
    """Packages installed for the workers on every node (pip requirement strings)."""
    env_vars: list[str] = Field(default_factory=list)
    """Names of environment variables whose values (read from the environment of the
    process that starts the run) the workers get; the config stores the names only."""

    @field_validator("env_vars", mode="before")
    @classmethod
    def _names_only(cls, value: object) -> object:
        if isinstance(value, dict):
            raise ValueError(
                "give the names of environment variables (env_vars: [JUDGE_KEY]), not "
                "values: the values are read from the environment when the run starts"
            )
        return value

    @field_validator("env_vars")
    @classmethod
    def _valid_names(cls, names: list[str]) -> list[str]:
        for name in names:
            if not _ENV_NAME.match(name):
                raise ValueError(
                    f"{name!r} is not an environment variable name: give names only "
                    "(letters, digits and _), the values are read from the environment"
                )
        return names


MAX_WORKERS = 1024
"""The most worker actors a run may ask for."""


class RayConfig(BaseModel):
    """``ray:`` in the config. Without ``address`` (and without ``RAY_ADDRESS`` in the
    environment) a local Ray cluster starts for the run and stops after it."""

    model_config = ConfigDict(extra="forbid")

    address: str | None = None
    """The cluster to connect to (``host:port``, ``ray://host:port`` or ``auto``)."""
    workers: int | None = Field(default=None, ge=1, le=MAX_WORKERS)
    """Worker actors, one whole CPU each (at most 1,024); default: the cluster's CPUs (at
    most 64). More than the cluster's whole CPUs start as many workers as there are CPUs,
    with a note."""
    batch_size: int | None = Field(default=None, ge=1)
    """Samples per batch sent to a worker; default: for a run with judge calls, about
    10 seconds of a worker's work (from the judge calls per sample, the concurrency and
    the endpoint's rpm), else 256."""
    batches_per_worker: int = Field(default=2, ge=1)
    """Batches queued per worker; with ``batch_size`` it bounds the results the driver
    holds at once."""
    num_cpus: int | None = Field(default=None, ge=1)
    """CPUs of a local cluster the run starts (default: Ray's choice, all of them)."""
    max_retries: int = Field(default=2, ge=0)
    """Times a batch is sent again when its worker died or its node was lost (to any
    live worker; a new worker is started in the dead one's place when the cluster has
    room)."""
    start_timeout: float = Field(default=60.0, gt=0)
    """Seconds the workers have to start; past it the run stops saying how many started
    (finished results are kept and the run resumes)."""
    runtime_env: RuntimeEnvConfig | None = None
    """Code, packages and environment variables (by name) shipped to every node."""

    @field_validator("address")
    @classmethod
    def _known_address(cls, value: str | None) -> str | None:
        return None if value is None else check_address(value)


def cluster_address(settings: RayConfig | None) -> str | None:
    """The cluster a run connects to: ``ray.address``, else ``RAY_ADDRESS``, else None
    (a local cluster starts)."""
    address = settings.address if settings is not None else None
    return address or os.environ.get("RAY_ADDRESS") or None


def check_reachable(address: str, timeout: float = 5.0) -> None:
    """A ``ValueError`` when ``address`` is malformed or nothing listens at its
    ``host:port`` (Ray itself would retry for minutes)."""
    check_address(address)
    if address in ("auto", "local"):
        return
    host, _, port = address.removeprefix("ray://").rpartition(":")
    try:
        socket.create_connection((host.strip("[]"), int(port)), timeout=timeout).close()
    except OSError as exc:
        raise ValueError(f"nothing answers at {address} ({exc})") from None
