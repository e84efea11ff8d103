"""The labelling queue: the order in which a person is shown a run's samples to label
one score, so that few labels tell the most.

Two streams are interleaved. The **random** stream is a seeded shuffle of every
sample: its labels are a random draw, the only ones an unbiased (prediction-powered)
estimate may use. The **targeted** stream puts first the samples whose label is most
informative (:mod:`ragjudge.meta._queue_signals`: no verdict, judges disagree, trials
disagree, verdict near the pass line), and with ``strata="metadata.KEY"`` takes in turn
from the subset of that key with the fewest labels so far; its labels measure and
improve the judge where it is weakest, but they are no random draw. ``random_share`` of
the queue's slots come from the random stream (a share of 1 is a purely random queue);
each item says which stream it came from.

**When a targeted label counts as random.** The random stream walks its shuffle in
order and passes over samples someone has already labelled. The labelled samples at
the start of the shuffle, up to the first one nobody has labelled (the *random
prefix*), are a random draw of the run whatever stream put them there: which samples
the shuffle puts first does not depend on the judge (only where the prefix ends
depends on where the targeted labels lie, a small effect the coverage simulation in
``benchmarks/labelling_coverage.py`` measures). So every label of a sample
in the random prefix counts as random, a ``targeted`` one included:
:func:`random_prefix` finds the prefix and :func:`promote_random_prefix` re-marks those
labels as ``random`` (call it after labels are saved, with the queue's seed). A targeted
label beyond the prefix stays targeted and out of the estimate.
"""

from __future__ import annotations

import math
import random
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass
from typing import Literal

from ragjudge.analysis._calibrated import labels_of
from ragjudge.meta._queue_signals import ranked_samples
from ragjudge.meta._queue_strata import TargetedStream, strata_key
from ragjudge.schema import ScoreMeaning
from ragjudge.store import Label, Store

__all__ = [
    "QueueItem",
    "QueueOrder",
    "labelling_queue",
    "labels_to_promote",
    "promote_random_prefix",
    "random_order",
    "random_prefix",
]

QueueOrder = Literal["informative", "random", "stored"]
"""``informative``: the targeted and random streams interleaved; ``random``: the random
stream alone; ``stored``: the run's own order (every item counts as targeted, since the
first rows of a file are no random draw)."""

RANDOM_DRAW = ("random draw",)


@dataclass(frozen=True)
class QueueItem:
    """One sample of the queue: its request id and position in the run, the stream it
    came from, and why it came where it did."""

    request_id: str
    position: int
    drawn: Literal["random", "targeted"]
    reasons: tuple[str, ...]


def random_order(ids: Sequence[str], run_id: str, score: str, seed: int) -> list[str]:
    """The random stream: the samples ``ids`` (all of the run's, in the run's order) in
    the seeded shuffle of ``score``'s queue."""
    shuffled = list(ids)
    random.Random(f"{seed}:{run_id}:{score}").shuffle(shuffled)
    return shuffled


def random_prefix(order: Iterable[str], labelled: Collection[str]) -> list[str]:
    """The samples at the start of the shuffle ``order`` up to the first one not in
    ``labelled``: those whose labels count as a random draw."""
    prefix = []
    for request_id in order:
        if request_id not in labelled:
            break
        prefix.append(request_id)
    return prefix


def _is_random_slot(slot: int, share: float) -> bool:
    """Whether queue slot ``slot`` (from 0) is the random stream's: ``share`` of the
    slots, spread evenly, the first slot random whenever ``share`` > 0."""
    return math.ceil((slot + 1) * share) > math.ceil(slot * share)


def _positions(store: Store, run_id: str) -> dict[str, int]:
    return {i: p for p, i in enumerate(store.request_ids(run_id)) if i is not None}


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
    strata: str | None = None,
) -> list[QueueItem]:
    """The queue of run ``run_id``'s samples for labelling ``score``, without the
    samples in ``done`` (those the person already labelled). ``strata``
    (``metadata.KEY``) spreads the targeted stream over the subsets of that key."""
    if not 0.0 <= random_share <= 1.0:
        raise ValueError(f"random_share must be between 0 and 1, got {random_share}")
    key = None if strata is None else strata_key(strata)
    position = _positions(store, run_id)
    ids = list(position)
    if order == "stored":
        return [
            QueueItem(i, position[i], "targeted", ("stored order",)) for i in ids if i not in done
        ]
    shuffled = random_order(ids, run_id, score, seed)
    if order == "random" or random_share == 1.0:
        return [QueueItem(i, position[i], "random", RANDOM_DRAW) for i in shuffled if i not in done]
    ranked = ranked_samples(store, run_id, ids, score, meaning, seed=f"{seed}:{run_id}:{score}")
    subsets = None if key is None else (key, store.metadata_texts(run_id, key))
    labelled = {label.request_id for label in labels_of(store.labels(run_id), score, meaning)}
    targeted = TargetedStream(ranked, subsets, labelled | set(done))
    return _interleaved(shuffled, targeted, random_share, position, set(done))


def _interleaved(
    shuffled: list[str],
    targeted: TargetedStream,
    share: float,
    position: dict[str, int],
    done: set[str],
) -> list[QueueItem]:
    queue: list[QueueItem] = []
    seen = set(done)
    random_next = iter(shuffled)
    for slot in range(len(shuffled)):
        if _is_random_slot(slot, share):
            item = next((i for i in random_next if i not in seen), None)
            if item is not None:
                seen.add(item)
                targeted.note(item)
                queue.append(QueueItem(item, position[item], "random", RANDOM_DRAW))
                continue
        found = targeted.take(seen)
        if found is None:
            continue
        seen.add(found[0])
        queue.append(QueueItem(found[0], position[found[0]], "targeted", found[1]))
    return queue


def labels_to_promote(
    store: Store, run_id: str, score: str, meaning: ScoreMeaning | None, *, seed: int = 0
) -> list[Label]:
    """The ``targeted`` labels of ``score`` that lie in the random prefix of the queue
    with ``seed``: they count as random (see the module docstring)."""
    mine = labels_of(store.labels(run_id), score, meaning)
    labelled = {label.request_id for label in mine}
    ids = [i for i in store.request_ids(run_id) if i is not None]
    prefix = set(random_prefix(random_order(ids, run_id, score, seed), labelled))
    return [label for label in mine if label.drawn == "targeted" and label.request_id in prefix]


def promote_random_prefix(
    store: Store, run_id: str, score: str, meaning: ScoreMeaning | None, *, seed: int = 0
) -> int:
    """Re-mark as ``random`` the targeted labels of ``score`` in the random prefix of
    the queue with ``seed``; the number re-marked."""
    promoted = [
        label.model_copy(update={"drawn": "random"})
        for label in labels_to_promote(store, run_id, score, meaning, seed=seed)
    ]
    return store.save_labels(promoted) if promoted else 0
