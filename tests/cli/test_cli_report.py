"""``ragjudge report`` and ``ragjudge view`` on the command line, ``report:`` in a
config, and the report line of the run summary."""

from __future__ import annotations

import re
import socket
from pathlib import Path

import pytest
from typer.testing import CliRunner

from conftest import QUICKSTART
from ragjudge.cli import app
from ragjudge.config import ConfigError, EvalConfig, load_config
from report_runs import improved_run, quickstart_run

runner = CliRunner()


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str, str]:
    path = tmp_path_factory.mktemp("cli") / "runs.db"
    return path, quickstart_run(path, report=False), improved_run(path)


def test_report_writes_one_file(store: tuple[Path, str, str], tmp_path: Path) -> None:
    path, a, _ = store
    out = tmp_path / "sub" / "r.html"
    result = runner.invoke(app, ["report", a[:19], "--store", str(path), "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert f"report: {out}" in result.output
    assert "<h2>Samples</h2>" in out.read_text(encoding="utf-8")


def test_report_of_two_runs_is_their_comparison(store: tuple[Path, str, str]) -> None:
    path, a, b = store
    result = runner.invoke(app, ["report", a, b, "--store", str(path), "--by", "metadata.topic"])
    assert result.exit_code == 0, result.output
    written = path.parent / "reports" / f"{a}-vs-{b}.html"
    assert str(written) in result.output
    assert "By metadata.topic" in written.read_text(encoding="utf-8")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["nope"], "no run 'nope'"),
        (["RUN_A", "RUN_B", "--human", "h"], "--human goes with the report of one run"),
        (["RUN_A", "--store-b", "x.db"], "--store-b goes with a second run"),
        (["RUN_A", "--by", "no_such_key"], "no_such_key"),
    ],
)
def test_report_mistakes_exit_2_with_a_message(
    store: tuple[Path, str, str], args: list[str], message: str
) -> None:
    path, a, b = store
    args = [a if x == "RUN_A" else b if x == "RUN_B" else x for x in args]
    result = runner.invoke(app, ["report", *args, "--store", str(path)])
    assert result.exit_code == 2
    assert message in " ".join(result.output.split())


def test_report_into_a_folder_is_refused(store: tuple[Path, str, str], tmp_path: Path) -> None:
    path, a, _ = store
    result = runner.invoke(app, ["report", a, "--store", str(path), "-o", str(tmp_path)])
    assert result.exit_code == 2
    assert "it is a folder" in result.output


def test_view_needs_a_store_and_a_free_port(store: tuple[Path, str, str], tmp_path: Path) -> None:
    missing = runner.invoke(app, ["view", "--store", str(tmp_path / "none.db")])
    assert missing.exit_code == 2 and "no store at" in missing.output
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        busy = runner.invoke(app, ["view", "--store", str(store[0]), "--port", str(port)])
    assert busy.exit_code == 2 and "cannot listen on 127.0.0.1" in busy.output


def test_the_quickstart_run_writes_its_report_and_says_where(tmp_path: Path) -> None:
    config = QUICKSTART / "eval.yaml"
    result = runner.invoke(
        app, ["run", str(config), "--store", str(tmp_path / "runs.db"), "--no-progress"]
    )
    assert result.exit_code == 0, result.output
    last = result.output.strip().splitlines()[-1]
    found = re.fullmatch(r"report: (.+\.html)", last)
    assert found is not None, last
    written = Path(found.group(1))
    assert written.parent == tmp_path / "reports" and written.is_file()


def _tiny_config(folder: Path, extra: str = "") -> Path:
    rows = [
        '{"request_id": "a", "request": "q1", "response": "UNION removes duplicates", '
        '"expected_response": "UNION removes duplicate rows"}',
        '{"request_id": "b", "request": "q2", "response": "no idea", '
        '"expected_response": "a deadlock"}',
    ]
    (folder / "set.jsonl").write_text("\n".join(rows) + "\n", encoding="utf-8")
    config = folder / "eval.yaml"
    config.write_text(
        f"data: set.jsonl\ntarget: data\nmetrics: [rouge_l]\n{extra}", encoding="utf-8"
    )
    return config


def test_without_report_the_summary_says_how_to_write_it(tmp_path: Path) -> None:
    result = runner.invoke(app, ["run", str(_tiny_config(tmp_path)), "--no-progress"])
    assert result.exit_code == 0, result.output
    store = tmp_path / ".ragjudge" / "runs.db"
    last = " ".join(result.output.strip().splitlines()[-1].split())
    assert re.fullmatch(rf"report: ragjudge report \S+ --store {re.escape(str(store))}", last), last
    assert not (tmp_path / ".ragjudge" / "reports").exists()


def test_a_report_that_cannot_be_written_does_not_fail_the_run(tmp_path: Path) -> None:
    (tmp_path / "blocker").write_text("a file where a folder should be", encoding="utf-8")
    config = _tiny_config(tmp_path, "report: blocker/{run}.html\n")
    result = runner.invoke(app, ["run", str(config), "--no-progress"])
    assert result.exit_code == 0, result.output
    output = " ".join(result.output.split())
    assert "(not written: cannot write the report" in output
    assert "blocker is a file, not a folder)" in output


def test_report_settings_in_a_config(tmp_path: Path) -> None:
    def config(report: object) -> EvalConfig:
        return EvalConfig.model_validate(
            {"metrics": ["rouge_l"], "report": report, "base_dir": tmp_path}
        )

    assert config(None).report_path("R") is None
    assert config(False).report_path("R") is None
    assert config(True).report_path("R") == tmp_path / ".ragjudge" / "reports" / "R.html"
    assert config("out/{run}.html").report_path("R") == tmp_path / "out" / "R.html"
    settings = config({"path": "/abs/latest.html", "human": ["completeness"]})
    assert settings.report_path("R") == Path("/abs/latest.html")
    assert settings.report is not None and settings.report.human == ["completeness"]
    bad = tmp_path / "bad.yaml"
    bad.write_text("metrics: [rouge_l]\nreport: {pth: x.html}\n", encoding="utf-8")
    with pytest.raises(ConfigError, match=r"report\.pth"):
        load_config(bad)
