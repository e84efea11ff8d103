"""The check of every Ray node before a run is stored: on each node that can host
workers, a small task imports the target, looks for the knowledge base and the judges'
keys, and opens a connection to each judge endpoint given by ``base_url``, as a worker
there would (a connection only: nothing is asked, so nothing is paid or counted against
a limit). A node that lacks any of them stops the run with a
:class:`~ragjudge.config.ConfigError` naming the node and what it lacks (exit 2),
before anything is paid for; nodes that pass are not named."""

from __future__ import annotations

import os
import socket
from dataclasses import dataclass
from typing import Any

import ray
from ray.exceptions import RayError
from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

from ragjudge.config import ConfigError, EvalConfig
from ragjudge.run.ray._runtime_env import env_var_values, on_this_node

__all__ = ["PREFLIGHT_TIMEOUT", "NodeCheck", "check_nodes", "node_problems"]

PREFLIGHT_TIMEOUT = 300.0
"""Seconds the check waits for every node (the first use of a runtime environment with
``pip`` packages installs them)."""

_ADVICE = (
    "ship the code and settings to every node with ray.runtime_env in the config "
    "(working_dir: the project folder, pip: packages, env_vars: names of variables "
    "such as the judge key), or install them on the node"
)


@dataclass(frozen=True)
class NodeCheck:
    """One node that can host workers, and what it lacks."""

    node: str
    """The node in words: its address and Ray node id."""
    problems: list[str]


def node_problems(config: EvalConfig) -> list[str]:
    """What a worker on this node would lack: the target's module, the knowledge base,
    the keys the judges read from the environment (run on the node)."""
    config = on_this_node(config)
    return [
        *_target_problems(config),
        *_knowledge_problems(config),
        *_key_problems(config),
        *_endpoint_problems(config),
    ]


def _target_problems(config: EvalConfig) -> list[str]:
    spec = config.target
    if spec is None or spec.kind != "callable" or not spec.path:
        return []
    from ragjudge._util.importing import import_object
    from ragjudge.config._files import expand_environment

    try:
        import_object(
            str(expand_environment(spec.path, source="target")), search_dir=config.base_dir
        )
    except Exception as exc:
        return [f"the target: {exc}"]
    return []


def _knowledge_problems(config: EvalConfig) -> list[str]:
    kb = config.knowledge_base
    if kb is None or config.retriever is not None:
        return []
    path = config.resolve(kb.path)
    return [] if path.exists() else [f"the knowledge base {kb.path!r}: {path} does not exist"]


def _key_problems(config: EvalConfig) -> list[str]:
    judges = {"judge": config.judge, **{f"judges.{k}": j for k, j in (config.judges or {}).items()}}
    return [
        f"the judge key {judge.api_key_env} ({where}.api_key_env) is not set"
        for where, judge in judges.items()
        if judge is not None and judge.api_key_env and not os.environ.get(judge.api_key_env)
    ]


def check_nodes(config: EvalConfig, timeout: float = PREFLIGHT_TIMEOUT) -> None:
    """Run :func:`node_problems` on every alive node with CPUs of the connected cluster;
    a :class:`ConfigError` naming each node that lacks something."""
    failing = [check for check in _checked_nodes(config, timeout) if check.problems]
    if failing:
        lines = [
            f"Ray node {c.node} cannot run the evaluation: {'; '.join(c.problems)}" for c in failing
        ]
        raise ConfigError("\n".join([*lines, _ADVICE]))


def _checked_nodes(config: EvalConfig, timeout: float) -> list[NodeCheck]:
    nodes = _worker_nodes()
    task: Any = ray.remote(num_cpus=0, max_retries=0)(node_problems)
    env = env_var_values(config)
    refs = {
        task.options(
            scheduling_strategy=NodeAffinitySchedulingStrategy(node["NodeID"], soft=False),
            runtime_env={"env_vars": env} if env else None,
        ).remote(config): _node_name(node)
        for node in nodes
    }
    ready, _ = ray.wait(list(refs), num_returns=len(refs), timeout=timeout)
    return [
        NodeCheck(name, _answer(ref) if ref in ready else [f"no answer within {timeout:.0f} s"])
        for ref, name in refs.items()
    ]


def _answer(ref: Any) -> list[str]:
    """The node's problems, or why the check could not run there (a runtime environment
    that failed to install, ragjudge missing on the node)."""
    try:
        problems: list[str] = ray.get(ref)
    except RayError as exc:
        return [f"the check could not run there: {_first_line(exc)}"]
    return problems


def _first_line(exc: BaseException) -> str:
    lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
    errors = [line for line in lines if "Error" in line.split(":")[0]]
    return (errors[-1] if errors else lines[0] if lines else type(exc).__name__)[:300]


ENDPOINT_TIMEOUT = 5.0
"""Seconds a node may take to open a connection to a judge endpoint."""


def _endpoint_problems(config: EvalConfig) -> list[str]:
    """Judge endpoints (``base_url``) this node cannot open a connection to."""
    from urllib.parse import urlsplit

    from ragjudge._util.redact import scrub_url

    judges = {"judge": config.judge, **{f"judges.{k}": j for k, j in (config.judges or {}).items()}}
    problems = []
    for where, judge in judges.items():
        url = judge.base_url if judge is not None else None
        parts = urlsplit(url or "")
        if parts.scheme not in ("http", "https") or not parts.hostname:
            continue
        port = parts.port or (443 if parts.scheme == "https" else 80)
        try:
            socket.create_connection((parts.hostname, port), timeout=ENDPOINT_TIMEOUT).close()
        except OSError as exc:
            reason = exc.strerror or str(exc) or type(exc).__name__
            problems.append(
                f"the judge endpoint {scrub_url(str(url))} ({where}.base_url) cannot be "
                f"reached: {reason}"
            )
    return problems


def _worker_nodes() -> list[dict[str, Any]]:
    """The alive nodes that have CPUs (where workers are placed)."""
    nodes: list[dict[str, Any]] = ray.nodes()  # type: ignore[no-untyped-call]
    return [n for n in nodes if n.get("Alive") and n.get("Resources", {}).get("CPU", 0) > 0]


def _node_name(node: dict[str, Any]) -> str:
    address = node.get("NodeManagerAddress", "?")
    hostname = node.get("NodeManagerHostname")
    host = f"{address} ({hostname})" if hostname and hostname != address else address
    return f"{host}, node id {str(node.get('NodeID', ''))[:12]}"
