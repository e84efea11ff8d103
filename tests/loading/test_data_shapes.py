"""Evaluation sets in the shapes public human-labelled sets come in: tab-separated
files, several annotators' answers packed in one cell, one column feeding two fields,
and ``qid``-style columns beside an id the user mapped. The files are written in
``tmp_path`` from the rows of ``../shared/data``."""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from conftest import shared_data
from ragjudge.loading import DatasetError, DataShape, load_samples, read_evaluation_set

PACKED = " || "
"""Joins the annotators' answers of a clapnq question (no answer holds it; several hold
``/``)."""


def clapnq_rows(count: int) -> list[dict[str, Any]]:
    """The first ``count`` answerable clapnq questions as flat rows: their id, the
    question, and every annotator's answer packed in one ``answers`` cell."""
    path = shared_data("clapnq", "clapnq_dev_answerable.jsonl")
    rows = []
    with path.open(encoding="utf-8") as lines:
        for line, _ in zip(lines, range(count), strict=False):
            record = json.loads(line)
            answers = [output["answer"] for output in record["output"]]
            assert not any(PACKED in answer for answer in answers)
            rows.append(
                {"id": record["id"], "question": record["input"], "answers": PACKED.join(answers)}
            )
    return rows


def write_delimited(path: Path, rows: list[dict[str, Any]], delimiter: str) -> Path:
    with path.open("w", encoding="utf-8", newline="") as file:
        writer = csv.DictWriter(file, fieldnames=list(rows[0]), delimiter=delimiter)
        writer.writeheader()
        writer.writerows(rows)
    return path


CLAPNQ_COLUMNS = {"request_id": "id", "request": "question", "expected_response": "answers"}


def test_a_tsv_file_loads_like_a_csv_file(tmp_path: Path) -> None:
    rows = clapnq_rows(40)
    tsv = write_delimited(tmp_path / "clapnq.tsv", rows, "\t")
    comma = write_delimited(tmp_path / "clapnq.csv", rows, ",")

    from_tsv = load_samples(tsv, columns=CLAPNQ_COLUMNS)
    from_csv = load_samples(comma, columns=CLAPNQ_COLUMNS)

    assert [s.request_id for s in from_tsv] == [row["id"] for row in rows]
    assert from_tsv[0].request.query == rows[0]["question"]
    assert [s.model_dump() for s in from_tsv] == [s.model_dump() for s in from_csv]


def test_a_delimiter_reads_a_file_of_another_extension(tmp_path: Path) -> None:
    rows = clapnq_rows(5)
    text = write_delimited(tmp_path / "clapnq.txt", rows, ";")

    samples = load_samples(text, columns=CLAPNQ_COLUMNS, shape=DataShape(delimiter=";"))

    assert [s.request_id for s in samples] == [row["id"] for row in rows]
    with pytest.raises(DatasetError, match=r"unsupported file type '\.txt'.*delimiter"):
        load_samples(text, columns=CLAPNQ_COLUMNS)


def test_a_broken_quote_in_a_tsv_file_names_its_row_and_column(tmp_path: Path) -> None:
    path = tmp_path / "broken.tsv"
    path.write_text('id\tquestion\n1\tfine\n2\t"never closed\n3\tlost\n', encoding="utf-8")

    with pytest.raises(DatasetError) as caught:
        load_samples(path, columns={"request_id": "id", "request": "question"})

    (problem,) = caught.value.problems
    assert (problem.row, problem.field) == (2, "question")
    assert "never closed" in problem.reason


def test_a_separator_unpacks_every_annotators_answer(tmp_path: Path) -> None:
    rows = clapnq_rows(300)
    path = write_delimited(tmp_path / "clapnq.tsv", rows, "\t")

    samples = load_samples(
        path,
        columns=CLAPNQ_COLUMNS,
        shape=DataShape(separators={"expected_response": PACKED.strip()}),
    )

    # each answer as the annotator wrote it, less the spaces around it
    packed = [[a.strip() for a in row["answers"].split(PACKED) if a.strip()] for row in rows]
    assert [s.expected_response for s in samples] == packed
    assert max(len(s.expected_response or []) for s in samples) == 7


