"""Samples read back from the store are the samples that were stored: a resumed run
hands its target the request the evaluation set held, not the stored normalised form."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from ragjudge.schema import Sample
from ragjudge.store._store import Store

REQUESTS: list[Any] = [
    "What is a deadlock?",
    {"messages": [{"role": "user", "content": "Hi"}, {"role": "assistant", "content": "Hello"},
                  {"role": "user", "content": "What is a deadlock?"}]},
    {"query": "デッドロックとは何か？", "history": [{"role": "user", "content": "こんにちは"}]},
    {"ticket": 42, "text": "an arbitrary JSON request"},
]  # fmt: skip


@pytest.mark.parametrize("request_value", REQUESTS, ids=["text", "messages", "query", "dict"])
def test_a_stored_sample_reads_back_equal(tmp_path: Path, request_value: Any) -> None:
    sample = Sample(request_id="r1", request=request_value, expected_response="x")
    with Store(tmp_path / "runs.db") as store:
        store.create_run(
            run_id="run", name=None, config={}, versions={}, samples=[sample], trials=1
        )
        (back,) = store.samples("run")

    assert back.request.original == request_value
    assert back == sample


def test_runs_created_in_the_same_second_list_in_creation_order(tmp_path: Path) -> None:
    sample = Sample(request_id="r1", request="q", expected_response="x")
    with Store(tmp_path / "runs.db") as store:
        for run_id in ("run-z", "run-a", "run-m"):  # not in alphabetical order
            store.create_run(
                run_id=run_id, name=None, config={}, versions={}, samples=[sample], trials=1
            )
        listed = [run.run_id for run in store.runs()]

    assert listed == ["run-z", "run-a", "run-m"]


def test_metadata_texts_read_one_key_of_every_sample(tmp_path: Path) -> None:
    samples = [
        Sample(request_id="a", request="q", metadata={"topic": "tax", "n": 2}),
        Sample(request_id="b", request="q", metadata={"topic": ["x", "y"]}),
        Sample(request_id="c", request="q"),
    ]
    with Store(tmp_path / "runs.db") as store:
        store.create_run(run_id="run", name=None, config={}, versions={}, samples=samples, trials=1)
        assert store.metadata_texts("run", "topic") == {"a": "tax", "b": '["x","y"]', "c": None}
        assert store.metadata_texts("run", "n") == {"a": "2", "b": None, "c": None}
