"""Targets (and metrics) named in a config: ``path/to/file.py:function`` is imported by
its path; a ``module:function`` that cannot be imported says where it was looked for;
neither ends in a traceback."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ragjudge.cli import app
from ragjudge.targets._targets import TargetError, import_callable

runner = CliRunner()
APP = "from helpers import shout\n\ndef answer(query):\n    return shout(query)\n"


def project(tmp_path: Path, target: str, name: str = "support_bot") -> Path:
    (tmp_path / "app").mkdir()
    (tmp_path / "app" / f"{name}.py").write_text(APP)
    (tmp_path / "app" / "helpers.py").write_text("def shout(text):\n    return text.upper()\n")
    rows = [{"request": "hello", "expected_response": "HELLO"}]
    (tmp_path / "set.jsonl").write_text("\n".join(json.dumps(r) for r in rows))
    config = tmp_path / "eval.yaml"
    config.write_text(f"data: set.jsonl\ntarget: {target}\nmetrics: [exact_match]\n")
    return config


@pytest.mark.parametrize("target", ["app/support_bot.py:answer", "./app/support_bot.py:answer"])
def test_a_file_path_target_is_imported_by_path(tmp_path: Path, target: str) -> None:
    result = runner.invoke(app, ["run", str(project(tmp_path, target)), "--json", "--no-progress"])

    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["metrics"][0]["mean"] == 1.0


def test_an_absolute_file_path(tmp_path: Path) -> None:
    project(tmp_path, "x")

    fn = import_callable(f"{tmp_path / 'app' / 'support_bot.py'}:answer")

    assert fn("a") == "A"


def test_a_missing_file_says_where_it_was_looked_for(tmp_path: Path) -> None:
    result = runner.invoke(
        app, ["run", str(project(tmp_path, "app/nope.py:answer")), "--no-progress"]
    )

    assert result.exit_code == 2
    assert "no file app/nope.py in the config's folder" in result.output
    assert "Traceback" not in result.output


def test_a_module_not_beside_the_config_states_the_lookup_rule(tmp_path: Path) -> None:
    # a name no other test puts on the import path
    config = project(tmp_path, "faq_bot_not_beside:answer", name="faq_bot_not_beside")
    result = runner.invoke(app, ["run", str(config), "--no-progress"])

    assert result.exit_code == 2
    assert "cannot import 'faq_bot_not_beside'" in result.output
    assert "looked up in the config's folder" in result.output
    assert "path/to/file.py:function" in result.output
    assert len(result.output.splitlines()) < 8


def test_errors_raised_by_the_users_module_are_one_message(tmp_path: Path) -> None:
    (tmp_path / "broken.py").write_text("x = 1\nraise RuntimeError('no database')\n")
    (tmp_path / "typo.py").write_text("def f(:\n")
    (tmp_path / "needs.py").write_text("import surely_not_installed_xyz\n")

    with pytest.raises(
        TargetError, match=r"raised RuntimeError: no database \(.*broken.py, line 2\)"
    ):
        import_callable("broken.py:f", search_dir=tmp_path)
    with pytest.raises(TargetError, match=r"raised SyntaxError: .*\(line 1\)"):
        import_callable("typo:f", search_dir=tmp_path)
    with pytest.raises(TargetError, match="needs the module 'surely_not_installed_xyz'"):
        import_callable("needs:f", search_dir=tmp_path)
