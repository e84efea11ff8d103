"""Preparing a run on a folder of Parquet files page by page: the same samples,
errors and notes as preparing it from the whole set."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from ragjudge.config import ConfigError, EvalConfig
from ragjudge.run._executors import executor_kind
from ragjudge.run._preparation import RequirementError, prepare
from ragjudge.run._spooling import parquet_folder, prepare_streamed
from ragjudge.schema import STORED_FORM, Sample

ROWS = [
    {"request_id": f"r{i}", "request": f"q{i}", "response": None if i % 7 == 3 else f"a{i}",
     "expected_response": None if i % 5 == 1 else f"a{i}", "metadata": {"lang": ["en", "ja"][i % 2]}}
    for i in range(40)
]  # fmt: skip


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    path = tmp_path / "set"
    path.mkdir()
    for number, start in enumerate(range(0, len(ROWS), 15)):
        pq.write_table(pa.Table.from_pylist(ROWS[start : start + 15]), path / f"{number}.parquet")
    return path


def config(folder: Path, **update: Any) -> EvalConfig:
    return EvalConfig.model_validate(
        {"data": str(folder), "metrics": ["exact_match", "rouge_l"], "executor": "ray", **update}
    )


def spooled_samples(folder: Path, **update: Any) -> tuple[list[Sample], list[str]]:
    prepared, spool = prepare_streamed(config(folder, **update), folder)
    try:
        samples = [
            Sample.model_validate_json(stored, context={STORED_FORM: True})
            for page in spool.pages(7)
            for _, stored in page
        ]
        assert spool.count == len(samples)
    finally:
        spool.remove()
    assert not spool.path.exists()
    return samples, prepared.notes


@pytest.mark.parametrize(
    "update",
    [
        {"skip_invalid_rows": True},
        {"skip_invalid_rows": True, "limit": 12},
        {"skip_invalid_rows": True, "sample": 9, "by": "lang", "seed": 3},
    ],
)
def test_the_spooled_samples_and_notes_are_those_of_a_whole_load(
    folder: Path, update: dict[str, Any]
) -> None:
    whole = prepare(config(folder, **update))
    samples, notes = spooled_samples(folder, **update)
    assert samples == whole.samples
    assert notes == whole.notes
    assert any("not applicable" in n for n in notes) and any("no response" in n for n in notes)


def test_rows_lacking_what_a_metric_needs_fail_as_a_whole_load_fails(folder: Path) -> None:
    with pytest.raises(RequirementError) as whole:
        prepare(config(folder))
    with pytest.raises(RequirementError) as paged:
        prepare_streamed(config(folder), folder)
    assert str(paged.value) == str(whole.value)


def test_an_unknown_by_key_fails_as_a_whole_load_fails(folder: Path) -> None:
    with pytest.raises(ConfigError) as whole:
        prepare(config(folder, by="country", skip_invalid_rows=True))
    with pytest.raises(ConfigError) as paged:
        prepare_streamed(config(folder, by="country", skip_invalid_rows=True), folder)
    assert str(paged.value) == str(whole.value)


def test_only_a_folder_is_streamed(folder: Path, tmp_path: Path) -> None:
    assert parquet_folder(config(folder), None) == folder
    # the local executor holds a small set whole, Ray never
    assert executor_kind("ray").in_pages(len(ROWS))
    assert not executor_kind("local").in_pages(len(ROWS))
    rows = tmp_path / "set.jsonl"
    rows.write_text(json.dumps(ROWS[0]) + "\n")
    assert parquet_folder(config(rows), None) is None


def test_too_many_rows_times_trials_fail_as_a_whole_load_fails(
    folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("ragjudge.config._trials.MAX_TRIAL_ROWS", 100)
    update = {"skip_invalid_rows": True, "trials": 3}
    with pytest.raises(ConfigError) as whole:
        prepare(config(folder, **update))
    with pytest.raises(ConfigError) as paged:
        prepare_streamed(config(folder, **update), folder)
    assert str(paged.value) == str(whole.value)
    assert "3 trials of 34 rows are 102 scorings" in str(whole.value)  # rows with a response


def test_a_spec_slot_no_row_fills_fails_as_a_whole_load_fails(folder: Path) -> None:
    spec = {"prompt": "{completion} in {mood}", "choice_strings": "YN", "choice_scores": {"Y": 1, "N": 0}}  # fmt: skip
    update = {"skip_invalid_rows": True, "metrics": [{"metric": "classify", "spec": spec}]}
    with pytest.raises(ConfigError) as whole:
        prepare(config(folder, **update))
    with pytest.raises(ConfigError) as paged:
        prepare_streamed(config(folder, **update), folder)
    assert str(paged.value) == str(whole.value)
    assert "the prompt's {mood} is filled by no row: no row has 'metadata.mood'" in str(whole.value)
