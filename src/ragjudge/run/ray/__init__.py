"""Running an evaluation on a Ray cluster (``executor: ray``; the ``ragjudge[ray]`` extra).

The driver (the process that runs ``ragjudge run``) partitions the samples that are not
done yet into batches; Ray workers run each batch through the same per-sample pipeline
as a local run (:class:`ragjudge.run._execution.Execution`: target, metrics, judge calls) and
send the outputs and scores back; the driver writes them to the SQLite store, batch by
batch. Each judge call is stored as it is sent and as it returns, and the reply cache
is read and written, through one actor on the driver's node
(:mod:`ragjudge.run.ray._ledger`). Judge calls of every worker take their
permits from one actor (:mod:`ragjudge.run.ray._permits`) that holds the run's
limiter, so RPM/TPM limits and the concurrency cap hold across the cluster.

Only :mod:`ragjudge.config._ray` is imported by the config; the modules that
import ``ray`` are imported when a run chooses ``executor: ray``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ragjudge.config import EvalConfig
    from ragjudge.run._execution import Execution, ExecutionParts

__all__ = ["ray_execution", "require_ray"]


def require_ray(config: EvalConfig) -> None:
    """Before a run stores anything: a :class:`~ragjudge.config._eval.ConfigError` saying how
    to install the extra when ``ray`` cannot be imported, naming the cluster address
    that is malformed or does not answer, a variable of ``ray.runtime_env.env_vars`` that
    is not set, or a node of the cluster that lacks what its workers need
    (:mod:`ragjudge.run.ray._preflight`)."""
    from ragjudge.config import ConfigError
    from ragjudge.config._ray import check_reachable, cluster_address

    address = cluster_address(config.ray)
    if address is not None:
        where = "ray.address" if config.ray is not None and config.ray.address else "RAY_ADDRESS"
        try:
            check_reachable(address)
        except ValueError as exc:
            raise ConfigError(f"{where}: no Ray cluster: {exc}") from None

    try:
        import ray  # noqa: F401
    except ImportError as exc:
        raise ConfigError(
            f"executor: ray needs the ray extra (pip install 'ragjudge[ray]'): {exc}"
        ) from None
    _check_nodes(config, address)


def _check_nodes(config: EvalConfig, address: str | None) -> None:
    """Check every node of the cluster the run joins; a local cluster the run starts is
    this machine, where the run's own checks hold."""
    import ray

    from ragjudge.run.ray._preflight import check_nodes
    from ragjudge.run.ray._runtime_env import job_runtime_env
    from ragjudge.run.ray._session import ray_session

    runtime_env = job_runtime_env(config)
    if address in (None, "local") and not ray.is_initialized():
        return
    with ray_session(config.ray, runtime_env):
        check_nodes(config)


def ray_execution(parts: ExecutionParts) -> Execution:
    """The execution of a run on Ray (see :mod:`ragjudge.run.ray._driver`)."""
    from ragjudge.run.ray._driver import RayExecution

    return RayExecution(
        *(parts.store, parts.run_id, parts.metrics, parts.config.trials),
        *(parts.context, parts.agents),
        config=parts.config,
        cache=parts.cache,
        given_metrics=parts.given_metrics,
        given_target=parts.given_target,
        provider=parts.provider,
    )
