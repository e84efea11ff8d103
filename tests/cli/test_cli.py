import json
import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pandas as pd
import pytest
from typer.testing import CliRunner

from ragjudge.cli import app

REPO = Path(__file__).resolve().parents[2]
FORMATS = REPO / "examples" / "formats"
runner = CliRunner()

MIXED_ROWS = [
    {
        "request": "What does UNION ALL keep?",
        "response": "Duplicates.",
        "expected_response": "UNION ALL keeps duplicates.",
    },
    {
        "request": {"messages": [{"role": "user", "content": "What is a deadlock?"}]},
        "response": {"choices": [{"message": {"content": "Two transactions wait on each other."}}]},
        "expected_response": "Two transactions each wait for a lock the other holds.",
    },
    {
        "request": {
            "query": "And how is it resolved?",
            "history": [
                {"role": "user", "content": "What is a deadlock?"},
                {"role": "assistant", "content": "A lock cycle."},
            ],
        },
        "response": "The database aborts one transaction.",
        "expected_response": "The engine picks a victim and rolls it back.",
    },
]


def _write_jsonl(path: Path, rows: list[dict[str, object]]) -> Path:
    path.write_text("\n".join(json.dumps(r, ensure_ascii=False) for r in rows) + "\n")
    return path


def _config(
    tmp_path: Path, data: str, metrics: str = "[exact_match, rouge_l]", extra: str = ""
) -> Path:
    cfg = tmp_path / "eval.yaml"
    cfg.write_text(f"data: {data}\nmetrics: {metrics}\n{extra}")
    return cfg


def test_run_mixed_databricks_requests_json_summary(tmp_path: Path) -> None:
    _write_jsonl(tmp_path / "set.jsonl", MIXED_ROWS)
    result = runner.invoke(
        app, ["run", str(_config(tmp_path, "set.jsonl")), "--json", "--no-progress"]
    )
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout)
    assert [m["metric"] for m in summary["metrics"]] == ["exact_match", "rouge_l"]
    assert all(m["n"] == 3 and m["errors"] == 0 for m in summary["metrics"])
    assert (tmp_path / ".ragjudge" / "runs.db").exists()


def test_bad_rows_are_all_named_and_exit_non_zero(tmp_path: Path) -> None:
    rows = [
        MIXED_ROWS[0],
        {"request": "q", "response": "r", "expected_response": "a", "expected_facts": ["a"]},
        MIXED_ROWS[1],
        {"response": "r", "expected_response": "x"},
    ]
    _write_jsonl(tmp_path / "bad.jsonl", rows)
    result = runner.invoke(app, ["run", str(_config(tmp_path, "bad.jsonl")), "--no-progress"])
    assert result.exit_code == 2
    message = result.stderr
    assert "bad.jsonl" in message
    assert "row 2" in message and "expected_facts" in message
    assert "row 4" in message and "request" in message


@pytest.mark.parametrize("name", ["ragas.jsonl", "ragas_legacy.csv"])
def test_ragas_files_run_unchanged(tmp_path: Path, name: str) -> None:
    cfg = _config(tmp_path, str(FORMATS / name), metrics="[token_f1]")
    result = runner.invoke(app, ["run", str(cfg), "--json", "--no-progress"])
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout)
    lines = (FORMATS / name).read_text().strip().splitlines()
    rows = len(lines) - 1 if name.endswith(".csv") else len(lines)
    assert summary["n_samples"] == rows
    assert summary["metrics"][0]["n"] == rows and summary["metrics"][0]["errors"] == 0


def test_openai_evals_file_runs_with_a_target(tmp_path: Path) -> None:
    (tmp_path / "echo_app.py").write_text("def answer(query):\n    return 'no idea'\n")
    cfg = _config(
        tmp_path,
        str(FORMATS / "openai_evals.jsonl"),
        metrics="[match, includes]",
        extra="target: echo_app:answer\n",
    )
    result = runner.invoke(app, ["run", str(cfg), "--json", "--no-progress"])
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout)
    assert all(m["mean"] == 0.0 and m["errors"] == 0 for m in summary["metrics"])


