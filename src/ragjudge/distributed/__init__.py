"""Running an evaluation on a Ray cluster (``executor: ray``; the ``ragjudge[ray]`` extra).

The driver (the process that runs ``ragjudge run``) partitions the samples that are not
done yet into batches; Ray workers run each batch through the same per-sample pipeline
as a local run (:class:`ragjudge.execution.Execution`: target, metrics, judge calls) and
send the outputs, scores, judge-call records and new cache entries back; the driver
alone writes the SQLite store, batch by batch. Judge calls of every worker take their
permits from one actor (:mod:`ragjudge.distributed.permits`) that holds the run's
limiter, so RPM/TPM limits and the concurrency cap hold across the cluster.

Only :mod:`ragjudge.distributed.settings` is imported by the config; the modules that
import ``ray`` are imported when a run chooses ``executor: ray``.
"""

from __future__ import annotations

__all__ = ["require_ray"]


def require_ray() -> None:
    """Raise a :class:`~ragjudge.config.ConfigError` saying how to install the extra
    when ``ray`` cannot be imported (checked before a run stores anything)."""
    from ragjudge.config import ConfigError

    try:
        import ray  # noqa: F401
    except ImportError as exc:
        raise ConfigError(
            f"executor: ray needs the ray extra (pip install 'ragjudge[ray]'): {exc}"
        ) from None
