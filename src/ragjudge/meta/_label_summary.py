"""What labels a run carries, score by score: how many samples are labelled, by whom,
and how many were a random draw (usable by an unbiased estimate; imported labels count
as random) or put first because they looked informative (targeted)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

from ragjudge.store._labels import Label
from ragjudge.store._store import Store

__all__ = ["LabelSummary", "label_summaries", "summarise_labels"]


@dataclass(frozen=True)
class LabelSummary:
    """The labels of one score (``metric`` ``""``: the sample as a whole)."""

    metric: str
    samples: int
    labels: int
    random: int
    targeted: int
    comments: int
    annotators: dict[str, int]
    """Each annotator and how many labels they gave."""

    def to_dict(self) -> dict[str, Any]:
        """The summary as plain JSON values."""
        return asdict(self)


def label_summaries(store: Store, run_id: str, *, metric: str | None = None) -> list[LabelSummary]:
    """The label summary of every labelled score of run ``run_id`` (or of ``metric``)."""
    run = store.run(run_id)
    return summarise_labels(store.labels(run.run_id, metric=metric))


def summarise_labels(labels: Sequence[Label]) -> list[LabelSummary]:
    """One summary per score of ``labels``, by score name."""
    return [
        _summary(name, [x for x in labels if x.metric == name])
        for name in sorted({x.metric for x in labels})
    ]


def _summary(metric: str, labels: Sequence[Label]) -> LabelSummary:
    people = Counter(x.annotator for x in labels)
    return LabelSummary(
        metric=metric,
        samples=len({x.request_id for x in labels}),
        labels=len(labels),
        random=sum(1 for x in labels if x.drawn != "targeted"),
        targeted=sum(1 for x in labels if x.drawn == "targeted"),
        comments=sum(1 for x in labels if x.comment),
        annotators=dict(sorted(people.items())),
    )
