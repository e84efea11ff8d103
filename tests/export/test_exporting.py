"""``ragjudge export``: the extension picks the format, ``-o -`` is standard output,
and the rows carry the retrieved contexts, the contexts each judge saw and, with
``--with-calls``, every judge prompt and reply."""

from __future__ import annotations

import io
import json
from collections.abc import Iterator
from pathlib import Path

import pandas as pd
import pytest
from typer.testing import CliRunner

import ragjudge as rj
from ragjudge._util.known_secrets import register_secrets
from ragjudge.cli import app
from ragjudge.export import ExportError, write_export
from ragjudge.models.scripted import ReplyScript, ScriptedProvider
from ragjudge.store import Store
from ragjudge.testing.server import OpenAITestServer
from served import running, write_project

runner = CliRunner()
ROWS = [
    {
        "request_id": "u1",
        "request": "How do UNION and UNION ALL differ?",
        "response": "UNION ALL keeps duplicates.",
        "expected_response": "UNION ALL keeps duplicates while UNION removes them.",
        "retrieved_context": [
            {"doc_uri": "union_all.md", "content": "UNION ALL keeps every row."},
            {"doc_uri": "union.md", "content": "UNION removes duplicates."},
        ],
    },
    {
        "request_id": "u2",
        "request": "What is a deadlock?",
        "response": "A lock cycle.",
        "expected_response": "Transactions waiting on each other's locks.",
    },
]


@pytest.fixture
def judged_run(tmp_path: Path) -> tuple[Path, str]:
    kb = tmp_path / "kb"
    kb.mkdir()
    (kb / "union_all.md").write_text("UNION ALL keeps every row, duplicates included.")
    (kb / "deadlock.md").write_text("A deadlock is a cycle of transactions waiting for locks.")
    store = tmp_path / "runs.db"
    result = rj.evaluate(
        ROWS,
        metrics=["rouge_l", "answer_accuracy"],
        knowledge_base=str(kb),
        judge=ScriptedProvider(ReplyScript(default="Close to the reference.\n[RESULT] 4")),
        store=store,
        progress=False,
    )
    return store, result.run_id


def export(store: Path, run_id: str, *args: str) -> object:
    return runner.invoke(app, ["export", run_id, "--store", str(store), *args])


def test_the_extension_picks_the_format(judged_run: tuple[Path, str], tmp_path: Path) -> None:
    store, run_id = judged_run

    for name in ("rows.parquet", "rows.csv", "rows.jsonl", "rows.json"):
        result = runner.invoke(
            app, ["export", run_id, "--store", str(store), "-o", str(tmp_path / name)]
        )
        assert result.exit_code == 0, result.output

    parquet = pd.read_parquet(tmp_path / "rows.parquet")
    assert list(parquet["request_id"]) == ["u1", "u2"]
    assert list(pd.read_csv(tmp_path / "rows.csv")["request_id"]) == ["u1", "u2"]
    assert len(pd.read_json(tmp_path / "rows.jsonl", lines=True)) == 2
    assert [r["request_id"] for r in json.loads((tmp_path / "rows.json").read_text())] == [
        "u1",
        "u2",
    ]


def test_format_overrides_the_extension_and_unknown_extensions_are_named(
    judged_run: tuple[Path, str], tmp_path: Path
) -> None:
    from ragjudge.export._files import ExportError, export_format

    store, run_id = judged_run

    forced = runner.invoke(
        app,
        [
            "export",
            run_id,
            "--store",
            str(store),
            "-o",
            str(tmp_path / "rows.txt"),
            "--format",
            "csv",
        ],
    )
    unknown = runner.invoke(
        app, ["export", run_id, "--store", str(store), "-o", str(tmp_path / "rows.txt")]
    )

    assert forced.exit_code == 0
    assert (tmp_path / "rows.txt").read_text().startswith("request_id,")
    assert unknown.exit_code == 2 and "'.txt'" in unknown.output and "--format" in unknown.output
    assert export_format("-", None) == "jsonl"
    with pytest.raises(ExportError, match="standard output"):
        export_format("-", "parquet")


