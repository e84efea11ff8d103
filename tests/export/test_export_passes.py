"""Exports carry each score's per-sample pass: ``NAME.passed`` beside its value in the
wide layout (JSON Lines, CSV, Parquet) and a ``passed`` column in the long one."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from ragjudge.export import write_export
from ragjudge.export._files import export_frame, long_frame
from ragjudge.store import Store
from thresholded_run import PASSED, thresholded_run


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    store = tmp_path_factory.mktemp("passes") / "runs.db"
    return store, thresholded_run(store).run_id


def test_the_wide_frame_has_a_passed_column_for_thresholded_scores_only(
    run: tuple[Path, str],
) -> None:
    with Store(run[0]) as store:
        frame = export_frame(store, run[1])

    assert dict(zip(frame["request_id"], frame["token_f1.passed"], strict=True)) == PASSED
    assert "rouge_l.passed" not in frame.columns


@pytest.mark.parametrize("suffix", [".jsonl", ".csv", ".parquet"])
def test_every_file_format_carries_it(run: tuple[Path, str], tmp_path: Path, suffix: str) -> None:
    out = tmp_path / f"rows{suffix}"
    with Store(run[0]) as store:
        write_export(export_frame(store, run[1]), str(out), suffix.lstrip("."))

    if suffix == ".jsonl":
        rows = [json.loads(line) for line in out.read_text().splitlines()]
        read = {r["request_id"]: r["token_f1.passed"] for r in rows}
    elif suffix == ".csv":
        frame = pd.read_csv(out)
        read = dict(zip(frame["request_id"], frame["token_f1.passed"].astype(bool), strict=True))
    else:
        frame = pd.read_parquet(out)
        read = dict(zip(frame["request_id"], frame["token_f1.passed"], strict=True))
    assert read == PASSED


def test_the_long_frame_has_a_passed_column(run: tuple[Path, str]) -> None:
    with Store(run[0]) as store:
        frame = long_frame(store, run[1])

    f1 = frame[frame["metric"] == "token_f1"]
    assert dict(zip(f1["request_id"], f1["passed"], strict=True)) == PASSED
    assert frame[frame["metric"] == "rouge_l"]["passed"].isna().all()
