"""How a command that raises ends: a ragjudge error is the user's message (``error:``,
exit 2); anything else is a bug, shown with its traceback and a request to report it
(exit 1), never dressed up as a mistake of the user's."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from click.testing import Result
from typer.testing import CliRunner

import ragjudge
from ragjudge import __version__
from ragjudge._util.known_secrets import register_secrets
from ragjudge.cli import app
from ragjudge.errors import ConfigError
from ragjudge.metrics import _info
from ragjudge.models._cache import ResponseCache
from ragjudge.run._preparation import SKIP_HINT
from unwritable import unwritable

runner = CliRunner()
BUG_LINE = f"ragjudge {__version__} hit a bug; please report it with the traceback above"


def _raise(error: Exception) -> object:
    def raising(*args: object, **kwargs: object) -> object:
        raise error

    return raising


def _broken_command(
    where: str, error: Exception, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> list[str]:
    """The arguments of a command whose inner function raises ``error``: ``metrics``
    (a top-level command) or ``cache stats`` (a command of a group)."""
    if where == "metrics":
        monkeypatch.setattr(_info, "all_metric_info", _raise(error))
        return ["metrics"]
    cache = tmp_path / "cache.db"
    cache.touch()
    monkeypatch.setattr(ResponseCache, "check", _raise(error))
    return ["cache", "stats", "--path", str(cache)]


@pytest.mark.parametrize("where", ["metrics", "cache stats"])
def test_an_unexpected_error_is_reported_as_a_bug(
    where: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    args = _broken_command(where, KeyError("score_names"), monkeypatch, tmp_path)

    result = runner.invoke(app, args)

    assert result.exit_code == 1, result.output
    assert "Traceback (most recent call last)" in result.output
    assert "KeyError: 'score_names'" in result.output
    assert result.output.rstrip().endswith(BUG_LINE)
    assert "error:" not in result.output


@pytest.mark.parametrize("where", ["metrics", "cache stats"])
def test_a_ragjudge_error_is_the_users_message(
    where: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    message = "metrics: unknown metric 'rouge_x'"
    args = _broken_command(where, ConfigError(message), monkeypatch, tmp_path)

    result = runner.invoke(app, args)

    assert result.exit_code == 2, result.output
    assert result.output == f"error: {message}\n"


@pytest.mark.parametrize(
    ("error", "exit_code"), [(ConfigError, 2), (KeyError, 1)], ids=["message", "bug"]
)
def test_what_a_command_prints_has_the_known_secrets_masked(
    error: type[Exception], exit_code: int, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    secret = "pw-SECRET-c0ffee11"
    register_secrets([secret])
    raised = error(f"cannot reach http://h/answer?pwd={secret}")
    args = _broken_command("metrics", raised, monkeypatch, tmp_path)

    result = runner.invoke(app, args)

    assert result.exit_code == exit_code, result.output
    assert "cannot reach http://h/answer?pwd=***" in result.output
    assert secret not in result.output


def test_bad_rows_are_listed_with_how_to_score_the_others(tmp_path: Path) -> None:
    (tmp_path / "set.jsonl").write_text(
        '{"request": "q", "response": "a"}\n{"request": 5, "response": "a"}\n', encoding="utf-8"
    )
    config = tmp_path / "eval.yaml"
    config.write_text("data: set.jsonl\nmetrics: [exact_match]\n", encoding="utf-8")

    result = runner.invoke(app, ["run", str(config), "--no-progress"])

    assert result.exit_code == 2, result.output
    assert result.output.startswith(f"error: {tmp_path / 'set.jsonl'}, row 2, field 'request'")
    assert result.output.rstrip().endswith(SKIP_HINT)
    assert "Traceback" not in result.output


def test_a_bug_in_a_real_process_prints_its_traceback_before_the_process_ends(
    tmp_path: Path,
) -> None:
    code = textwrap.dedent(
        """
        import sys
        from ragjudge.metrics import _info

        def broken():
            raise KeyError("score_names")

        _info.all_metric_info = broken
        sys.argv = ["ragjudge", "metrics"]
        from ragjudge.__main__ import main
        main()
        """
    )
    source = str(Path(ragjudge.__file__).parents[1])
    env = {**os.environ, "PYTHONPATH": source + os.pathsep + os.environ.get("PYTHONPATH", "")}

    done = subprocess.run(
        [sys.executable, "-c", code],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )

    assert done.returncode == 1, done.stderr
    assert done.stdout == ""
    assert "Traceback (most recent call last)" in done.stderr
    assert "KeyError: 'score_names'" in done.stderr
    assert done.stderr.rstrip().endswith(BUG_LINE)
    assert "error:" not in done.stderr


# ------------------------------------------------------------- stores that cannot be used


def _project(tmp_path: Path) -> Path:
    (tmp_path / "set.jsonl").write_text(
        '{"request_id": "a1", "request": "What is SQL?", "response": "A query language.",'
        ' "expected_response": "A query language."}\n',
        encoding="utf-8",
    )
    config = tmp_path / "eval.yaml"
    config.write_text("data: set.jsonl\nmetrics: [exact_match]\n", encoding="utf-8")
    return config


def _run(config: Path, store: Path) -> Result:
    return runner.invoke(app, ["run", str(config), "--no-progress", "--store", str(store)])


# store-foreign-sqlite: another program's SQLite file got ragjudge's tables, then a traceback
def test_a_run_refuses_another_programs_database_before_writing_to_it(tmp_path: Path) -> None:
    config = _project(tmp_path)
    other = tmp_path / "other.db"
    with sqlite3.connect(other) as conn:  # another application's table called `runs`
        conn.execute("CREATE TABLE runs (id INTEGER PRIMARY KEY, started TEXT, km REAL)")
        conn.execute("INSERT INTO runs (started, km) VALUES ('2026-01-01', 10.5)")
    before = other.read_bytes()

    result = _run(config, other)

    assert result.exit_code == 2, result.output
    assert result.output == (
        f"error: the store {other} is another program's database "
        "(its runs table is not ragjudge's)\n"
    )
    assert other.read_bytes() == before


# store-readonly: a store in an unwritable folder gave a sqlite3 traceback
def test_a_run_names_a_store_folder_it_cannot_write(tmp_path: Path) -> None:
    config = _project(tmp_path)
    locked = tmp_path / "locked"
    locked.mkdir()

    with unwritable(locked):
        result = _run(config, locked / "runs.db")

    assert result.exit_code == 2, result.output
    assert result.output == (
        f"error: cannot write the store {locked / 'runs.db'}: its folder {locked} cannot be written\n"
    )


# store-readonly: a read-only store file gave a sqlite3 traceback
def test_a_read_only_store_refuses_a_run_and_is_still_read(tmp_path: Path) -> None:
    config = _project(tmp_path)
    store = tmp_path / "runs.db"
    assert _run(config, store).exit_code == 0
    with sqlite3.connect(store) as conn:
        (run_id,) = conn.execute("SELECT run_id FROM runs").fetchone()

    with unwritable(store):
        refused = _run(config, store)
        shown = runner.invoke(app, ["show", run_id, "--store", str(store), "--json"])
        exported = runner.invoke(app, ["export", run_id, "--store", str(store), "-o", "-"])
        page = tmp_path / "report.html"
        reported = runner.invoke(app, ["report", run_id, "--store", str(store), "-o", str(page)])

    assert refused.exit_code == 2, refused.output
    assert refused.output == f"error: cannot write the store {store}: the file is read-only\n"
    assert shown.exit_code == 0 and '"run_id": "' + run_id in shown.output
    assert exported.exit_code == 0 and '{"request_id":"a1"' in exported.output
    assert reported.exit_code == 0 and run_id in page.read_text(encoding="utf-8")
    with sqlite3.connect(store) as conn:
        assert conn.execute("SELECT COUNT(*) FROM runs").fetchone()[0] == 1


def test_clearing_a_read_only_cache_is_the_users_message(tmp_path: Path) -> None:
    path = tmp_path / "cache.db"
    with ResponseCache(path) as cache:
        cache.put("key", {"text": "kept"})

    with unwritable(path):
        result = runner.invoke(app, ["cache", "clear", "--path", str(path)])

    assert result.exit_code == 2, result.output
    assert result.output == f"error: cannot clear the cache {path}: the file is read-only\n"
    with ResponseCache(path) as cache:
        assert cache.get("key") == {"text": "kept"}


def test_a_set_that_cannot_be_read_at_all_gets_no_hint_about_other_rows(tmp_path: Path) -> None:
    (tmp_path / "set.jsonl").write_text('{"q": "What is SQL?"}\n', encoding="utf-8")
    config = tmp_path / "eval.yaml"
    config.write_text(
        "data: set.jsonl\ncolumns: {request: question}\nmetrics: [exact_match]\n", encoding="utf-8"
    )

    result = runner.invoke(app, ["run", str(config), "--no-progress"])

    assert result.exit_code == 2, result.output
    assert result.output == (
        f"error: {tmp_path / 'set.jsonl'}: columns.request: no column 'question' (its columns: q)\n"
    )


def test_a_misspelt_metric_in_the_config_names_the_file_and_the_closest_name(
    tmp_path: Path,
) -> None:
    config = tmp_path / "eval.yaml"
    config.write_text("data: set.jsonl\nmetrics: [exact_match, tokn_f1]\n", encoding="utf-8")

    result = CliRunner().invoke(app, ["run", str(config), "--dry-run"])

    assert result.exit_code == 2
    assert f"{config}: metrics: unknown metric 'tokn_f1'; did you mean 'token_f1'?" in (
        result.stderr
    )
