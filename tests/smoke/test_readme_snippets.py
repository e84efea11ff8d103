"""The README runs as written: its ``ragjudge`` command lines, its python blocks (one
session, in order; a block that defines tests runs under pytest; a block headed
``# NAME.py`` is written to that file), and its complete configs load — from a folder
holding a copy of the repository's ``examples/``, as from the repository's root, in the
core environment of ``make test`` and in the full one.

A block opted out with ``<!-- not run in CI: REASON -->`` is reported as skipped with
its reason; a marker without a reason fails."""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

import pytest
from readme_snippets import Snippet, find_snippets, is_file_block, is_test_block
from smoke_env import (
    ROOT,
    Finished,
    copy_examples,
    pytest_plugin_args,
    run_python,
    run_ragjudge,
)

from ragjudge.config import load_config

pytestmark = pytest.mark.smoke

README = ROOT / "README.md"
SNIPPETS = find_snippets(README.read_text(encoding="utf-8"))
DRIVER = Path(__file__).with_name("snippet_driver.py")
# What the pytest docs tell a user to configure for async tests (pytest-asyncio).
PYTEST_INI = "[pytest]\nasyncio_mode = auto\nasyncio_default_fixture_loop_scope = function\n"
_EXPECTED_EXIT = re.compile(r"#.*\bexit(?:s)?\s+(?P<code>\d+)")


def runnable(kind: str) -> list[Snippet]:
    return [s for s in SNIPPETS if s.kind == kind]


def skip_opted_out(snippet: Snippet) -> None:
    if snippet.opted_out is None:
        return
    assert snippet.opted_out, (
        f"README.md {snippet.where}: '<!-- not run in CI -->' needs a reason: "
        "'<!-- not run in CI: why -->'"
    )
    pytest.skip(f"README.md {snippet.where}: not run in CI: {snippet.opted_out}")


@pytest.fixture(scope="module")
def sandbox(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A project root with a copy of ``examples/`` where the demo has run, the README's file blocks
    (``# my_metrics.py``) and the pytest configuration the docs ask for."""
    folder = copy_examples(tmp_path_factory.mktemp("readme"))
    # what `make demo` runs after installing: the README's next commands read its store
    demo = run_ragjudge(["run", "eval.yaml", "--no-progress"], folder / "examples" / "quickstart")
    assert demo.code == 0 and demo.tracebacks == 0, demo.out + demo.err
    for snippet in runnable("python"):
        if (name := is_file_block(snippet)) is not None and snippet.opted_out is None:
            (folder / name).write_text(snippet.text, encoding="utf-8")
    (folder / "pytest.ini").write_text(PYTEST_INI, encoding="utf-8")
    return folder


@pytest.fixture(scope="module")
def session_errors(sandbox: Path) -> dict[int, str | None]:
    """Every plain python block run in one session, in order: line → its error."""
    blocks = [
        {"line": s.line, "text": s.text}
        for s in runnable("python")
        if s.opted_out is None and not is_test_block(s) and is_file_block(s) is None
    ]
    listing = sandbox / "readme_blocks.json"
    listing.write_text(json.dumps(blocks), encoding="utf-8")
    done = run_python([str(DRIVER), str(listing)], sandbox)
    reports = [line for line in done.out.splitlines() if line.startswith('{"line": ')]
    found = {r["line"]: r["error"] for r in map(json.loads, reports)}
    assert len(found) == len(blocks), done.out + done.err
    return found


@pytest.mark.parametrize("snippet", runnable("python"), ids=lambda s: s.where)
def test_a_python_block_runs(
    snippet: Snippet, sandbox: Path, session_errors: dict[int, str | None]
) -> None:
    skip_opted_out(snippet)
    if is_test_block(snippet):
        test_file = sandbox / f"test_readme_line_{snippet.line}.py"
        test_file.write_text(snippet.text, encoding="utf-8")
        pytest_args = ["-q", "-p", "no:cacheprovider", *pytest_plugin_args(), test_file.name]
        done = run_python(["-m", "pytest", *pytest_args], sandbox)
        assert done.code == 0, done.out + done.err
        return
    if is_file_block(snippet) is not None:
        compile(snippet.text, f"README.md:{snippet.line}", "exec")
        return
    error = session_errors[snippet.line]
    assert error is None, f"README.md {snippet.where}:\n{error}"


@pytest.mark.parametrize("snippet", runnable("command"), ids=lambda s: f"{s.where}: {s.text}")
def test_a_command_line_exits_as_documented(snippet: Snippet, sandbox: Path) -> None:
    skip_opted_out(snippet)
    expected = _EXPECTED_EXIT.search(snippet.text)
    done = run_command(snippet.text, sandbox)
    said = done.out + done.err
    assert done.tracebacks == 0, said
    assert done.code == (int(expected["code"]) if expected else 0), said


def run_command(line: str, folder: Path) -> Finished:
    words = shlex.split(line, comments=True)
    return run_ragjudge(words[1:], folder)


@pytest.mark.parametrize("snippet", runnable("config"), ids=lambda s: s.where)
def test_a_complete_config_loads(snippet: Snippet, sandbox: Path) -> None:
    skip_opted_out(snippet)
    path = sandbox / f"readme_line_{snippet.line}.yaml"
    path.write_text(snippet.text, encoding="utf-8")
    config = load_config(path)
    assert config.metrics
