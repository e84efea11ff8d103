import numpy as np
import pytest

from ragjudge.analysis._calibrated import calibrated_estimate, labels_of
from ragjudge.schema import ScoreMeaning
from ragjudge.store import Label


def _label(i: int, value: bool, drawn: str = "random", who: str = "a") -> Label:
    return Label(
        run_id="r",
        request_id=str(i),
        metric="ok",
        annotator=who,
        kind="yesno",
        value=value,
        drawn=drawn,
    )  # type: ignore[arg-type]


BINARY = ScoreMeaning(binary=True)


def test_a_judge_that_accepts_too_much_is_corrected_by_random_labels() -> None:
    rng = np.random.default_rng(0)
    truth = rng.random(400) < 0.6
    judged = {str(i): 1.0 for i in range(400)}  # the judge accepts everything
    labels = [_label(i, bool(truth[i])) for i in range(0, 400, 4)]
    found = calibrated_estimate(judged, labels, "ok", BINARY)
    assert found is not None and found.target == "rate" and found.used == 100
    assert found.estimate.judge.value == 1.0
    assert found.estimate.ppi.value == pytest.approx(float(np.mean(truth[::4])))
    assert found.best.ci is not None and found.best.ci.low < 0.7 < 1.0


def test_targeted_labels_are_counted_and_left_out() -> None:
    judged = {str(i): float(i % 2) for i in range(20)}
    labels = [_label(i, i % 3 == 0) for i in range(10)] + [
        _label(i, False, "targeted") for i in range(10, 14)
    ]
    found = calibrated_estimate(judged, labels, "ok", BINARY)
    assert found is not None and found.used == 10 and found.targeted == 4


def test_labels_of_the_metric_without_its_judge_apply_to_each_judge() -> None:
    meaning = ScoreMeaning(binary=True, judge="big", metric="ok")
    assert len(labels_of([_label(1, True)], "ok@big", meaning)) == 1
    assert labels_of([_label(1, True)], "other", None) == []


def test_several_annotators_are_averaged_and_scale_labels_estimate_a_mean() -> None:
    judged = {str(i): 0.2 * (i % 5) for i in range(50)}
    labels = [
        Label(
            run_id="r",
            request_id=str(i),
            metric="q",
            annotator=who,
            kind="scale",
            value=float(1 + i % 5 + bump),
        )
        for i in range(0, 50, 2)
        for who, bump in (("a", 0), ("b", 1))
    ]
    found = calibrated_estimate(judged, labels, "q", ScoreMeaning())
    assert found is not None and found.target == "mean" and found.annotators == 2
    assert found.estimate.human.value == np.mean([1.5 + i % 5 for i in range(0, 50, 2)])
