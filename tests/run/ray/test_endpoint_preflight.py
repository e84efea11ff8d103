"""The node check opens a connection to every judge endpoint given by ``base_url``: an
endpoint the node cannot reach is named (with the setting that gives it, the URL's
secrets masked); a reachable one, or a judge without ``base_url``, is not."""

from __future__ import annotations

import socket
from collections.abc import Iterator

import pytest
from ray_cluster import ray_or_skip

from ragjudge.config import EvalConfig

ray_or_skip()
from ragjudge.run.ray._preflight import node_problems  # noqa: E402


@pytest.fixture
def listening() -> Iterator[int]:
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen()
    try:
        yield server.getsockname()[1]
    finally:
        server.close()


def closed_port() -> int:
    probe = socket.socket()
    probe.bind(("127.0.0.1", 0))
    port: int = probe.getsockname()[1]
    probe.close()
    return port


def config(judge_url: str | None, other_url: str | None = None) -> EvalConfig:
    """One judge at ``judge_url``; with ``other_url``, two judges by name instead."""
    if other_url is None:
        return EvalConfig(metrics=["token_f1"], judge={"model": "openai/m", "base_url": judge_url})
    judges = {
        "first": {"model": "openai/m", "base_url": judge_url},
        "second": {"model": "openai/m", "base_url": other_url},
    }
    return EvalConfig(metrics=["token_f1"], judges=judges)


def test_an_endpoint_the_node_cannot_reach_is_named(listening: int) -> None:
    dead = f"http://127.0.0.1:{closed_port()}/v1?key=s3cr3t-value"
    problems = node_problems(config(f"http://127.0.0.1:{listening}/v1", dead))
    assert len(problems) == 1
    (problem,) = problems
    assert "judges.second.base_url" in problem and "cannot be reached" in problem
    assert f"127.0.0.1:{dead.split(':')[2].split('/')[0]}" in problem
    assert "s3cr3t-value" not in problem


def test_a_reachable_endpoint_or_none_given_is_no_problem(listening: int) -> None:
    assert node_problems(config(f"http://127.0.0.1:{listening}/v1")) == []
    assert node_problems(config(None)) == []
