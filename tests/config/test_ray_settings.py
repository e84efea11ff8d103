"""Mistakes in the Ray executor's config are clear messages with exit 2, before the
run is stored; none of these tests starts Ray."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ragjudge.cli import app
from ragjudge.config._ray import RayConfig, check_address, check_reachable

ROWS = '{"request_id": "a", "request": "q", "response": "r", "expected_response": "r"}\n'


def project(tmp_path: Path, extra: str = "") -> Path:
    (tmp_path / "set.jsonl").write_text(ROWS)
    config = tmp_path / "eval.yaml"
    config.write_text(f"data: set.jsonl\nmetrics: [rouge_l]\n{extra}")
    return config


def run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(app, ["run", *args, "--no-progress"])
    assert "Traceback" not in result.output
    return result.exit_code, " ".join(result.output.split())


def test_an_unknown_executor_in_the_config_is_named(tmp_path: Path) -> None:
    code, output = run(str(project(tmp_path, "executor: rey\n")))
    assert code == 2
    assert "executor: Input should be 'local' or 'ray'" in output
    assert not (tmp_path / ".ragjudge" / "runs.db").exists()


def test_an_unknown_executor_on_the_command_line_is_named(tmp_path: Path) -> None:
    code, output = run(str(project(tmp_path)), "--executor", "rey")
    assert code == 2
    assert "executor (given as --executor): Input should be 'local' or 'ray'" in output


def test_a_malformed_cluster_address_is_named(tmp_path: Path) -> None:
    code, output = run(str(project(tmp_path, "executor: ray\nray: {address: bad}\n")))
    assert code == 2
    assert "ray.address: address 'bad' is not a Ray cluster address" in output


def test_an_unknown_ray_setting_is_named(tmp_path: Path) -> None:
    code, output = run(str(project(tmp_path, "executor: ray\nray: {adress: x:1}\n")))
    assert code == 2
    assert "ray.adress" in output


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_a_cluster_that_does_not_answer_stops_the_run_before_it_is_stored(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("ray", reason="ray is not installed: pip install 'ragjudge[ray]'")
    monkeypatch.setenv("RAY_ADDRESS", f"127.0.0.1:{free_port()}")
    code, output = run(str(project(tmp_path, "executor: ray\n")))
    assert code == 2
    assert "RAY_ADDRESS: no Ray cluster: nothing answers at 127.0.0.1:" in output
    assert not (tmp_path / ".ragjudge" / "runs.db").exists()


@pytest.mark.parametrize("address", ["auto", "10.0.0.5:6379", "ray://head:10001", "[::1]:6379"])
def test_cluster_addresses_ray_accepts_are_accepted(address: str) -> None:
    assert check_address(address) == address
    assert RayConfig(address=address).address == address


def test_an_address_nobody_listens_at_is_refused_quickly() -> None:
    with pytest.raises(ValueError, match="nothing answers"):
        check_reachable(f"127.0.0.1:{free_port()}", timeout=1.0)