def test_databricks_example_file_reports_rows_lacking_a_reference(tmp_path: Path) -> None:
    # rows with expected_facts have no expected_response for rouge_l: named, not dropped
    cfg = _config(tmp_path, str(FORMATS / "databricks_mixed.jsonl"), metrics="[rouge_l]")
    result = runner.invoke(app, ["run", str(cfg), "--no-progress"])
    assert result.exit_code == 2
    assert "metric 'rouge_l' needs 'expected_response'" in result.stderr


def test_databricks_bad_example_names_both_rows(tmp_path: Path) -> None:
    cfg = _config(tmp_path, str(FORMATS / "databricks_bad.jsonl"))
    result = runner.invoke(app, ["run", str(cfg), "--no-progress"])
    assert result.exit_code == 2
    assert "row 2" in result.stderr and "expected_facts" in result.stderr
    assert "row 4" in result.stderr and "'request'" in result.stderr


def test_missing_data_file_is_a_clean_error(tmp_path: Path) -> None:
    result = runner.invoke(app, ["run", str(_config(tmp_path, "absent.jsonl")), "--no-progress"])
    assert result.exit_code == 2
    assert "absent.jsonl" in result.stderr


def test_runs_show_and_export(tmp_path: Path) -> None:
    _write_jsonl(tmp_path / "set.jsonl", MIXED_ROWS)
    cfg = _config(tmp_path, "set.jsonl")
    first = runner.invoke(app, ["run", str(cfg), "--json", "--no-progress"])
    run_id = json.loads(first.stdout)["run_id"]
    store = tmp_path / ".ragjudge" / "runs.db"
    listing = runner.invoke(app, ["runs", "--store", str(store)], terminal_width=200)
    assert run_id in listing.stdout and "completed" in listing.stdout
    shown = runner.invoke(app, ["show", run_id[:15], "--store", str(store), "--json"])
    assert json.loads(shown.stdout)["metrics"][0]["n"] == 3
    for fmt in ("jsonl", "csv", "parquet"):
        out = tmp_path / f"export.{fmt}"
        done = runner.invoke(
            app, ["export", run_id, "--format", fmt, "-o", str(out), "--store", str(store)]
        )
        assert done.exit_code == 0, done.output
        frame = {
            "jsonl": lambda p: pd.read_json(p, lines=True),
            "csv": pd.read_csv,
            "parquet": pd.read_parquet,
        }[fmt](out)
        assert len(frame) == 3 and {"exact_match", "rouge_l", "request"} <= set(frame.columns)
    missing = runner.invoke(app, ["show", "nope", "--store", str(store)])
    assert missing.exit_code == 2 and "no run" in missing.stderr


def test_limit_trials_and_by(tmp_path: Path) -> None:
    rows = [
        dict(r, metadata={"product": "p1" if i < 2 else "p2"}) for i, r in enumerate(MIXED_ROWS)
    ]
    _write_jsonl(tmp_path / "set.jsonl", rows)
    cfg = _config(tmp_path, "set.jsonl")
    result = runner.invoke(
        app,
        [
            "run",
            str(cfg),
            "--json",
            "--no-progress",
            "--limit",
            "2",
            "--trials",
            "2",
            "--by",
            "metadata.product",
        ],
    )
    summary = json.loads(result.stdout)
    assert summary["n_samples"] == 2 and summary["trials"] == 2
    assert summary["metrics"][0]["trial_agreement"] == 1.0
    assert list(summary["subsets"]) == ["p1"]


SLOW_APP = textwrap.dedent(
    """
    import asyncio
    from pathlib import Path

    HOLD = Path(__file__).with_name("hold")

    async def answer(query):
        # while the test holds the run, questions from 60 on get no answer
        while int(query.split()[-1]) >= 60 and HOLD.exists():
            await asyncio.sleep(0.01)
        return "answer to " + query
    """
)


