"""Which system of a wide file a stored run evaluated: the one its config record
names, else (a run stored before records named it) the end of its name
``NAME/SYSTEM``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from ragjudge.config import ConfigError, EvalConfig
from ragjudge.run._resuming import resumed_config, stored_system
from ragjudge.store._store import RunInfo

SYSTEMS = {"gpt4o": "response_gpt4o", "llama": "response_llama"}


def stored(config: EvalConfig, **changes: Any) -> RunInfo:
    record = config.to_record() | changes
    return RunInfo(
        run_id="r1", name=config.name, status="interrupted", created_at="2026-01-01",
        finished_at=None, config=record, versions={}, n_samples=3, trials=1,
    )  # fmt: skip


def system_config(tmp_path: Path, system: str) -> EvalConfig:
    config = EvalConfig(
        name="mtrag", data="wide.tsv", systems=SYSTEMS, metrics=["token_f1"], base_dir=tmp_path
    )
    return dict(config.system_configs())[system]


def test_the_record_of_a_systems_run_names_its_system(tmp_path: Path) -> None:
    record = system_config(tmp_path, "llama").to_record()

    assert record["system"] == "llama"
    assert record["name"] == "mtrag/llama"


def test_a_record_without_systems_names_none(tmp_path: Path) -> None:
    assert "system" not in EvalConfig(metrics=["token_f1"], base_dir=tmp_path).to_record()


def test_a_resumed_config_evaluates_the_recorded_system(tmp_path: Path) -> None:
    run = stored(system_config(tmp_path, "llama"))
    given = EvalConfig(metrics=["token_f1"], base_dir=tmp_path, store=str(tmp_path / "r.db"))

    resumed = resumed_config(run, given)

    assert resumed.system == "llama"
    assert resumed.systems == SYSTEMS
    assert resumed.name == "mtrag/llama"


def test_an_older_record_gives_its_system_by_its_name(tmp_path: Path) -> None:
    config = system_config(tmp_path, "gpt4o")
    record = config.to_record()
    del record["system"]
    run = stored(config)
    run.config = record

    assert stored_system(run, EvalConfig.model_validate(record)) == "gpt4o"


def test_a_record_that_names_no_system_of_its_systems_is_refused(tmp_path: Path) -> None:
    config = system_config(tmp_path, "gpt4o").model_copy(update={"name": "renamed"})
    record = config.to_record()
    del record["system"]
    run = stored(config)
    run.config = record

    with pytest.raises(ConfigError, match=r"run r1 .* does not say which one it evaluated"):
        stored_system(run, EvalConfig.model_validate(record))
