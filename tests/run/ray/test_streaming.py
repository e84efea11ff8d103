"""A folder of Parquet files on Ray: streamed into the store page by page, read back a
page (one batch) at a time, the same stored values as a local run of the same rows,
and a resumed run that reads only each page's stored results."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from ray_cluster import local_cluster, ray_or_skip, write_killer

import ragjudge as rj
from parquet_files import parquet_folder
from ragjudge.config import load_config
from ragjudge.run._runner import run_evaluation
from ragjudge.schema import Sample
from ragjudge.store._store import Store
from served import counts

ray = ray_or_skip()
from ragjudge.config._ray import ClusterError  # noqa: E402

ROWS = [
    {"request_id": f"q{i:03d}", "request": f"question {i}", "response": f"answer {i} ok",
     "expected_response": f"answer {i}", "metadata": {"lang": "ja" if i % 3 else "en"}}
    for i in range(45)
]  # fmt: skip
METRICS = ["exact_match", "token_f1", "rouge_l"]


@pytest.fixture(scope="module")
def cluster() -> Iterator[str]:
    yield from local_cluster()


def stored(store: Path, run_id: str) -> list[tuple[str, int, str, float | None, str | None]]:
    with Store(store) as s:
        return sorted((rid, t, sc.metric, sc.value, sc.error) for rid, t, sc in s.scores(run_id))


class PageSpy:
    """Records the pages the driver reads; refuses reading a run's samples whole."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.pages: list[int] = []
        page = Store.sample_page

        def sample_page(store: Store, run_id: str, start: int, size: int) -> list[Sample]:
            found = page(store, run_id, start, size)
            self.pages.append(len(found))
            return found

        def whole(*args: object) -> None:
            raise AssertionError("the run's samples or results were read whole")

        monkeypatch.setattr(Store, "sample_page", sample_page)
        for name in ("samples", "finished_scores", "outputs"):
            monkeypatch.setattr(Store, name, whole)


def test_a_parquet_folder_on_ray_stores_what_a_local_run_stores_reading_pages(
    cluster: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = parquet_folder(tmp_path / "set", ROWS)
    store = tmp_path / "runs.db"
    local = rj.evaluate(data=str(folder), metrics=METRICS, store=store, progress=False)
    spy = PageSpy(monkeypatch)
    on_ray = rj.evaluate(
        data=str(folder),
        metrics=METRICS,
        store=store,
        progress=False,
        executor="ray",
        ray={"batch_size": 8, "workers": 2},
    )
    monkeypatch.undo()
    assert on_ray.status == "completed" and on_ray.n_samples == 45
    assert spy.pages == [8, 8, 8, 8, 8, 5]  # one page per batch, never the whole set
    assert len(stored(store, local.run_id)) == 45 * 3
    assert stored(store, on_ray.run_id) == stored(store, local.run_id)
    with Store(store) as s:
        assert s.samples(on_ray.run_id) == s.samples(local.run_id)


def test_limit_sample_and_columns_stream_as_they_load(cluster: str, tmp_path: Path) -> None:
    renamed = [
        {**{k: v for k, v in r.items() if k != "request"}, "ask": r["request"]} for r in ROWS
    ]
    folder = parquet_folder(tmp_path / "set", renamed)
    store = tmp_path / "runs.db"
    common: dict[str, Any] = {
        "data": str(folder), "metrics": METRICS, "store": store, "progress": False,
        "columns": {"request": "ask"},
    }  # fmt: skip
    for options in ({"limit": 11}, {"sample": 9, "by": "lang"}):
        local = rj.evaluate(**common, **options)
        on_ray = rj.evaluate(**common, **options, executor="ray", ray={"batch_size": 4})
        with Store(store) as s:
            assert s.samples(on_ray.run_id) == s.samples(local.run_id)
            assert s.run(on_ray.run_id).n_samples == local.n_samples
        assert stored(store, on_ray.run_id) == stored(store, local.run_id)


async def test_an_interrupted_parquet_run_resumes_page_by_page_without_loss_or_duplicate(
    cluster: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_killer(tmp_path, 17)
    keep = ("request_id", "request", "expected_response")
    parquet_folder(tmp_path / "set", [{k: r[k] for k in keep} for r in ROWS])
    config = tmp_path / "eval.yaml"
    config.write_text(
        "data: set\ntarget: killer:answer\nmetrics: [rouge_l, token_f1]\n"
        "executor: ray\nray: {batch_size: 6, workers: 2, max_retries: 0}\n"
    )
    with pytest.raises(ClusterError, match="beyond 0 retries"):
        await run_evaluation(load_config(config), progress=False)
    store = tmp_path / ".ragjudge" / "runs.db"
    with Store(store) as s:
        (run,) = s.runs()
    assert run.status == "failed" and run.n_samples == 45
    before = counts(store)[0]
    assert 0 < before < 45
    spy = PageSpy(monkeypatch)
    resumed = await run_evaluation(load_config(config), resume=run.run_id, progress=False)
    monkeypatch.undo()
    assert resumed.status == "completed"
    assert spy.pages == [6] * 7 + [3]
    assert counts(store) == (45, 90, 90)