def _scores_in(store: Path) -> int:
    if not store.exists():
        return 0
    try:
        with sqlite3.connect(store, timeout=5) as conn:
            return int(conn.execute("SELECT COUNT(*) FROM scores").fetchone()[0])
    except sqlite3.OperationalError:
        return 0


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGKILL])
def test_interrupted_500_row_run_resumes_to_exactly_500(
    tmp_path: Path, sig: signal.Signals
) -> None:
    rows = [
        {
            "request_id": f"r{i:03d}",
            "request": f"question {i}",
            "expected_response": f"answer to question {i}",
        }
        for i in range(500)
    ]
    _write_jsonl(tmp_path / "big.jsonl", rows)
    (tmp_path / "slow_app.py").write_text(SLOW_APP)
    (tmp_path / "hold").touch()  # at most 60 rows (120 scores) before the interruption
    cfg = _config(
        tmp_path,
        "big.jsonl",
        metrics="[exact_match, token_f1]",
        extra="target: slow_app:answer\nconcurrency: 2\n",
    )
    store = tmp_path / ".ragjudge" / "runs.db"
    cmd = [sys.executable, "-m", "ragjudge", "run", str(cfg), "--no-progress"]
    proc = subprocess.Popen(
        cmd,
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    for _ in range(1200):  # at most about a minute: a safety net, not a measure
        if _scores_in(store) >= 100:
            break
        time.sleep(0.05)
    proc.send_signal(sig)
    proc.communicate(timeout=30)
    if sig == signal.SIGINT:
        assert proc.returncode == 130
    done_before = _scores_in(store)
    assert 100 <= done_before <= 120, "the run was not interrupted where it was held"
    with sqlite3.connect(store) as conn:
        run_id, status = conn.execute("SELECT run_id, status FROM runs").fetchone()
    assert status == ("interrupted" if sig == signal.SIGINT else "running")
    (tmp_path / "hold").unlink()

    resumed = subprocess.run(
        [*cmd, "--resume", run_id, "--json"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert resumed.returncode == 0, resumed.stderr
    summary = json.loads(resumed.stdout)
    assert {m["metric"]: m["n"] for m in summary["metrics"]} == {
        "exact_match": 500,
        "token_f1": 500,
    }
    with sqlite3.connect(store) as conn:
        per_metric = dict(conn.execute("SELECT metric, COUNT(*) FROM scores GROUP BY metric"))
        distinct = conn.execute(
            "SELECT COUNT(*) FROM (SELECT DISTINCT request_id, trial, metric FROM scores)"
        ).fetchone()[0]
        outputs = conn.execute("SELECT COUNT(*) FROM outputs").fetchone()[0]
    assert per_metric == {"exact_match": 500, "token_f1": 500}
    assert distinct == 1000 and outputs == 500


def test_config_mistakes_are_clean_errors_not_tracebacks(tmp_path: Path) -> None:
    _write_jsonl(tmp_path / "set.jsonl", MIXED_ROWS)
    unknown = runner.invoke(app, ["run", str(_config(tmp_path, "set.jsonl", "[no_such_metric]"))])
    assert unknown.exit_code == 2 and "unknown metric 'no_such_metric'" in unknown.stderr
    typo = _config(tmp_path, "set.jsonl", extra="target: {kind: callable, path: a:b, timout: 3}\n")
    stray = runner.invoke(app, ["run", str(typo)])
    assert stray.exit_code == 2 and "takes no timout" in stray.stderr


def test_resume_takes_no_flags_that_would_change_the_run(tmp_path: Path) -> None:
    cfg = _config(tmp_path, "set.jsonl")
    for flag in (["--trials", "3"], ["--limit", "1"], ["--dry-run"]):
        result = runner.invoke(app, ["run", str(cfg), "--resume", "some-run", *flag])
        assert result.exit_code == 2 and "--resume finishes a stored run" in result.stderr


def test_commands_on_a_missing_store_or_cache_say_so(tmp_path: Path) -> None:
    absent = tmp_path / "absent.db"
    for command in (["runs"], ["show", "r"], ["export", "r", "-o", str(tmp_path / "x.jsonl")]):
        result = runner.invoke(app, [*command, "--store", str(absent)])
        assert result.exit_code == 2 and "no store at" in result.stderr
    assert not absent.exists()
    cache = runner.invoke(app, ["cache", "stats", "--path", str(absent)])
    assert cache.exit_code == 2 and "no cache at" in cache.stderr


# --------------------------------------------------------------------------- bad input


def test_empty_response_is_scored_zero_not_a_missing_field(tmp_path: Path) -> None:
    rows = [
        {"request": "q1", "response": "", "expected_response": "Paris"},
        {"request": "q2", "response": "Paris", "expected_response": "Paris"},
    ]
    _write_jsonl(tmp_path / "set.jsonl", rows)
    cfg = _config(tmp_path, "set.jsonl", "[exact_match, token_f1, rouge_l, word_recall]")

    result = runner.invoke(app, ["run", str(cfg), "--json", "--no-progress"])

    assert result.exit_code == 0, result.output
    summary = {m["metric"]: m for m in json.loads(result.stdout)["metrics"]}
    assert all(m["n"] == 2 and m["errors"] == 0 and m["mean"] == 0.5 for m in summary.values())


def test_null_response_is_still_missing(tmp_path: Path) -> None:
    rows = [{"request": "q1", "response": None, "expected_response": "a"}]
    _write_jsonl(tmp_path / "set.jsonl", rows)

    result = runner.invoke(app, ["run", str(_config(tmp_path, "set.jsonl")), "--no-progress"])

    assert result.exit_code == 2 and "needs 'response'" in result.stderr


def test_reserved_metric_name_is_refused_before_the_run(tmp_path: Path) -> None:
    _write_jsonl(tmp_path / "set.jsonl", MIXED_ROWS)
    cfg = _config(tmp_path, "set.jsonl", "[{metric: exact_match, name: response}]")

    result = runner.invoke(app, ["run", str(cfg), "--no-progress"])

    assert result.exit_code == 2
    assert "metric 'response': the score name 'response' is reserved" in result.stderr
    assert not (tmp_path / ".ragjudge").exists()


def test_a_store_that_is_a_folder_or_not_sqlite_is_a_message(tmp_path: Path) -> None:
    _write_jsonl(tmp_path / "set.jsonl", MIXED_ROWS)
    (tmp_path / "folder.db").mkdir()
    (tmp_path / "notes.txt").write_text("not a database\n" * 50, encoding="utf-8")
    for store in ("folder.db", "notes.txt"):
        cfg = _config(tmp_path, "set.jsonl", extra=f"store: {store}\n")
        ran = runner.invoke(app, ["run", str(cfg), "--no-progress"])
        listed = runner.invoke(app, ["runs", "--store", str(tmp_path / store)])
        for result in (ran, listed):
            assert result.exit_code == 2, result.output
            assert result.exception is None or isinstance(result.exception, SystemExit)
            assert store in result.stderr and "store" in result.stderr


def _stored_run(tmp_path: Path) -> tuple[str, Path]:
    _write_jsonl(tmp_path / "set.jsonl", MIXED_ROWS)
    result = runner.invoke(
        app, ["run", str(_config(tmp_path, "set.jsonl")), "--json", "--no-progress"]
    )
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)["run_id"], tmp_path / ".ragjudge" / "runs.db"


@pytest.mark.parametrize("fmt", ["jsonl", "parquet", "csv"])
def test_export_to_an_unwritable_path_is_a_message(tmp_path: Path, fmt: str) -> None:
    run_id, store = _stored_run(tmp_path)
    (tmp_path / "out").mkdir()
    (tmp_path / "file").write_text("", encoding="utf-8")
    cases = {
        str(tmp_path / "out"): "it is a folder",
        str(tmp_path / "file" / f"x.{fmt}"): "file is a file, not a folder",
        str(tmp_path / "file" / "deeper" / f"x.{fmt}"): "file is a file, not a folder",
    }
    for output, says in cases.items():
        result = runner.invoke(
            app, ["export", run_id, "--store", str(store), "--format", fmt, "-o", output]
        )
        assert result.exit_code == 2, result.output
        assert "cannot write" in result.stderr
        assert says in " ".join(result.stderr.split())


@pytest.mark.skipif(
    hasattr(os, "geteuid") and os.geteuid() == 0,
    reason="root may write into a read-only folder",
)
def test_export_into_a_read_only_folder_is_a_message(tmp_path: Path) -> None:
    run_id, store = _stored_run(tmp_path)
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o500)
    try:
        result = runner.invoke(
            app, ["export", run_id, "--store", str(store), "-o", str(locked / "x.jsonl")]
        )
    finally:
        locked.chmod(0o700)
    assert result.exit_code == 2 and "Permission denied" in result.stderr
