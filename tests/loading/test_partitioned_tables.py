"""Tables in folders read with a row filter: Hive-partitioned Parquet folders (files
of excluded partitions never opened) and Delta tables (at a version)."""

from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from ragjudge.config import ConfigError
from ragjudge.errors import DatasetError
from ragjudge.loading import StreamedSet, parse_row_filter, read_evaluation_set

DATES = ("2026-10-31", "2026-11-01", "2026-11-02")


def rows(date: str, count: int = 3) -> pa.Table:
    return pa.table(
        {
            "request_id": [f"{date}-{i}" for i in range(count)],
            "request": [f"question {date} {i}" for i in range(count)],
            "response": ["an answer"] * count,
            "lang": ["en", "fr", "en"][:count],
            "turns": list(range(count)),
        }
    )


def write_logs(root: Path, *, corrupt: str | None = None) -> Path:
    for date in DATES:
        folder = root / f"date={date}"
        folder.mkdir(parents=True)
        pq.write_table(rows(date), folder / "part-0.parquet")
    if corrupt is not None:
        (root / f"date={corrupt}" / "part-0.parquet").write_bytes(b"not parquet at all")
    return root


def test_an_excluded_partition_is_never_opened(tmp_path: Path) -> None:
    logs = write_logs(tmp_path / "logs", corrupt="2026-10-31")
    loaded = read_evaluation_set(logs, where="date >= '2026-11-01'")
    assert [s.request_id for s in loaded.samples] == [
        f"{d}-{i}" for d in DATES[1:] for i in range(3)
    ]
    with pytest.raises(DatasetError, match="date=2026-10-31"):
        read_evaluation_set(logs)  # without the filter the corrupt file is read


def test_partition_values_become_metadata(tmp_path: Path) -> None:
    loaded = read_evaluation_set(write_logs(tmp_path / "logs"))
    assert {s.metadata["date"] for s in loaded.samples} == set(DATES)


def test_a_filter_on_partition_and_ordinary_columns(tmp_path: Path) -> None:
    logs = write_logs(tmp_path / "logs")
    where = "date in ('2026-11-01', '2026-11-02') and lang = en and not turns > 1"
    loaded = read_evaluation_set(logs, where=where)
    assert [s.request_id for s in loaded.samples] == ["2026-11-01-0", "2026-11-02-0"]
    either = read_evaluation_set(logs, where="date = '2026-10-31' or turns >= 2")
    assert sorted(s.request_id for s in either.samples) == sorted(
        ["2026-10-31-0", "2026-10-31-1", "2026-10-31-2", "2026-11-01-2", "2026-11-02-2"]
    )


def test_the_streamed_reading_applies_the_filter(tmp_path: Path) -> None:
    logs = write_logs(tmp_path / "logs", corrupt="2026-10-31")
    streamed = StreamedSet(logs, where="date != '2026-10-31' and lang = 'fr'", page_rows=2)
    kept = [s.request_id for page in streamed.pages() for s in page]
    assert kept == ["2026-11-01-1", "2026-11-02-1"]


def test_an_unknown_column_is_named_with_the_columns_that_exist(tmp_path: Path) -> None:
    logs = write_logs(tmp_path / "logs", corrupt="2026-10-31")  # the first file
    with pytest.raises(DatasetError) as raised:
        read_evaluation_set(logs, where="day >= '2026-11-01'")
    message = str(raised.value)
    assert "'day'" in message and "date" in message and "lang" in message


def test_a_filter_that_does_not_parse_names_the_place(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="expected a value at character 7"):
        parse_row_filter("date >> '2026-11-01'")
    with pytest.raises(ConfigError, match="expected 'in' after 'not'"):
        parse_row_filter("lang not = en")


def test_a_filter_on_one_file_is_refused(tmp_path: Path) -> None:
    file = tmp_path / "one.parquet"
    pq.write_table(rows("2026-11-01"), file)
    with pytest.raises(DatasetError, match="folder of Parquet files or a Delta table"):
        read_evaluation_set(file, where="lang = en")


def write_delta(table: Path) -> None:
    deltalake = pytest.importorskip("deltalake")
    deltalake.write_deltalake(
        str(table),
        rows(DATES[0]).append_column("date", pa.array([DATES[0]] * 3)),
        partition_by=["date"],
    )
    for date in DATES[1:]:
        more = rows(date).append_column("date", pa.array([date] * 3))
        deltalake.write_deltalake(str(table), more, mode="append", partition_by=["date"])


def test_a_delta_table_with_a_partition_filter_and_a_version(tmp_path: Path) -> None:
    table = tmp_path / "requests"
    write_delta(table)
    latest = read_evaluation_set(table, where="date >= '2026-11-01' and lang = en")
    assert sorted(s.request_id for s in latest.samples) == [
        "2026-11-01-0",
        "2026-11-01-2",
        "2026-11-02-0",
        "2026-11-02-2",
    ]
    assert {s.metadata["date"] for s in latest.samples} == {"2026-11-01", "2026-11-02"}
    first = read_evaluation_set(f"{table}?version=0")
    assert len(first.samples) == 3
    prefixed = read_evaluation_set(f"delta:{table}?version=1", where="date >= '2026-11-01'")
    assert sorted(s.request_id for s in prefixed.samples) == [f"2026-11-01-{i}" for i in range(3)]


def test_a_delta_table_names_an_unknown_column(tmp_path: Path) -> None:
    table = tmp_path / "requests"
    write_delta(table)
    with pytest.raises(DatasetError, match=r"'day'.*the columns are"):
        read_evaluation_set(table, where="day = 1")
