from pathlib import Path

from ragjudge.meta._queue import labelling_queue
from ragjudge.schema import Sample, Score, ScoreMeaning
from ragjudge.store import Store


def _store(tmp_path: Path) -> tuple[Store, str]:
    store = Store(tmp_path / "runs.db")
    samples = [Sample(request_id=f"s{i}", request=f"q{i}") for i in range(20)]
    run_id = store.create_run(name=None, config={}, versions={}, samples=samples, trials=1)
    for i in range(20):
        store.save_scores(run_id, f"s{i}", 0, [Score(metric="m", value=i / 19)])
    return store, run_id


def test_half_the_queue_is_a_seeded_random_draw_and_half_near_the_pass_line(tmp_path: Path) -> None:
    store, run_id = _store(tmp_path)
    meaning = ScoreMeaning(threshold=0.5)
    queue = labelling_queue(store, run_id, "m", meaning, random_share=0.5, seed=3)
    assert sorted(item.request_id for item in queue) == sorted(f"s{i}" for i in range(20))
    assert [item.drawn for item in queue[:4]] == ["random", "targeted", "random", "targeted"]
    targeted = [item.request_id for item in queue if item.drawn == "targeted"]
    assert set(targeted[:2]) == {"s9", "s10"}  # 9/19 and 10/19 lie next to 0.5
    again = labelling_queue(store, run_id, "m", meaning, random_share=0.5, seed=3)
    assert again == queue
    other = labelling_queue(store, run_id, "m", meaning, random_share=0.5, seed=4)
    assert [i.request_id for i in other if i.drawn == "random"] != [
        i.request_id for i in queue if i.drawn == "random"
    ]


def test_done_samples_leave_the_queue_and_orders_are_kept(tmp_path: Path) -> None:
    store, run_id = _store(tmp_path)
    queue = labelling_queue(store, run_id, "m", None, order="random", done={"s1", "s2"})
    assert len(queue) == 18 and all(item.drawn == "random" for item in queue)
    stored = labelling_queue(store, run_id, "m", None, order="stored")
    assert [item.position for item in stored] == list(range(20))
    assert {item.drawn for item in stored} == {"targeted"}
