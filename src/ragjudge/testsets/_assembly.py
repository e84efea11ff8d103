"""The kept set, read from the stored candidates in a fixed order — kinds as
:data:`~ragjudge.testsets.KINDS` lists them, each by its candidates' positions: a
candidate that passed its checks is kept unless it nearly duplicates one kept before
it, until its kind has its quota. The same stored candidates always give the same set,
however many rounds or resumes they took to check."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field

from ragjudge.models._embeddings import Embedder
from ragjudge.store import StoredCandidate
from ragjudge.testsets._duplicates import DuplicateFilter
from ragjudge.testsets._types import KINDS, Kind

__all__ = ["Assembly", "assemble"]


@dataclass
class Assembly:
    """The kept candidates and what happened to the others."""

    kept: list[StoredCandidate] = field(default_factory=list)
    dropped: Counter[str] = field(default_factory=Counter)
    """Candidates dropped, per check (``duplicate`` among them)."""
    dropped_by_kind: dict[str, Counter[str]] = field(default_factory=dict)
    duplicates: dict[str, str] = field(default_factory=dict)
    """Each duplicate's key → the kept candidate it repeats."""
    spare: int = 0
    """Candidates that passed every check after their kind had its quota (kept in the
    store for a larger set)."""
    checked: int = 0

    def kept_of(self, kind: Kind) -> int:
        """How many samples of ``kind`` are kept."""
        return sum(1 for candidate in self.kept if candidate.kind == kind)


async def assemble(
    candidates: Iterable[StoredCandidate],
    quotas: dict[Kind, int],
    *,
    threshold: float | None = None,
    embedder: Embedder | None = None,
) -> Assembly:
    """The kept set of ``candidates`` for ``quotas``: see the module's docstring."""
    ordered = sorted(candidates, key=lambda c: (KINDS.index(c.kind), c.position))
    found = Assembly()
    duplicates = DuplicateFilter(threshold=threshold, embedder=embedder)
    for candidate in ordered:
        found.checked += 1
        kind: Kind = candidate.kind  # type: ignore[assignment]
        if candidate.outcome != "passed":
            _drop(found, candidate, candidate.outcome)
            continue
        if found.kept_of(kind) >= quotas.get(kind, 0):
            found.spare += 1
            continue
        question, answer = _texts(candidate)
        repeated = await duplicates.find(question, answer)
        if repeated is not None:
            found.duplicates[candidate.candidate] = repeated[0]
            _drop(found, candidate, "duplicate")
            continue
        await duplicates.add(candidate.candidate, question, answer)
        found.kept.append(candidate)
    return found


def _drop(found: Assembly, candidate: StoredCandidate, check: str) -> None:
    found.dropped[check] += 1
    found.dropped_by_kind.setdefault(candidate.kind, Counter())[check] += 1


def _texts(candidate: StoredCandidate) -> tuple[str, str]:
    """The question and answer compared. Every unanswerable sample has the same fixed
    reference, which says nothing about the question: it is compared by its question
    alone (its answer stands as the question itself, which adds nothing to it)."""
    draft = candidate.record["draft"]
    question = str(draft["question"])
    if candidate.kind == "unanswerable":
        return question, question
    return question, str(draft["answer"])
