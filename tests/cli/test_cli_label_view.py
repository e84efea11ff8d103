"""``ragjudge view --label``'s options on the command line: each mistake exits 2
naming the option, and options that fit go on to the server."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest
from typer.testing import CliRunner

from label_sessions import SCORE, labelled_run
from ragjudge.cli import app

runner = CliRunner()


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    store = tmp_path_factory.mktemp("label-cli") / "runs.db"
    return store, labelled_run(store)


@pytest.mark.parametrize(
    ("options", "says"),
    [
        (["--metric", SCORE], "--metric and --annotator go with --label RUN"),
        (["--label", "{run}", "--annotator", "ana"], "--label needs --metric"),
        (["--label", "{run}", "--metric", SCORE], "--label needs --annotator"),
        (["--label", "no-such-run", "--metric", SCORE, "--annotator", "a"], "no store given"),
        (["--label", "{run}", "--metric", "nope", "--annotator", "a"], "no score 'nope'"),
        (["--label", "{run}", "--metric", SCORE, "--annotator", "a", "--scale", "5"], "--scale"),
        (
            ["--label", "{run}", "--metric", SCORE, "--annotator", "a", "--kind", "choice"],
            "--choices",
        ),
        (
            ["--label", "{run}", "--metric", SCORE, "--annotator", "a", "--random-share", "2"],
            "--random-share",
        ),
        (
            ["--label", "{run}", "--metric", SCORE, "--annotator", "a", "--strata", "topic"],
            "--strata",
        ),
    ],
)
def test_a_labelling_mistake_exits_2_naming_the_option(
    run: tuple[Path, str], options: list[str], says: str
) -> None:
    store, run_id = run
    args = ["view", "--store", str(store), *[o.format(run=run_id) for o in options]]
    result = runner.invoke(app, args)
    assert result.exit_code == 2, result.output
    assert says in " ".join(result.output.split())
    assert result.exception is None or isinstance(result.exception, SystemExit)


def test_fitting_labelling_options_go_on_to_listen(run: tuple[Path, str]) -> None:
    store, run_id = run
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        args = ["view", "--store", str(store), "--port", str(port), "--label", run_id]
        args += ["--metric", SCORE, "--annotator", "ana", "--kind", "scale", "--scale", "1-3"]
        result = runner.invoke(app, args)
    assert result.exit_code == 2 and "cannot listen on 127.0.0.1" in result.output
