from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest

from ragjudge.meta._queue import (
    QueueItem,
    labelling_queue,
    labels_to_promote,
    promote_random_prefix,
    random_order,
    random_prefix,
)
from ragjudge.schema import Sample, Score, ScoreMeaning
from ragjudge.store import Label, Store
from ragjudge.store._labels import LabelDrawn


def _store(tmp_path: Path) -> tuple[Store, str]:
    store = Store(tmp_path / "runs.db")
    samples = [Sample(request_id=f"s{i}", request=f"q{i}") for i in range(20)]
    # a fixed run id: the shuffle depends on it, and the first test reads which samples it took
    run_id = store.create_run(
        name=None, config={}, versions={}, samples=samples, trials=1, run_id="queued-run"
    )
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


def _run(
    tmp_path: Path, rows: Mapping[str, Mapping[str, Sequence[float | None]]], **meta: str
) -> Store:
    """A store with one run "r": per sample, per score, its trial values (None: failed)."""
    store = Store(tmp_path / "runs.db")
    samples = [
        Sample(request_id=i, request=i, metadata={"topic": meta[i]} if i in meta else {})
        for i in rows
    ]
    meanings = {
        "faith@a": ScoreMeaning(metric="faith", judge="a", threshold=0.5),
        "faith@b": ScoreMeaning(metric="faith", judge="b", threshold=0.5),
        "faith@both": ScoreMeaning(metric="faith", ensemble=("a", "b"), threshold=0.5),
    }
    store.create_run(
        name=None, config={}, versions={}, samples=samples, trials=2, run_id="r", meanings=meanings
    )
    for request_id, scores in rows.items():
        for trial in range(2):
            found = []
            for name, values in scores.items():
                value = values[min(trial, len(values) - 1)]
                found.append(
                    Score(metric=name, value=None, error="judge failed")
                    if value is None
                    else Score(metric=name, value=value)
                )
            store.save_scores("r", request_id, trial, found)
    return store


A = ScoreMeaning(metric="faith", judge="a", threshold=0.5)


def _targeted(store: Store, **options: Any) -> list[QueueItem]:
    queue = labelling_queue(store, "r", "faith@a", A, random_share=0.0, **options)
    assert {item.drawn for item in queue} == {"targeted"}
    return queue


def test_samples_where_the_judges_disagree_come_first(tmp_path: Path) -> None:
    rows = {
        "agree": {"faith@a": [0.9], "faith@b": [0.9], "faith@both": [0.0]},
        "split": {"faith@a": [1.0], "faith@b": [0.0], "faith@both": [1.0]},
        "low": {"faith@a": [0.1], "faith@b": [0.1], "faith@both": [0.1]},
    }
    queue = _targeted(_run(tmp_path, rows))
    assert queue[0].request_id == "split"
    assert queue[0].reasons[0] == "judges disagree"
    assert "judges disagree" not in queue[1].reasons  # the ensemble's own value left out


def test_samples_whose_trials_disagree_come_before_steady_ones(tmp_path: Path) -> None:
    rows = {
        "steady": {"faith@a": [0.9, 0.9]},
        "wavering": {"faith@a": [1.0, 0.8]},
        "split": {"faith@a": [1.0, 0.0]},
    }
    queue = _targeted(_run(tmp_path, rows))
    assert [item.request_id for item in queue] == ["split", "wavering", "steady"]
    assert "trials disagree" in queue[0].reasons


def test_samples_without_a_verdict_come_first_then_the_closest_to_the_line(
    tmp_path: Path,
) -> None:
    rows: dict[str, dict[str, list[float | None]]] = {
        "far": {"faith@a": [0.0]},
        "near": {"faith@a": [0.55]},
        "failed": {"faith@a": [None]},
        "middle": {"faith@a": [0.8]},
    }
    queue = _targeted(_run(tmp_path, rows))
    assert [item.request_id for item in queue] == ["failed", "near", "middle", "far"]
    assert queue[0].reasons == ("no verdict",)
    assert queue[1].reasons == ("verdict near the pass line",)


def test_strata_take_in_turn_from_the_subset_with_fewest_labels(tmp_path: Path) -> None:
    values = {"x1": 0.5, "x2": 0.52, "x3": 0.54, "y1": 0.9, "y2": 0.95}
    rows = {i: {"faith@a": [v]} for i, v in values.items()}
    store = _run(tmp_path, rows, x1="x", x2="x", x3="x", y1="y")  # y2 has no topic
    store.save_label(
        Label(run_id="r", request_id="x1", metric="faith", annotator="p", kind="yesno", value=True)
    )
    queue = _targeted(store, strata="metadata.topic", done={"x1"})
    assert [item.request_id for item in queue] == ["y1", "y2", "x2", "x3"]
    assert queue[0].reasons[-1] == "few labels in topic=y"
    assert queue[1].reasons[-1] == "few labels in no topic"
    with pytest.raises(ValueError, match=r"metadata\.KEY"):
        labelling_queue(store, "r", "faith@a", A, strata="topic")


def test_targeted_labels_in_the_random_prefix_are_promoted_to_random(tmp_path: Path) -> None:
    rows = {f"s{i}": {"faith@a": [i / 9]} for i in range(10)}
    store = _run(tmp_path, rows)
    order = random_order([f"s{i}" for i in range(10)], "r", "faith@a", 5)
    first, second, third = order[:3]
    assert random_prefix(order, {first, third}) == [first]

    def label(request_id: str, drawn: LabelDrawn, annotator: str = "p") -> Label:
        return Label(
            run_id="r",
            request_id=request_id,
            metric="faith",
            annotator=annotator,
            kind="yesno",
            value=True,
            drawn=drawn,
        )

    store.save_labels([label(first, "targeted"), label(third, "targeted")])
    assert promote_random_prefix(store, "r", "faith@a", A, seed=5) == 1
    drawn = {lab.request_id: lab.drawn for lab in store.labels("r")}
    assert drawn == {first: "random", third: "targeted"}
    # another person labels the second sample: the prefix now reaches the third
    store.save_label(label(second, "random", annotator="q"))
    assert [lab.request_id for lab in labels_to_promote(store, "r", "faith@a", A, seed=5)] == [
        third
    ]
    assert promote_random_prefix(store, "r", "faith@a", A, seed=5) == 1
    assert {lab.drawn for lab in store.labels("r")} == {"random"}
    # the random stream passes over what is labelled and goes on from the prefix's end
    queue = labelling_queue(store, "r", "faith@a", A, order="random", seed=5, done=order[:3])
    assert [item.request_id for item in queue] == order[3:]
