"""Strict JSON in evaluation sets: a key given twice, a number beyond a float's range and
a whole number too long to read are problems of their row, naming the field, wherever
JSON is read (JSON Lines, a JSON document, a JSON cell of a CSV file) — never a value
silently replaced, a null, or a traceback."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from ragjudge.loading import DatasetError, load_samples, read_evaluation_set

GOOD = '{"request_id": "ok", "request": "What is SQL?", "response": "A query language."}'
HUGE_INT = "9" * 5000


def problems_of(path: Path) -> list[tuple[int, str, str]]:
    with pytest.raises(DatasetError) as caught:
        load_samples(path)
    return [(p.row, p.field, p.reason) for p in caught.value.problems]


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


# json-duplicate-keys: a key given twice was read silently, the last value winning
def test_a_key_given_twice_in_a_row_is_refused_naming_the_row_and_key(tmp_path: Path) -> None:
    row = (
        '{"request_id": "a1", "request": "What is SQL?", "response": "first answer", '
        '"response": "SQL is a query language."}'
    )
    path = write(tmp_path, "set.jsonl", f"{GOOD}\n{row}\n")

    ((number, field, reason),) = problems_of(path)

    assert (number, field) == (2, "response")
    assert "given twice in the row" in reason


def test_a_key_given_twice_inside_a_field_names_its_path(tmp_path: Path) -> None:
    row = '{"request": "q", "metadata": {"lang": "en", "tags": [{"a": 1, "a": 2}]}}'
    path = write(tmp_path, "set.jsonl", row + "\n")

    ((number, field, reason),) = problems_of(path)

    assert (number, field) == (1, "metadata.tags[0].a")
    assert "given twice in one object" in reason


# json-duplicate-keys: a key given twice was read silently, the last value winning
def test_a_key_given_twice_in_a_json_document_or_a_csv_cell_is_refused(tmp_path: Path) -> None:
    document = write(tmp_path, "set.json", '[{"request": "q", "request": "r"}]')
    cell = write(
        tmp_path, "set.csv", 'request,metadata\nq,"{""lang"": ""en"", ""lang"": ""ja""}"\n'
    )

    assert problems_of(document)[0][:2] == (1, "request")
    assert problems_of(cell)[0][:2] == (1, "metadata.lang")


# json-huge-float: a number beyond a float's range (1e400) was silently stored as null
def test_a_number_beyond_a_floats_range_is_refused_not_kept_as_null(tmp_path: Path) -> None:
    row = '{"request": "q", "response": "a", "metadata": {"weight": 1e400, "low": -1E+999}}'
    path = write(tmp_path, "set.jsonl", f"{GOOD}\n{row}\n")

    ((number, field, reason),) = problems_of(path)

    assert (number, field) == (2, "metadata.weight")
    assert "infinite" in reason


def test_an_infinite_number_of_a_frame_or_csv_cell_is_refused(tmp_path: Path) -> None:
    frame = pd.DataFrame({"request": ["q"], "human": [float("inf")]})
    cell = write(tmp_path, "set.csv", 'request,metadata\nq,"{""w"": 1e999}"\n')

    with pytest.raises(DatasetError, match=r"row 1, field 'human': is infinite"):
        load_samples(frame)
    assert problems_of(cell)[0][:2] == (1, "metadata.w")


# huge-int: a 5,000-digit whole number in the data stopped the run with a traceback
def test_a_whole_number_too_long_to_read_is_its_rows_problem(tmp_path: Path) -> None:
    row = f'{{"request_id": "a1", "request": "q", "metadata": {{"x": {HUGE_INT}}}}}'
    path = write(tmp_path, "set.jsonl", f"{GOOD}\n{row}\n")

    ((number, field, reason),) = problems_of(path)

    assert (number, field) == (2, "metadata.x")
    assert "5,000 digits" in reason and "write it as a string" in reason


# huge-int: a 5,000-digit whole number in the data stopped the run with a traceback
def test_a_whole_number_too_long_is_refused_in_every_source(tmp_path: Path) -> None:
    document = write(tmp_path, "set.json", f'{{"rows": [{{"request": "q", "n": -{HUGE_INT}}}]}}')
    cell = write(tmp_path, "set.csv", f'request,metadata\nq,"{{""n"": {HUGE_INT}}}"\n')

    assert problems_of(document)[0][:2] == (1, "n")
    assert problems_of(cell)[0][:2] == (1, "metadata.n")
    with pytest.raises(DatasetError, match=r"row 1, field 'metadata.n': is a whole number"):
        load_samples([{"request": "q", "metadata": {"n": 10**5000}}])


def test_skip_invalid_rows_leaves_such_rows_out_and_reports_them(tmp_path: Path) -> None:
    rows = [GOOD, '{"request": "q", "request": "r"}', '{"request": "q", "w": 1e400}']
    path = write(tmp_path, "set.jsonl", "\n".join(rows) + "\n")

    loaded = read_evaluation_set(path, skip_invalid_rows=True)

    assert [s.request_id for s in loaded.samples] == ["ok"]
    assert [(p.row, p.field) for p in loaded.report.skipped] == [(2, "request"), (3, "w")]


def test_the_reader_marks_only_what_the_checks_must_name() -> None:
    from ragjudge.loading._json import JsonReader, LongNumber, RepeatedKeys

    reader = JsonReader()

    plain, plain_marked = reader.read(json.dumps({"a": [1, 2.5, "x"], "b": {"c": None}}))
    repeated, repeated_marked = reader.read('{"a": 1, "b": {"c": 1, "c": 2}}')
    long_number, long_marked = reader.read(f"[{HUGE_INT}]")
    infinite, infinite_marked = reader.read("[1e400]")

    assert (plain, plain_marked) == ({"a": [1, 2.5, "x"], "b": {"c": None}}, False)
    assert isinstance(repeated["b"], RepeatedKeys) and repeated["b"].repeated == ["c"]
    assert repeated_marked and long_marked and infinite_marked
    assert long_number == [LongNumber(5000)] and infinite == [float("inf")]