def test_dash_writes_json_lines_to_standard_output(
    judged_run: tuple[Path, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store, run_id = judged_run
    monkeypatch.chdir(tmp_path)

    result = runner.invoke(app, ["export", run_id, "--store", str(store), "-o", "-"])

    assert result.exit_code == 0
    lines = [json.loads(line) for line in result.stdout.splitlines()]
    assert [line["request_id"] for line in lines] == ["u1", "u2"]
    assert not (tmp_path / "-").exists()


@pytest.mark.parametrize("suffix", ["jsonl", "json", "csv", "parquet", "-"])
def test_secrets_this_process_knows_are_masked_in_every_format(
    judged_run: tuple[Path, str], tmp_path: Path, suffix: str
) -> None:
    # a store written before the secret was known (by an older version) still holds it
    store, run_id = judged_run
    register_secrets(["keeps duplicates"])
    output = "-" if suffix == "-" else str(tmp_path / f"rows.{suffix}")
    result = export(store, run_id, "-o", output)
    assert result.exit_code == 0  # type: ignore[attr-defined]
    if suffix == "-":
        rows = pd.read_json(io.StringIO(result.stdout), lines=True)  # type: ignore[attr-defined]
    else:
        readers = {
            "jsonl": lambda p: pd.read_json(p, lines=True),
            "json": pd.read_json,
            "csv": pd.read_csv,
            "parquet": pd.read_parquet,
        }
        rows = readers[suffix](output)
    assert rows["response"].tolist() == ["UNION ALL ***.", "A lock cycle."]
    assert "keeps duplicates" not in rows.to_csv()


def test_rows_carry_retrieved_and_judge_shown_contexts(judged_run: tuple[Path, str]) -> None:
    store, run_id = judged_run

    result = export(store, run_id, "-o", "-")

    first, second = (json.loads(line) for line in result.stdout.splitlines())  # type: ignore[attr-defined]
    retrieved = json.loads(first["retrieved_context"])
    assert retrieved[0] == {"doc_uri": "union_all.md", "content": "UNION ALL keeps every row."}
    assert retrieved[1]["doc_uri"] == "union.md"
    assert second["retrieved_context"] is None
    shown = json.loads(first["judge_contexts"])["answer_accuracy"]
    assert shown[0]["doc_uri"] == "union_all.md" and "duplicates included" in shown[0]["content"]
    assert "judge_calls" not in first


def test_with_calls_adds_every_prompt_and_reply(judged_run: tuple[Path, str]) -> None:
    store, run_id = judged_run

    result = export(store, run_id, "-o", "-", "--with-calls")

    first = json.loads(result.stdout.splitlines()[0])  # type: ignore[attr-defined]
    (call,) = json.loads(first["judge_calls"])
    assert call["purpose"] == "answer_accuracy"
    assert call["reply"] == "Close to the reference.\n[RESULT] 4"
    assert call["parsed"]["score"] == 4
    assert "How do UNION and UNION ALL differ?" in call["messages"][-1]["content"]
    assert call["call_id"] == json.loads(first["answer_accuracy.judge_calls"])[0]


@pytest.fixture
def server() -> Iterator[OpenAITestServer]:
    yield from running(OpenAITestServer(replies=ReplyScript(default="Feedback: ok. [RESULT] 4")))


def strict_json(text: str) -> object:
    """``text`` read as JSON that has no NaN or Infinity (which JSON does not allow)."""

    def refuse(constant: str) -> object:
        raise ValueError(f"{constant} is not JSON")

    return json.loads(text, parse_constant=refuse)


# export-with-calls-crash: export --with-calls failed on the pre-flight call's empty parsed value
def test_with_calls_exports_a_run_made_with_the_preflight_question(
    tmp_path: Path, server: OpenAITestServer
) -> None:
    # the pre-flight call has no parsed value: it must not break the export of the others
    config = write_project(
        tmp_path,
        ROWS,
        "data: set.jsonl\nmetrics: [{metric: answer_accuracy, contexts: none}]\n"
        f"judge: {{model: openai/judge, base_url: '{server.base_url}'}}\n",
    )
    store = tmp_path / "runs.db"
    ran = runner.invoke(app, ["run", str(config), "--no-progress", "--store", str(store)])
    assert ran.exit_code == 0, ran.output
    with Store(store) as opened:
        (run,) = opened.runs()
    run_id = run.run_id

    result = export(store, run_id, "-o", "-", "--with-calls")

    assert result.exit_code == 0, result.output
    rows = [strict_json(line) for line in result.stdout.splitlines()]  # type: ignore[attr-defined]
    calls = [call for row in rows for call in strict_json(row["judge_calls"])]  # type: ignore[index, union-attr]
    assert [c["purpose"] for c in calls] == ["answer_accuracy", "answer_accuracy"]
    assert all(c["error"] is None and c["parsed"]["score"] == 4 for c in calls)


def test_mlflow_export_refuses_file_options(judged_run: tuple[Path, str]) -> None:
    store, run_id = judged_run

    result = export(store, run_id, "--to", "mlflow", "--with-calls")

    assert result.exit_code == 2 and "--to mlflow writes no file" in result.output


def test_a_file_that_cannot_be_written_is_an_export_error(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("not a folder", encoding="utf-8")
    frame = pd.DataFrame({"request_id": ["a"]})

    with pytest.raises(
        ExportError, match=r"cannot write .*file/x\.jsonl: .*file is a file, not a folder"
    ):
        write_export(frame, str(tmp_path / "file" / "x.jsonl"), "jsonl")
