"""A folder of Parquet files (a partitioned dataset) is one evaluation set, read in
record batches, with the same samples as the one file holding all its rows."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from ragjudge.loading import DatasetError, _readers, load_samples

ROWS = [
    {
        "request_id": f"r{i}",
        "request": f"質問 {i}" if i % 3 == 0 else f"question {i}",
        "response": f"answer {i}",
        "expected_facts": [f"fact {i}", f"fact {i + 1}"],
        "metadata": {"lang": "ja" if i % 3 == 0 else "en"},
    }
    for i in range(25)
]


def test_a_folder_of_parquet_files_reads_as_the_file_holding_every_row(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    whole = tmp_path / "whole.parquet"
    pd.DataFrame(ROWS).to_parquet(whole)
    folder = tmp_path / "parts"
    (folder / "part-1").mkdir(parents=True)
    pd.DataFrame(ROWS[:10]).to_parquet(folder / "part-0.parquet")
    pd.DataFrame(ROWS[10:]).to_parquet(folder / "part-1" / "rows.parquet")
    monkeypatch.setattr(_readers, "PARQUET_BATCH_ROWS", 4)  # several batches per file
    from_folder = load_samples(folder)
    assert [s.request_id for s in from_folder] == [f"r{i}" for i in range(25)]
    assert from_folder == load_samples(whole)


def test_a_folder_without_parquet_files_is_named(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("x")
    with pytest.raises(DatasetError, match=r"is a folder with no \.parquet file"):
        load_samples(tmp_path)


def test_a_bad_file_in_the_folder_is_named(tmp_path: Path) -> None:
    pd.DataFrame(ROWS[:3]).to_parquet(tmp_path / "a.parquet")
    (tmp_path / "b.parquet").write_bytes(b"not parquet")
    with pytest.raises(DatasetError, match=r"b\.parquet: is not a readable Parquet file"):
        load_samples(tmp_path)
