from pathlib import Path

import pytest
from pydantic import ValidationError

from ragjudge.schema import Sample, Score
from ragjudge.store import Label, Store


def _run(store: Store) -> str:
    samples = [Sample(request_id=i, request=f"q{i}") for i in ("a", "b", "c")]
    return store.create_run(name=None, config={}, versions={}, samples=samples, trials=2)


def test_labels_round_trip_and_a_second_label_replaces_the_first(tmp_path: Path) -> None:
    path = tmp_path / "runs.db"
    with Store(path) as store:
        run_id = _run(store)
        store.save_label(
            Label(
                run_id=run_id, request_id="a", metric="m", annotator="ann", kind="yesno", value=True
            )
        )
        store.save_label(
            Label(
                run_id=run_id,
                request_id="a",
                metric="m",
                annotator="bo",
                kind="yesno",
                value=False,
                comment="wrong year",
            )
        )
        store.save_label(
            Label(
                run_id=run_id,
                request_id="a",
                metric="m",
                annotator="ann",
                kind="yesno",
                value=False,
            )
        )
        store.save_label(
            Label(
                run_id=run_id,
                request_id="b",
                metric="r",
                annotator="ann",
                kind="rubric",
                value={"x": True, "y": False},
                drawn="targeted",
            )
        )
    with Store(path) as store:
        labels = store.labels(run_id)
        assert len(labels) == 3
        by = {(label.request_id, label.annotator): label for label in labels}
        assert by["a", "ann"].value is False and by["a", "bo"].comment == "wrong year"
        assert by["b", "ann"].number() == 0.5 and by["b", "ann"].drawn == "targeted"
        assert [label.annotator for label in store.labels(run_id, annotator="bo")] == ["bo"]
        assert store.label_counts(run_id) == {"m": 1, "r": 1}
        assert store.delete_label(run_id, "a", "m", "bo") is True
        assert store.delete_label(run_id, "a", "m", "bo") is False


def test_scale_labels_read_back_as_numbers(tmp_path: Path) -> None:
    with Store(tmp_path / "runs.db") as store:
        run_id = _run(store)
        store.save_label(
            Label(run_id=run_id, request_id="c", metric="m", annotator="a", kind="scale", value=4)
        )
        (label,) = store.labels(run_id)
        assert label.value == 4.0 and label.number() == 4.0


@pytest.mark.parametrize(
    ("kind", "value", "comment"),
    [
        ("yesno", 1, None),
        ("scale", float("nan"), None),
        ("scale", True, None),
        ("choice", "", None),
        ("rubric", {}, None),
        ("rubric", {"a": "yes"}, None),
        ("comment", None, "  "),
        ("comment", True, "x"),
    ],
)
def test_a_value_that_does_not_fit_its_kind_is_refused(
    kind: str, value: object, comment: str | None
) -> None:
    with pytest.raises(ValidationError):
        Label(run_id="r", request_id="a", annotator="a", kind=kind, value=value, comment=comment)  # type: ignore[arg-type]


def test_sample_means_average_trials_and_leave_out_failures(tmp_path: Path) -> None:
    with Store(tmp_path / "runs.db") as store:
        run_id = _run(store)
        store.save_scores(run_id, "a", 0, [Score(metric="m", value=1.0)])
        store.save_scores(run_id, "a", 1, [Score(metric="m", value=0.0)])
        store.save_scores(run_id, "b", 0, [Score.failed("m", "judge failed")])
        store.save_scores(run_id, "c", 0, [Score(metric="other", value=1.0)])
        assert store.sample_means(run_id, "m") == {"a": 0.5}


def test_sample_ranges_give_each_samples_lowest_and_highest_trial(tmp_path: Path) -> None:
    with Store(tmp_path / "runs.db") as store:
        run_id = _run(store)
        store.save_scores(run_id, "a", 0, [Score(metric="m", value=0.25)])
        store.save_scores(run_id, "a", 1, [Score(metric="m", value=0.75)])
        store.save_scores(run_id, "b", 0, [Score(metric="m", value=0.5)])
        store.save_scores(run_id, "b", 1, [Score.failed("m", "judge failed")])
        assert store.sample_ranges(run_id, "m") == {"a": (0.25, 0.75), "b": (0.5, 0.5)}
