"""The labels stored with a run (``ragjudge meta --labels``) as the human labels of a
meta-evaluation: each labelled score becomes one human label, named
``labels:SCORE`` (``labels`` for labels of the sample as a whole), whose annotators
are the people who labelled it. A sample's annotations sit in a metadata column of the
score frame, as a list of its people's values, so every table of ``meta`` reads them
the way it reads labels kept in the data file and combines the people the same way.

A yes/no label is a boolean, a scale label its number, a rubric label the share of its
items met, a choice its text (``--positive`` names the choice that counts as yes);
comment-only labels carry no value and are left out.
"""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from ragjudge.errors import AnalysisError
from ragjudge.meta._labels import HumanLabel
from ragjudge.store._labels import Label

__all__ = ["stored_label_name", "with_stored_labels"]


def stored_label_name(metric: str) -> str:
    """The name of the human label made of the stored labels of score ``metric``."""
    return f"labels:{metric}" if metric else "labels"


def with_stored_labels(
    frame: pd.DataFrame, labels: Sequence[Label], run_id: str
) -> tuple[pd.DataFrame, list[HumanLabel]]:
    """``frame`` with one metadata column per labelled score holding each sample's
    labels, and the human labels that name those columns."""
    valued = [label for label in labels if label.kind != "comment"]
    if not valued:
        raise AnalysisError(
            f"run {run_id} has no stored labels; bring them in with `ragjudge labels import`"
        )
    found = frame.copy()
    humans = []
    for metric in sorted({label.metric for label in valued}):
        name = stored_label_name(metric)
        per_sample = _annotations([x for x in valued if x.metric == metric])
        values = [per_sample.get(str(s)) for s in found["sample_id"]]
        found[f"metadata.{name}"] = pd.Series(values, index=found.index, dtype=object)
        humans.append(HumanLabel(name=name, keys=(name,)))
    return found, humans


def _annotations(labels: Sequence[Label]) -> dict[str, list[bool | float | str]]:
    """Each sample's values, one per person (in the order of the people's names)."""
    by_sample: dict[str, list[tuple[str, bool | float | str]]] = {}
    for label in labels:
        by_sample.setdefault(label.request_id, []).append((label.annotator, _value(label)))
    return {s: [v for _, v in sorted(pairs)] for s, pairs in by_sample.items()}


def _value(label: Label) -> bool | float | str:
    if label.kind == "yesno":
        return bool(label.value)
    if label.kind == "choice":
        return str(label.value)
    number = label.number()
    if number is None:  # the label's own checks keep this from happening
        raise AnalysisError(f"label of {label.request_id!r} by {label.annotator} has no value")
    return number
