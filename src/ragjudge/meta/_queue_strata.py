"""The targeted stream of the labelling queue: the ranked samples handed out most
informative first, or, with strata, from the subset with the fewest labels so far
(round-robin over the subsets, the most informative sample of each)."""

from __future__ import annotations

import heapq
from collections import Counter
from collections.abc import Collection, Iterable, Mapping, Sequence

from ragjudge.meta._queue_signals import Ranked

__all__ = ["TargetedStream", "strata_key"]

_PREFIX = "metadata."


def strata_key(strata: str) -> str:
    """The metadata key of a ``strata`` setting (``metadata.KEY``)."""
    key = strata[len(_PREFIX) :] if strata.startswith(_PREFIX) else ""
    if not key:
        raise ValueError(f"strata must name a metadata key as metadata.KEY, got {strata!r}")
    return key


def _stratum_name(key: str, value: str | None) -> str:
    return f"no {key}" if value is None else f"{key}={value}"


class TargetedStream:
    """Hands out the ranked samples one at a time, skipping those already taken."""

    def __init__(
        self,
        ranked: Sequence[Ranked],
        strata: tuple[str, Mapping[str, str | None]] | None = None,
        labelled: Iterable[str] = (),
    ) -> None:
        self._key = strata[0] if strata else ""
        self._stratum = {} if strata is None else dict(strata[1])
        self._queues: dict[str, list[Ranked]] = {}
        for item in ranked:
            self._queues.setdefault(self._of(item.request_id), []).append(item)
        for queue in self._queues.values():
            queue.reverse()  # popped from the end: the most informative last
        self._count: Counter[str] = Counter(self._of(i) for i in labelled)
        self._order = {name: n for n, name in enumerate(self._queues)}
        self._heap = [(self._count[name], self._order[name], name) for name in self._queues]
        heapq.heapify(self._heap)

    def _of(self, request_id: str) -> str:
        if not self._key:
            return ""
        return _stratum_name(self._key, self._stratum.get(request_id))

    def note(self, request_id: str) -> None:
        """Count a sample the queue took from elsewhere (the random stream) as labelled."""
        name = self._of(request_id)
        self._count[name] += 1
        if name in self._queues:
            heapq.heappush(self._heap, (self._count[name], self._order[name], name))

    def take(self, seen: Collection[str]) -> tuple[str, tuple[str, ...]] | None:
        """The next sample not in ``seen`` with why it comes; None when none is left."""
        name = self._fewest(seen)
        if name is None:
            return None
        item = self._queues[name].pop()
        self._count[name] += 1
        heapq.heappush(self._heap, (self._count[name], self._order[name], name))
        if not self._key:
            return item.request_id, item.reasons
        return item.request_id, (*item.reasons, f"few labels in {name}")

    def _fewest(self, seen: Collection[str]) -> str | None:
        """The subset with the fewest labels that still has a sample not in ``seen``
        (ties: the subset first met in the ranking). Every change of a subset's count
        pushes an entry; entries with an old count, or of an emptied subset, are dropped
        as they surface."""
        while self._heap:
            count, _, name = self._heap[0]
            queue = self._queues[name]
            while queue and queue[-1].request_id in seen:
                queue.pop()
            heapq.heappop(self._heap)
            if queue and count == self._count[name]:
                return name
        return None
