"""A folder of Parquet files read page by page: the samples, ids, problems and report
of a whole load, a page at a time."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import ragjudge.loading._stream as stream_module
from parquet_files import parquet_folder
from ragjudge.errors import DatasetError
from ragjudge.loading import StreamedSet, read_evaluation_set
from ragjudge.schema import Sample


def read_all(streamed: StreamedSet) -> list[list[Sample]]:
    """Every page, read again when the set asks to (as the run's preparation does)."""
    pages = list(streamed.pages())
    while streamed.again:
        pages = list(streamed.pages())
    return pages


ROWS = [
    {"request": f"question {i}", "response": f"答え {i}", "request_id": None if i % 4 else f"id{i}"}
    for i in range(30)
]  # fmt: skip


def test_pages_hold_the_samples_of_a_whole_load_a_page_at_a_time(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = parquet_folder(tmp_path / "set", ROWS, per_file=11)
    whole = read_evaluation_set(folder)
    built: list[int] = []
    build = stream_module.build_samples

    def spy(label: str, rows: list[Any], *args: Any) -> Any:
        built.append(len(rows))
        return build(label, rows, *args)

    monkeypatch.setattr(stream_module, "build_samples", spy)
    streamed = StreamedSet(folder, page_rows=4)
    pages = streamed.pages()
    first = next(pages)
    assert built == [4] and len(first) == 4  # nothing read beyond the first page yet
    rest = [s for page in pages for s in page]
    assert max(built) == 4 and sum(built) == 30
    assert [*first, *rest] == whole.samples
    assert streamed.report is not None
    assert streamed.report.notes() == whole.report.notes()


def test_a_duplicate_id_on_a_later_page_names_its_file_row_and_field(tmp_path: Path) -> None:
    rows = [{"request": f"q{i}", "response": "r", "id": f"x{i % 7}"} for i in range(9)]
    folder = parquet_folder(tmp_path / "set", rows, per_file=5)
    with pytest.raises(DatasetError) as whole:
        read_evaluation_set(folder, columns={"request_id": "id"})
    with pytest.raises(DatasetError) as paged:
        read_all(StreamedSet(folder, columns={"request_id": "id"}, page_rows=3))
    assert str(paged.value) == str(whole.value)
    assert "row 8" in str(paged.value) and "duplicate request_id 'x0'" in str(paged.value)
    assert str(folder) in str(paged.value) and "'id'" in str(paged.value)


def test_skipped_rows_are_reported_as_a_whole_load_reports_them(tmp_path: Path) -> None:
    rows = [{"request": f"q{i}" if i % 5 else None, "response": "r"} for i in range(20)]
    folder = parquet_folder(tmp_path / "set", rows, per_file=8)
    whole = read_evaluation_set(folder, skip_invalid_rows=True)
    streamed = StreamedSet(folder, skip_invalid_rows=True, page_rows=3)
    assert [s for page in read_all(streamed) for s in page] == whole.samples
    assert streamed.report is not None and streamed.report.skipped == whole.report.skipped
    assert len(whole.samples) == 16


def test_a_format_only_later_pages_show_is_read_again_in_it(tmp_path: Path) -> None:
    rows: list[dict[str, Any]] = [{"question": f"q{i}", "answer": "a"} for i in range(6)]
    rows += [{"question": "q9", "answer": "a", "contexts": ["c"], "ground_truth": "g"}]
    folder = parquet_folder(tmp_path / "set", rows, per_file=7)
    whole = read_evaluation_set(folder)
    streamed = StreamedSet(folder, page_rows=3)
    first_pass = list(streamed.pages())
    assert streamed.again and first_pass  # the first page guessed another format
    assert [s for page in read_all(streamed) for s in page] == whole.samples
    assert streamed.report is not None and streamed.report.format == whole.report.format


def test_a_given_id_equal_to_an_id_derived_earlier_gives_the_whole_loads_ids(
    tmp_path: Path,
) -> None:
    first = {"request": "same", "response": "r"}
    (derived,) = read_evaluation_set([first]).samples
    rows = [first, *({"request": f"q{i}", "response": "r"} for i in range(4))]
    rows.append({"request": "other", "response": "r", "request_id": derived.request_id})
    folder = parquet_folder(tmp_path / "set", rows, per_file=6)
    whole = read_evaluation_set(folder)
    assert whole.samples[0].request_id == f"{derived.request_id}-2"
    paged = [s for page in read_all(StreamedSet(folder, page_rows=2)) for s in page]
    assert paged == whole.samples


def test_an_empty_folder_of_rows_says_so(tmp_path: Path) -> None:
    folder = tmp_path / "set"
    folder.mkdir()
    pq.write_table(pa.table({"request": pa.array([], pa.string())}), folder / "a.parquet")
    with pytest.raises(DatasetError, match="holds no rows"):
        read_all(StreamedSet(folder))
