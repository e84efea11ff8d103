"""A file with its own column names evaluates with a ``columns:`` block (or
``columns=``), with no converter script."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
from typer.testing import CliRunner

import ragjudge as rj
from ragjudge.cli import app
from ragjudge.config import ConfigError, load_config

FORMATS = Path(__file__).resolve().parents[2] / "examples" / "formats"
SUPPORT_COLUMNS = {
    "request_id": "ticket",
    "request": "ticket_text",
    "response": "bot_reply",
    "expected_response": "agent_reply",
    "retrieved_context": "kb_snippets",
    "metadata.queue": "queue",
}


def test_a_mapped_custom_file_evaluates_with_a_columns_block(tmp_path: Path) -> None:
    config = tmp_path / "eval.yaml"
    config.write_text(
        f"data: {FORMATS / 'qa_custom.csv'}\n"
        "columns:\n"
        + "".join(f"  {field}: {column}\n" for field, column in SUPPORT_COLUMNS.items())
        + "metrics: [token_f1]\nby: metadata.queue\n",
        encoding="utf-8",
    )

    result = CliRunner().invoke(app, ["run", str(config), "--json", "--no-progress"])

    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout)
    (token_f1,) = summary["metrics"]
    assert token_f1["n"] == 3 and token_f1["errors"] == 0 and token_f1["mean"] > 0
    assert set(summary["subsets"]) == {"accounts", "billing"}
    assert any("ticket_text → request" in note for note in summary["notes"])


def test_mapped_columns_give_the_fields() -> None:
    from ragjudge.loading import read_evaluation_set

    loaded = read_evaluation_set(FORMATS / "qa_custom.csv", columns=SUPPORT_COLUMNS)

    first = loaded.samples[0]
    assert first.request_id == "T-101"
    assert first.request.query == "How do I reset my password?"
    assert first.retrieved_context is not None
    assert first.retrieved_context[0].doc_uri == "kb_snippets[0]"
    assert first.metadata == {"queue": "accounts"}
    assert loaded.report.unused == []


def test_columns_reach_into_a_json_object_column() -> None:
    from ragjudge.loading import load_samples

    frame = pd.DataFrame(
        {"payload": [{"q": "What is SQL?", "lang": "en"}], "out": ["A query language."]}
    )

    (sample,) = load_samples(frame, columns={"request": "payload.q", "response": "out"})

    assert sample.request.query == "What is SQL?"
    assert sample.response == "A query language."


def test_columns_in_evaluate(tmp_path: Path) -> None:
    rows = [{"frage": "What is SQL?", "antwort": "SQL", "muster": "SQL"}]

    result = rj.evaluate(
        rows,
        columns={"request": "frage", "response": "antwort", "expected_response": "muster"},
        metrics=["exact_match"],
        store=tmp_path / "runs.db",
        progress=False,
    )

    assert result.summary()["mean"].iloc[0] == 1.0


def test_a_column_that_is_not_there_is_named() -> None:
    from ragjudge.loading import DatasetError, load_samples

    with pytest.raises(DatasetError, match="response: no column 'reply'"):
        load_samples([{"q": "x"}], columns={"request": "q", "response": "reply"})


def test_a_bad_columns_block_stops_the_config(tmp_path: Path) -> None:
    config = tmp_path / "eval.yaml"
    config.write_text("data: x.csv\ncolumns: {answer: reply}\nmetrics: [rouge_l]\n")

    with pytest.raises(ConfigError, match="'answer' is not a field to map"):
        load_config(config)


# columns-request-id-overridden: a guessed layout's id column overrode the user's mapping
def test_the_mapping_wins_over_an_id_column_the_guessed_layout_would_take() -> None:
    from ragjudge.loading import read_evaluation_set

    rows = [
        {"myid": "a1", "qid": 7, "question": "q one", "answer": "x", "reference": "x"},
        {"myid": "a2", "qid": 8, "question": "q two", "answer": "y", "reference": "x"},
    ]

    loaded = read_evaluation_set(rows, columns={"request_id": "myid"})

    assert [s.request_id for s in loaded.samples] == ["a1", "a2"]
    assert [s.metadata for s in loaded.samples] == [{"qid": 7}, {"qid": 8}]
    notes = loaded.report.notes()
    assert "read as question/answer/reference (guessed" in notes[0]
    assert "question → request" in notes[0] and "request_id" not in notes[0]
    assert notes[1].endswith("columns mapped by 'columns': myid → request_id")
    assert "would have read qid (for request_id); kept as metadata" in notes[2]


# columns-request-id-overridden: a guessed layout's column overrode the user's mapping
@pytest.mark.parametrize(
    ("row", "mapped", "field"),
    [
        ({"question": "q", "answer": "guess", "mine": "mapped"}, {"response": "mine"}, "response"),
        ({"input": "q", "actual_output": "a", "expected_output": "guess", "gold": "mapped"}, {"expected_response": "gold"}, "expected_response"),
        ({"prompt": [{"role": "user", "content": "q"}], "prompt_id": "guess", "key": "mapped"}, {"request_id": "key"}, "request_id"),
    ],
)  # fmt: skip
def test_the_mapping_wins_in_every_guessed_layout(
    row: dict[str, object], mapped: dict[str, str], field: str
) -> None:
    from ragjudge.loading import load_samples

    (sample,) = load_samples([row], columns=mapped)

    assert getattr(sample, field) == "mapped"


# columns-missing-column: a columns mapping to a column the data lacks was ignored
def test_a_mapped_column_the_data_lacks_is_named_with_the_columns_it_has(tmp_path: Path) -> None:
    path = tmp_path / "data.jsonl"
    path.write_text(
        json.dumps({"request": "What is SQL?", "response": "A query language.", "v2": "SQL"}),
        encoding="utf-8",
    )
    config = tmp_path / "eval.yaml"
    config.write_text("data: data.jsonl\ncolumns: {response: no_such_column}\nmetrics: [exact_match]\n")  # fmt: skip

    result = CliRunner().invoke(app, ["run", str(config), "--no-progress"])

    assert result.exit_code == 2, result.output
    assert result.output == (
        f"error: {path}: columns.response: no column 'no_such_column' "
        "(its columns: request, response, v2)\n"
    )
