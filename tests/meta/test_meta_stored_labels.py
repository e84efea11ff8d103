from __future__ import annotations

from pathlib import Path

from ragjudge.meta import meta_for_run
from ragjudge.schema import Sample, Score, ScoreMeaning
from ragjudge.store import Label, Store

ANN = [True, True, False, True, False, False, True, False, True, True, False, True]
BOB = [True, False, False, True, False, True, True, False, True, True, True, True]


def _run(tmp_path: Path) -> tuple[Store, str]:
    store = Store(tmp_path / "runs.db")
    samples = [
        Sample(request_id=f"s{i:02d}", request="q", metadata={"human": [a, b]})
        for i, (a, b) in enumerate(zip(ANN, BOB, strict=True))
    ]
    run_id = store.create_run(
        name=None,
        config={},
        versions={},
        samples=samples,
        trials=1,
        meanings={"correct": ScoreMeaning(binary=True)},
    )
    for i, sample in enumerate(samples):
        score = Score(metric="correct", value=float(i % 3 != 0))
        store.save_scores(run_id, sample.request_id, 0, [score])
    store.save_labels(
        Label(
            run_id=run_id,
            request_id=f"s{i:02d}",
            metric="correct",
            annotator=who,
            kind="yesno",
            value=v,
        )
        for i, pair in enumerate(zip(ANN, BOB, strict=True))
        for who, v in zip(("ann", "bob"), pair, strict=True)
    )
    return store, run_id


def test_stored_labels_give_the_figures_of_the_same_labels_in_the_data(tmp_path: Path) -> None:
    store, run_id = _run(tmp_path)
    options = {"seed": 1, "n_resamples": 200, "ppi": True}
    from_data = meta_for_run(store, run_id, ["human"], **options).to_dict()
    stored = meta_for_run(store, run_id, [], stored_labels=True, **options).to_dict()
    (data_block,) = from_data["blocks"]
    (stored_block,) = stored["blocks"]
    assert stored_block.pop("human") == "labels:correct"
    data_block.pop("human")
    assert stored_block == data_block
    assert stored_block["n"] == 12 and stored_block["annotators"] is not None


def test_stored_labels_join_the_data_labels(tmp_path: Path) -> None:
    store, run_id = _run(tmp_path)
    both = meta_for_run(store, run_id, ["human"], stored_labels=True, n_resamples=50)
    assert [block.human for block in both.blocks] == ["human", "labels:correct"]
