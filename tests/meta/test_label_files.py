from __future__ import annotations

import json
from pathlib import Path

import pytest

from label_runs import label_run
from ragjudge.errors import DataError
from ragjudge.meta._label_files import export_labels, import_labels
from ragjudge.store import Label

ROWS = [
    {"request_id": "s0", "metric": "correct", "annotator": "ann", "label": True},
    {
        "request_id": "s1",
        "metric": "correct",
        "annotator": "ann",
        "label": "no",
        "comment": "wrong",
    },
    {"request_id": "s2", "metric": "quality", "annotator": "bob", "label": 4, "drawn": "targeted"},
    {"request_id": "s3", "metric": "", "annotator": "bob", "label": "fluent"},
    {"request_id": "s4", "annotator": "ann", "label": {"cites": True, "complete": False}},
    {"request_id": "s5", "annotator": "ann", "comment": "cannot tell"},
    {"request_id": "s6", "metric": "quality", "annotator": "ann", "label": "3", "kind": "choice"},
    {
        "request_id": "s7",
        "metric": "correct",
        "annotator": "cy",
        "label": "yes",
        "created_at": "2025-01-02T03:04:05+00:00",
    },
]


def _write_jsonl(path: Path, rows: list[dict[str, object]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def _stored(labels: list[Label]) -> list[tuple[object, ...]]:
    return sorted(
        (x.request_id, x.metric, x.annotator, x.kind, json.dumps(x.value), x.comment, x.drawn)
        for x in labels
    )


def test_a_file_of_every_kind_is_read_as_its_labels(tmp_path: Path) -> None:
    store, run_id = label_run(tmp_path)
    found = import_labels(store, run_id, _write_jsonl(tmp_path / "in.jsonl", ROWS))
    assert found.replaced == 0
    by_sample = {x.request_id: x for x in store.labels(run_id)}
    assert [by_sample[f"s{i}"].kind for i in range(8)] == [
        "yesno", "yesno", "scale", "choice", "rubric", "comment", "choice", "yesno",
    ]  # fmt: skip
    assert by_sample["s1"].value is False and by_sample["s1"].comment == "wrong"
    assert by_sample["s2"].value == 4.0 and by_sample["s2"].drawn == "targeted"
    assert by_sample["s4"].number() == 0.5 and by_sample["s4"].metric == ""
    assert by_sample["s6"].value == "3"
    assert by_sample["s0"].drawn == "imported"
    assert by_sample["s7"].created_at == "2025-01-02T03:04:05+00:00"


@pytest.mark.parametrize("suffix", [".jsonl", ".csv"])
def test_an_export_imports_back_to_the_same_labels(tmp_path: Path, suffix: str) -> None:
    store, run_id = label_run(tmp_path)
    import_labels(store, run_id, _write_jsonl(tmp_path / "in.jsonl", ROWS))
    written = tmp_path / f"out{suffix}"
    assert export_labels(store, run_id, written) == len(ROWS)
    if suffix == ".csv":
        assert written.read_text(encoding="utf-8").startswith("request_id,metric,annotator,kind")
    other, other_id = label_run(tmp_path / "other")
    import_labels(other, other_id, written)
    assert _stored(other.labels(other_id)) == _stored(store.labels(run_id))
    by = {(x.request_id, x.annotator): x.created_at for x in other.labels(other_id)}
    assert by[("s7", "cy")] == "2025-01-02T03:04:05+00:00"


def test_a_csv_file_reads_numbers_words_and_rubrics_from_text(tmp_path: Path) -> None:
    store, run_id = label_run(tmp_path)
    path = tmp_path / "in.csv"
    path.write_text(
        'request_id,metric,label\ns0,quality,2.5\ns1,correct,YES\ns2,,"{""a"": true}"\n',
        encoding="utf-8",
    )
    import_labels(store, run_id, path, annotator="dee")
    found = {x.request_id: (x.kind, x.value, x.annotator) for x in store.labels(run_id)}
    assert found == {
        "s0": ("scale", 2.5, "dee"),
        "s1": ("yesno", True, "dee"),
        "s2": ("rubric", {"a": True}, "dee"),
    }


def test_the_options_fill_only_rows_that_leave_the_field_out(tmp_path: Path) -> None:
    store, run_id = label_run(tmp_path)
    rows = [
        {"request_id": "s0", "label": True},
        {"request_id": "s1", "metric": "quality", "annotator": "x", "label": 2},
    ]
    import_labels(
        store, run_id, _write_jsonl(tmp_path / "in.jsonl", rows), annotator="ann", metric="correct"
    )
    found = sorted((x.request_id, x.metric, x.annotator) for x in store.labels(run_id))
    assert found == [("s0", "correct", "ann"), ("s1", "quality", "x")]


def test_a_second_import_replaces_a_persons_label_and_counts_it(tmp_path: Path) -> None:
    store, run_id = label_run(tmp_path)
    path = _write_jsonl(tmp_path / "in.jsonl", ROWS[:2])
    import_labels(store, run_id, path)
    again = import_labels(store, run_id, path)
    assert again.replaced == 2 and len(store.labels(run_id)) == 2


BAD_ROWS = [
    ({"request_id": "s77", "annotator": "a", "label": True}, "request_id", "did you mean 's7'?"),
    ({"annotator": "a", "label": True}, "request_id", "is missing"),
    ({"request_id": "s1", "label": True}, "annotator", "--annotator"),
    ({"request_id": "s1", "annotator": "a"}, "label", "is missing"),
    ({"request_id": "s1", "annotator": "a", "label": {"x": 1}}, "label", "rubric"),
    ({"request_id": "s1", "annotator": "a", "label": [1]}, "label", "cannot be a label"),
    ({"request_id": "s1", "annotator": "a", "label": "maybe", "kind": "yesno"}, "label", "yesno"),
    ({"request_id": "s1", "annotator": "a", "label": 1, "kind": "stars"}, "kind", "stars"),
    ({"request_id": "s1", "annotator": "a", "label": 1, "metric": "qualty"}, "metric", "'quality'"),
    ({"request_id": "s1", "annotator": "a", "label": 1, "drawn": "chosen"}, "drawn", "chosen"),
    (
        {"request_id": "s1", "annotator": "a", "label": 1, "created_at": "monday"},
        "created_at",
        "ISO",
    ),
    ({"request_id": "s1", "annotator": "a", "label": 1, "score": 2}, "score", "not a field"),
    ({"request_id": "s1", "annotator": "a", "label": 1, "comment": ["x"]}, "comment", "text"),
]


@pytest.mark.parametrize(("row", "field", "says"), BAD_ROWS, ids=lambda v: str(v)[:30])
def test_a_bad_row_is_named_by_file_line_and_field_and_nothing_is_stored(
    tmp_path: Path, row: dict[str, object], field: str, says: str
) -> None:
    store, run_id = label_run(tmp_path)
    good = {"request_id": "s0", "annotator": "a", "label": True}
    path = _write_jsonl(tmp_path / "in.jsonl", [good, row])
    with pytest.raises(DataError) as caught:
        import_labels(store, run_id, path)
    message = str(caught.value)
    assert f"{path}, line 2, field '{field}':" in message
    assert says in message and "nothing was stored" in message
    assert store.labels(run_id) == []


def test_a_repeated_row_and_unreadable_lines_are_named(tmp_path: Path) -> None:
    store, run_id = label_run(tmp_path)
    row = {"request_id": "s0", "annotator": "a", "label": True}
    path = _write_jsonl(tmp_path / "in.jsonl", [row, row])
    with pytest.raises(DataError, match=r"line 2, field 'request_id': .* as line 1"):
        import_labels(store, run_id, path)
    path.write_text('{"request_id": "s0"\n', encoding="utf-8")
    with pytest.raises(DataError, match=r"in.jsonl, line 1: not a JSON object"):
        import_labels(store, run_id, path)
    csv_path = tmp_path / "in.csv"
    csv_path.write_text("annotator,label\na,yes\n", encoding="utf-8")
    with pytest.raises(DataError, match=r"in.csv, line 1: the header names no 'request_id'"):
        import_labels(store, run_id, csv_path)
    csv_path.write_text("request_id,annotator,label\ns0,a,yes\ns1,a,sure,extra\n", "utf-8")
    with pytest.raises(DataError, match=r"in.csv, line 3: more cells"):
        import_labels(store, run_id, csv_path)
    with pytest.raises(DataError, match="no such label file"):
        import_labels(store, run_id, tmp_path / "missing.jsonl")
    assert store.labels(run_id) == []
