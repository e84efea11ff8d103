"""An export written a page of samples at a time holds the same rows, columns and
values as the whole-run frame written at once, whatever the page size."""

from __future__ import annotations

import io
from pathlib import Path

import pandas as pd
import pytest

import ragjudge as rj
from ragjudge.export._files import export_frame, long_frame, write_export
from ragjudge.export._paged import long_pages, wide_pages, write_paged_export
from ragjudge.models.scripted import ReplyScript, ScriptedProvider
from ragjudge.store import Store

ROWS = [
    {
        "request_id": f"q{i}",
        "request": f"Question {i}: how do UNION and UNION ALL differ?",
        "response": "UNION ALL keeps duplicates." if i % 3 else "",
        **({"expected_response": "UNION ALL keeps duplicates."} if i != 4 else {}),
        "metadata": {"topic": f"t{i % 2}", **({"rank": i} if i > 3 else {})},
    }
    for i in range(7)
]


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    store = tmp_path_factory.mktemp("paged") / "runs.db"
    result = rj.evaluate(
        ROWS,
        metrics=["rouge_l", {"metric": "answer_accuracy", "contexts": "none"}],
        judge=ScriptedProvider(ReplyScript(default="Close to the reference.\n[RESULT] 4")),
        store=store,
        progress=False,
        skip_invalid_rows=True,
    )
    return store, result.run_id


@pytest.mark.parametrize("fmt", ["jsonl", "csv", "json"])
@pytest.mark.parametrize("with_calls", [False, True])
def test_a_paged_text_export_equals_the_whole_run_export(
    run: tuple[Path, str], tmp_path: Path, fmt: str, with_calls: bool
) -> None:
    store_path, run_id = run
    whole, paged = tmp_path / f"whole.{fmt}", tmp_path / f"paged.{fmt}"
    with Store(store_path) as store:
        frame = export_frame(store, run_id, with_calls=with_calls)
        write_export(frame, str(whole), fmt)
        rows = write_paged_export(
            wide_pages(store, run_id, with_calls=with_calls, size=2), str(paged), fmt
        )

    assert rows == len(ROWS) == len(frame)
    assert paged.read_text(encoding="utf-8") == whole.read_text(encoding="utf-8")


def test_pages_differ_in_columns_yet_every_row_has_them_all(run: tuple[Path, str]) -> None:
    store_path, run_id = run
    with Store(store_path) as store:
        pages = list(wide_pages(store, run_id, size=2)())
        out = io.StringIO()
        write_paged_export(wide_pages(store, run_id, size=2), "-", "jsonl", out)

    assert len(pages) == 4
    assert {"metadata.rank"} - set(pages[0].columns) == {"metadata.rank"}
    written = pd.read_json(io.StringIO(out.getvalue()), lines=True)
    assert "metadata.rank" in written.columns
    assert list(written["request_id"]) == [r["request_id"] for r in ROWS]


def test_a_paged_parquet_export_reads_back_as_the_whole_run_frame(
    run: tuple[Path, str], tmp_path: Path
) -> None:
    store_path, run_id = run
    with Store(store_path) as store:
        write_export(export_frame(store, run_id), str(tmp_path / "whole.parquet"), "parquet")
        write_paged_export(
            wide_pages(store, run_id, size=3), str(tmp_path / "paged.parquet"), "parquet"
        )

    whole = pd.read_parquet(tmp_path / "whole.parquet")
    paged = pd.read_parquet(tmp_path / "paged.parquet")
    assert list(paged.columns) == list(whole.columns)
    pd.testing.assert_frame_equal(paged, whole, check_dtype=False)


def test_a_paged_long_export_equals_the_whole_run_one(
    run: tuple[Path, str], tmp_path: Path
) -> None:
    store_path, run_id = run
    with Store(store_path) as store:
        write_export(long_frame(store, run_id), str(tmp_path / "whole.jsonl"), "jsonl")
        rows = write_paged_export(
            long_pages(store, run_id, size=2), str(tmp_path / "paged.jsonl"), "jsonl"
        )

    whole = (tmp_path / "whole.jsonl").read_text(encoding="utf-8")
    assert rows == whole.count("\n") == 2 * len(ROWS)
    assert (tmp_path / "paged.jsonl").read_text(encoding="utf-8") == whole


def test_an_export_to_a_file_under_a_file_names_it(run: tuple[Path, str], tmp_path: Path) -> None:
    store_path, run_id = run
    (tmp_path / "taken").write_text("")
    with Store(store_path) as store, pytest.raises(rj.errors.ExportError, match="taken is a file"):
        write_paged_export(wide_pages(store, run_id), str(tmp_path / "taken" / "rows.csv"), "csv")
