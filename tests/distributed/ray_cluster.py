"""A small local Ray cluster for one test module (2 CPUs, no dashboard), shut down
after it; the tests of a module that uses it skip with the reason when ``ray`` is not
installed."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest


def ray_or_skip() -> Any:
    """The ``ray`` module, or skip the calling module saying how to get it."""
    return pytest.importorskip(
        "ray", reason="ray is not installed: pip install 'ragjudge[ray]' (make test does)"
    )


def local_cluster() -> Iterator[str]:
    """Start the cluster; yield its address (for subprocesses); stop it."""
    ray = ray_or_skip()
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, logging_level="ERROR")
    try:
        yield ray.get_runtime_context().gcs_address
    finally:
        ray.shutdown()
