"""The progress panel of the labelling page: how many labels there are (drawn at random
or put first by the queue), how well the judge agrees with them so far, and how wide
the interval of the score's estimate calibrated to them is, with a hint in plain words
about when to stop.

Every person's labels of the score count (several people's labels of one sample are
averaged), so the panel of each session shows the same figures.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from ragjudge.analysis._calibrated import calibrated_estimate, labels_of
from ragjudge.meta._annotators import people_agreement
from ragjudge.report._labelling import LabelTask
from ragjudge.stats import Interval
from ragjudge.stats._agreement import Estimate, binary_agreement, ordinal_agreement
from ragjudge.store._labels import Label
from ragjudge.store._store import Store

__all__ = ["label_progress"]

_RESAMPLES = 500
"""Bootstrap resamples of the agreement intervals: enough for a live panel, quick
enough to answer after every label."""
_NARROW = 0.10
"""An interval width (on a 0–1 scale) the hint calls narrow enough for most decisions."""


def _interval(ci: Interval | None) -> list[float] | None:
    return None if ci is None else [ci.low, ci.high]


def _figure(estimate: Estimate) -> dict[str, Any]:
    return {"value": estimate.value, "ci": _interval(estimate.ci)}


def _paired(labels: list[Label], judged: dict[str, float]) -> tuple[list[float], list[float]]:
    """The judge's value and the people's mean label of every labelled, judged sample."""
    numbers: dict[str, list[float]] = defaultdict(list)
    for label in labels:
        number = label.number()
        if number is not None and label.request_id in judged:
            numbers[label.request_id].append(number)
    ids = sorted(numbers)
    return [judged[i] for i in ids], [sum(numbers[i]) / len(numbers[i]) for i in ids]


def _agreement(task: LabelTask, labels: list[Label], judged: dict[str, float]) -> dict[str, Any]:
    """Accuracy and Cohen's kappa of the judge's pass against yes/no labels, or the
    weighted kappa and exact agreement against scale labels on the score's own scale."""
    scores, humans = _paired(labels, judged)
    meaning = task.meaning
    if len(scores) < 2:
        return {"kind": "none", "n": len(scores)}
    if task.kind == "yesno" and meaning is not None and meaning.has_pass:
        passes = [1.0 if meaning.passed(s) else 0.0 for s in scores]
        agreed = [round(h) for h in humans]
        found = binary_agreement(passes, agreed, threshold=0.5, n_resamples=_RESAMPLES)
        return {
            "kind": "yesno",
            "n": found.n,
            "accuracy": _figure(found.accuracy),
            "kappa": _figure(found.kappa),
        }
    if task.kind == "scale" and meaning is not None and (meaning.low, meaning.high) == task.scale:
        found_o = ordinal_agreement(
            [float(round(s)) for s in scores],
            [float(round(h)) for h in humans],
            n_resamples=_RESAMPLES,
        )
        return {
            "kind": "scale",
            "n": found_o.n,
            "kappa": _figure(found_o.weighted_kappa),
            "exact": _figure(found_o.exact),
        }
    return {"kind": "none", "n": len(scores)}


def _calibrated(task: LabelTask, labels: list[Label], judged: dict[str, float]) -> dict[str, Any]:
    found = calibrated_estimate(judged, labels, task.metric, task.meaning)
    if found is None:
        return {"value": None, "ci": None, "width": None, "worth": None, "used": 0}
    best = found.best
    return {
        "target": found.target,
        "value": best.value,
        "ci": _interval(best.ci),
        "width": best.width,
        "human_width": found.estimate.human.width,
        "worth": found.worth,
        "used": found.used,
    }


def _hint(task: LabelTask, random_count: int, calibrated: dict[str, Any]) -> str:
    """When to stop, in plain words."""
    width = calibrated.get("width")
    if not random_count:
        return "No randomly drawn label yet: the calibrated estimate needs some."
    if width is None:
        return "A few more randomly drawn labels are needed before the estimate has an interval."
    low, high = (0.0, 1.0)
    if calibrated.get("target") == "mean" and task.kind == "scale":
        low, high = (float(task.scale[0]), float(task.scale[1]))
    share = width / ((high - low) or 1.0)
    if share <= _NARROW:
        return (
            f"The interval is {width:.3g} wide ({share:.0%} of the scale): narrow enough for most "
            "decisions. Stop unless you need it narrower."
        )
    more = random_count * ((share / _NARROW) ** 2 - 1)
    return (
        f"The interval is {width:.3g} wide ({share:.0%} of the scale). Its width shrinks with the "
        f"square root of the random labels: about {more:.0f} more would bring it to "
        f"{_NARROW:.0%} of the scale."
    )


def label_progress(store: Store, task: LabelTask) -> dict[str, Any]:
    """The progress panel's figures, as the page shows them and the writes return them."""
    stored = store.labels(task.run_id)
    labels = labels_of(stored, task.metric, task.meaning)
    everyone = [label for label in stored if label.metric == task.metric]
    mine = [label for label in everyone if label.annotator == task.annotator]
    judged = store.sample_means(task.run_id, task.metric)
    random_count = len({x.request_id for x in labels if x.drawn != "targeted"})
    calibrated = _calibrated(task, labels, judged)
    return {
        "labels": len(everyone),
        "mine": len(mine),
        "samples": len({x.request_id for x in labels}),
        "random": random_count,
        "targeted": len({x.request_id for x in labels if x.drawn == "targeted"}),
        "annotators": len({x.annotator for x in everyone}),
        "agreement": _agreement(task, labels, judged),
        "people": people_agreement(everyone),
        "calibrated": calibrated,
        "hint": _hint(task, random_count, calibrated),
    }
