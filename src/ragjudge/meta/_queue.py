"""The labelling queue: the order in which a person is shown a run's samples to label
one score, so that few labels tell the most.

Two streams are interleaved. The **random** stream is a seeded shuffle of every
sample: its labels are a random draw, the only ones an unbiased (prediction-powered)
estimate may use. The **targeted** stream puts first the samples whose verdict is
least certain; its labels measure and improve the judge where it is weakest, but they
are no random draw. ``random_share`` of the queue's slots come from the random stream
(a share of 1 is a purely random queue); each item says which stream it came from.
"""

from __future__ import annotations

import math
import random
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from typing import Literal

from ragjudge.schema import ScoreMeaning
from ragjudge.store import Store

__all__ = ["QueueItem", "QueueOrder", "labelling_queue"]

QueueOrder = Literal["informative", "random", "stored"]
"""``informative``: the targeted and random streams interleaved; ``random``: the random
stream alone; ``stored``: the run's own order (every item counts as targeted, since the
first rows of a file are no random draw)."""


@dataclass(frozen=True)
class QueueItem:
    """One sample of the queue: its request id and position in the run, the stream it
    came from, and why it came where it did."""

    request_id: str
    position: int
    drawn: Literal["random", "targeted"]
    reasons: tuple[str, ...]


def _is_random_slot(slot: int, share: float) -> bool:
    """Whether queue slot ``slot`` (from 0) is the random stream's: ``share`` of the
    slots, spread evenly, the first slot random whenever ``share`` > 0."""
    return math.ceil((slot + 1) * share) > math.ceil(slot * share)


def _closeness(value: float, meaning: ScoreMeaning | None) -> float:
    """How far ``value`` lies from the score's pass line, as a share of its range
    (0: on it); a score without a pass line counts from the middle of its range."""
    low = 0.0 if meaning is None or meaning.low is None else meaning.low
    high = 1.0 if meaning is None or meaning.high is None else meaning.high
    line = meaning.threshold if meaning is not None and meaning.threshold is not None else None
    if line is None:
        line = (low + high) / 2
    span = (high - low) or 1.0
    return abs(value - line) / span


def _targeted(
    ids: list[str], judged: Mapping[str, float], meaning: ScoreMeaning | None
) -> list[tuple[str, tuple[str, ...]]]:
    """The samples, least certain verdict first: failed or unscored, then by closeness
    of the judge's value to the pass line."""

    def key(request_id: str) -> tuple[int, float]:
        value = judged.get(request_id)
        return (0, 0.0) if value is None else (1, _closeness(value, meaning))

    ranked = sorted(ids, key=key)
    return [
        (i, ("no verdict",) if judged.get(i) is None else ("verdict near the pass line",))
        for i in ranked
    ]


def labelling_queue(
    store: Store,
    run_id: str,
    score: str,
    meaning: ScoreMeaning | None,
    *,
    order: QueueOrder = "informative",
    random_share: float = 0.5,
    seed: int = 0,
    done: Collection[str] = (),
) -> list[QueueItem]:
    """The queue of run ``run_id``'s samples for labelling ``score``, without the
    samples in ``done`` (those the person already labelled)."""
    if not 0.0 <= random_share <= 1.0:
        raise ValueError(f"random_share must be between 0 and 1, got {random_share}")
    ids = [i for i in store.request_ids(run_id) if i is not None]
    position = {
        request_id: p for p, request_id in enumerate(store.request_ids(run_id)) if request_id
    }
    if order == "stored":
        return [
            QueueItem(i, position[i], "targeted", ("stored order",)) for i in ids if i not in done
        ]
    shuffled = list(ids)
    random.Random(f"{seed}:{run_id}:{score}").shuffle(shuffled)
    if order == "random" or random_share == 1.0:
        return [
            QueueItem(i, position[i], "random", ("random draw",)) for i in shuffled if i not in done
        ]
    targeted = _targeted(ids, store.sample_means(run_id, score), meaning)
    return _interleaved(shuffled, targeted, random_share, position, set(done))


def _interleaved(
    shuffled: list[str],
    targeted: list[tuple[str, tuple[str, ...]]],
    share: float,
    position: Mapping[str, int],
    done: set[str],
) -> list[QueueItem]:
    queue: list[QueueItem] = []
    seen = set(done)
    random_next, targeted_next = iter(shuffled), iter(targeted)
    for slot in range(len(shuffled)):
        if _is_random_slot(slot, share):
            item = next((i for i in random_next if i not in seen), None)
            if item is not None:
                seen.add(item)
                queue.append(QueueItem(item, position[item], "random", ("random draw",)))
                continue
        found = next(((i, why) for i, why in targeted_next if i not in seen), None)
        if found is None:
            continue
        seen.add(found[0])
        queue.append(QueueItem(found[0], position[found[0]], "targeted", found[1]))
    return queue
