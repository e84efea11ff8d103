"""The runs of a wide file evaluated once per system (one response column each), as
:func:`ragjudge.evaluate_systems` returns them: each system's result, in the order the
systems were given, and the paired comparison of any two."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass

from ragjudge.analysis._compare import compare_runs
from ragjudge.analysis._comparison import Comparison
from ragjudge.analysis._results import EvaluationResult
from ragjudge.store._store import Store

__all__ = ["SystemRuns"]


@dataclass
class SystemRuns(Mapping[str, EvaluationResult]):
    """One :class:`EvaluationResult` per system, keyed by the system's name in the
    order given; read it as a mapping (``runs["gpt4o"]``, ``for system in runs``).

    Every run holds the same sample ids, so :meth:`compare` pairs every row.
    """

    runs: dict[str, EvaluationResult]

    def __getitem__(self, system: str) -> EvaluationResult:
        try:
            return self.runs[system]
        except KeyError:
            raise KeyError(
                f"no system {system!r}; the systems are {', '.join(self.runs)}"
            ) from None

    def __iter__(self) -> Iterator[str]:
        return iter(self.runs)

    def __len__(self) -> int:
        return len(self.runs)

    def compare(
        self, a: str, b: str, *, by: str | None = None, metrics: Sequence[str] | None = None
    ) -> Comparison:
        """Paired comparison of system ``b``'s run against system ``a``'s (B − A per
        metric, with bootstrap intervals and p-values), as ``ragjudge compare`` prints
        it; ``by`` repeats it per value of a metadata key, ``metrics`` keeps those."""
        first, second = self[a], self[b]
        with Store(first.store_path) as store_a, Store(second.store_path) as store_b:
            return compare_runs(
                store_a, first.run_id, store_b, second.run_id, by=by, metrics=metrics
            )
