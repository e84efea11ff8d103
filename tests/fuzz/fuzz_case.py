"""What a fuzz case is, the helpers that write its files, and how one is run through
the real command line and judged."""

from __future__ import annotations

import contextlib
import io
import json
import signal
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import FrameType
from typing import Any

import pandas as pd
from typer.testing import CliRunner

from ragjudge.cli import app

RUN = ("run", "eval.yaml", "--no-progress")
FOLDER = None
"""A file entry whose content is FOLDER is created as an empty folder."""


@dataclass(frozen=True)
class Case:
    """A malformed input and what the error message must name.

    ``files`` are written into an empty folder (None makes a folder), then ``args`` run
    there; ``{run}`` in them is the id of a valid run stored first when ``stored_run``.
    Every string of ``expect`` must occur in the output (whitespace runs count as one
    space): the file, then the row and field or the config key where there is one.
    """

    name: str
    files: Mapping[str, bytes | None]
    expect: tuple[str, ...]
    args: tuple[str, ...] = RUN
    stored_run: bool = False


@dataclass(frozen=True)
class Outcome:
    """How one case ended: exit code, all output, whether an exception escaped, and
    whether it was stopped still running after :data:`HANG_SECONDS`."""

    case: Case
    exit_code: int
    output: str
    crashed: bool
    hung: bool = False

    @property
    def missing(self) -> list[str]:
        """The expected strings the output does not hold."""
        flat = " ".join(self.output.split())
        return [text for text in self.case.expect if " ".join(text.split()) not in flat]

    @property
    def named(self) -> bool:
        """A user's mistake, said clearly: non-zero exit, no crash, every expected name."""
        return self.exit_code != 0 and not self.crashed and not self.hung and not self.missing

    @property
    def let_through(self) -> bool:
        """The malformed input was accepted: the command ended with exit 0."""
        return self.exit_code == 0 and not self.hung


# --------------------------------------------------------------------------- file helpers

JAPANESE = "主キーとは何ですか?"
GOOD_ROW = {
    "request": "What is a primary key?",
    "response": "A unique id.",
    "expected_response": "A unique row id.",
}


def jsonl(*rows: Any) -> bytes:
    """JSON Lines: dicts and lists are dumped, strings are written as they are."""
    lines = [r if isinstance(r, str) else json.dumps(r, ensure_ascii=False) for r in rows]
    return ("\n".join(lines) + "\n").encode("utf-8")


def eval_yaml(data: str = "set.jsonl", extra: str = "", metrics: str = "[exact_match]") -> bytes:
    """A config evaluating ``data`` with the responses in it."""
    return f"data: {data}\nmetrics: {metrics}\n{extra}".encode()


def data_case(
    name: str, filename: str, content: bytes | None, *expect: str, extra: str = ""
) -> Case:
    """A case whose evaluation set is broken; the config is fine."""
    return Case(name, {filename: content, "eval.yaml": eval_yaml(filename, extra)}, expect)


def row_case(name: str, row: Mapping[str, Any] | str, *expect: str) -> Case:
    """One good row, then ``row`` as row 2 of ``set.jsonl``."""
    return data_case(name, "set.jsonl", jsonl(GOOD_ROW, row), "set.jsonl", "row 2", *expect)


def config_case(name: str, config: str | bytes, *expect: str, args: Sequence[str] = RUN) -> Case:
    """A case whose config is broken; the evaluation set is fine."""
    text = config.encode() if isinstance(config, str) else config
    return Case(name, {"set.jsonl": jsonl(GOOD_ROW), "eval.yaml": text}, expect, tuple(args))


def parquet(frame: pd.DataFrame) -> bytes:
    """``frame`` as the bytes of a Parquet file."""
    buffer = io.BytesIO()
    frame.to_parquet(buffer, index=False)
    return buffer.getvalue()


def nested(depth: int) -> str:
    """JSON text of lists nested ``depth`` deep."""
    return "[" * depth + "]" * depth


# --------------------------------------------------------------------------- running

runner = CliRunner()

HANG_SECONDS = 120
"""A case still running after this long is stopped and counted as hung. The limit only
turns a hang into a failure instead of a suite that never ends; every case is meant to
end in about a second."""


class _Hung(BaseException):
    """Raised in a case that runs past :data:`HANG_SECONDS` (no ``except Exception`` of
    the command catches it)."""


@contextlib.contextmanager
def _stopped_when_hung() -> Iterator[None]:
    def stop(signum: int, frame: FrameType | None) -> None:
        raise _Hung

    previous = signal.signal(signal.SIGALRM, stop)
    signal.setitimer(signal.ITIMER_REAL, HANG_SECONDS)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def run_case(case: Case, folder: Path) -> Outcome:
    """Write the case's files into ``folder`` and run its command there in-process
    (stopped when it hangs)."""
    for name, content in case.files.items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if content is FOLDER:
            path.mkdir()
        else:
            path.write_bytes(content)
    with contextlib.chdir(folder):
        args = list(case.args)
        if case.stored_run:
            args = [a.replace("{run}", _store_a_run(folder)) for a in args]
        try:
            with _stopped_when_hung():
                result = runner.invoke(app, args, env={"COLUMNS": "1000", "RJ_FUZZ_UNSET": None})
        except _Hung:
            stopped = f"(still running after {HANG_SECONDS} s: stopped)"
            return Outcome(case, -1, stopped, crashed=False, hung=True)
    escaped = result.exception is not None and not isinstance(result.exception, SystemExit)
    output = result.output + (repr(result.exception) if escaped else "")
    return Outcome(case, result.exit_code, output, escaped or "Traceback" in output)


def _store_a_run(folder: Path) -> str:
    (folder / "good.jsonl").write_bytes(jsonl(GOOD_ROW))
    (folder / "good.yaml").write_bytes(eval_yaml("good.jsonl"))
    result = runner.invoke(app, ["run", "good.yaml", "--json", "--no-progress"])
    assert result.exit_code == 0, result.output
    run_id: str = json.loads(result.stdout)["run_id"]
    return run_id