def test_a_separator_cuts_references_and_contexts() -> None:
    (sample,) = load_samples(
        [{"question": "q", "ref": "A/B / C/", "ctx": "one|two"}],
        columns={"request": "question", "expected_response": "ref", "retrieved_context": "ctx"},
        shape=DataShape(separators={"expected_response": "/", "retrieved_context": "|"}),
    )

    assert sample.expected_response == ["A", "B", "C"]
    assert sample.retrieved_context is not None
    assert [(c.doc_uri, c.content) for c in sample.retrieved_context] == [
        ("ctx[0]", "one"),
        ("ctx[1]", "two"),
    ]


def test_a_separator_on_a_column_that_is_not_text_names_the_row_and_column() -> None:
    rows = [{"question": "q1", "gold": "a/b"}, {"question": "q2", "gold": 7}]

    with pytest.raises(DatasetError) as caught:
        load_samples(
            rows,
            columns={"request": "question", "expected_response": "gold"},
            shape=DataShape(separators={"expected_response": "/"}),
        )

    first = caught.value.problems[0]
    assert (first.row, first.field) == (2, "gold")
    assert "separators.expected_response" in first.reason and "int, not text" in first.reason


@pytest.mark.parametrize(
    ("separators", "message"),
    [
        ({"request": "/"}, "'request' is not a field that holds several values"),
        ({"expected_facts": ""}, "separators.expected_facts: give the text between the values"),
    ],
)
def test_a_bad_separator_is_refused(separators: dict[str, str], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        load_samples([{"request": "q"}], shape=DataShape(separators=separators))


def test_one_column_feeds_two_fields(tmp_path: Path) -> None:
    rows = clapnq_rows(10)
    path = write_delimited(tmp_path / "clapnq.tsv", rows, "\t")

    loaded = read_evaluation_set(
        path,
        columns={
            "request_id": "id",
            "request": "question",
            "metadata.question": "question",
            "metadata.clapnq_id": "id",
        },
    )

    first = loaded.samples[0]
    assert first.request_id == rows[0]["id"]
    assert first.request.query == rows[0]["question"]
    assert first.metadata["question"] == rows[0]["question"]
    assert first.metadata["clapnq_id"] == rows[0]["id"]
    assert "answers" in loaded.report.unused


# columns-request-id-overridden: the mapped id wins over a qid column in every source
QID_ROWS = [
    {"myid": "a1", "qid": 7, "question": "q one", "answer": "x", "reference": "x"},
    {"myid": "a2", "qid": 8, "question": "q two", "answer": "y", "reference": "x"},
]


def qid_source(kind: str, folder: Path) -> Any:
    """The rows of the repro as ``kind``: a JSONL, CSV or TSV file, or a DataFrame."""
    if kind == "frame":
        return pd.DataFrame(QID_ROWS)
    if kind == "jsonl":
        path = folder / "data.jsonl"
        path.write_text("".join(json.dumps(row) + "\n" for row in QID_ROWS), encoding="utf-8")
        return path
    return write_delimited(folder / f"data.{kind}", QID_ROWS, "\t" if kind == "tsv" else ",")


@pytest.mark.parametrize("kind", ["jsonl", "csv", "tsv", "frame"])
def test_a_qid_column_never_replaces_the_mapped_id(kind: str, tmp_path: Path) -> None:
    loaded = read_evaluation_set(qid_source(kind, tmp_path), columns={"request_id": "myid"})

    assert [s.request_id for s in loaded.samples] == ["a1", "a2"]
    assert [s.metadata["qid"] for s in loaded.samples] in ([7, 8], ["7", "8"])
    assert "would have read qid (for request_id); kept as metadata" in loaded.report.notes()[2]
