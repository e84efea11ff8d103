"""The ``judge_batches`` table: a run's batches and their calls survive the store being
closed and reopened, a call sent again points to its new batch, and runs do not see each
other's batches."""

from __future__ import annotations

from pathlib import Path

from ragjudge.store._store import Store


def test_a_runs_batches_are_found_after_the_store_is_reopened(tmp_path: Path) -> None:
    with Store(tmp_path / "runs.db") as store:
        store.record_batch("r1", "batch-a", ["c1", "c2"])
        store.record_batch("r1", "batch-b", ["c3"])
    with Store(tmp_path / "runs.db") as store:
        ledger = store.batch_ledger("r1")
        assert [ledger.submitted_batch(c) for c in ("c1", "c2", "c3", "c4")] == [
            "batch-a",
            "batch-a",
            "batch-b",
            None,
        ]
        assert store.run_batches("r1") == {"batch-a": 2, "batch-b": 1}


def test_a_call_sent_again_points_to_its_new_batch(tmp_path: Path) -> None:
    with Store(tmp_path / "runs.db") as store:
        ledger = store.batch_ledger("r1")
        ledger.record_batch("batch-a", ["c1", "c2"])
        ledger.record_batch("batch-b", ["c2"])
        assert ledger.submitted_batch("c2") == "batch-b"
        assert store.run_batches("r1") == {"batch-a": 1, "batch-b": 1}


def test_runs_do_not_see_each_others_batches(tmp_path: Path) -> None:
    with Store(tmp_path / "runs.db") as store:
        store.record_batch("r1", "batch-a", ["c1"])
        assert store.submitted_batch("r2", "c1") is None
        assert store.run_batches("r2") == {}
