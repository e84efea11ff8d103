"""A generation from start to end. Candidates of each kind are checked in rounds, as
many at once as the settings allow; each is stored the moment its checks end, and the
kept set is read from the stored ones after every round (:func:`assemble`) until every
kind has its quota, a kind runs out of candidates, or the cost ceiling is reached.

Run again with the same knowledge base, settings and generator, a generation finds its
stored candidates (by fingerprint) and pays only for those not checked yet; a candidate
whose model call failed is checked again."""

from __future__ import annotations

import asyncio
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ragjudge.errors import SpendingLimitReached
from ragjudge.knowledge import KnowledgeBase
from ragjudge.models import GenerateConfig, Generation
from ragjudge.models._embeddings import Embedder
from ragjudge.store import Store, StoredCandidate
from ragjudge.testsets._assembly import Assembly, assemble
from ragjudge.testsets._candidate import CandidateOutcome, Generator, check_candidate
from ragjudge.testsets._prompts import PROMPT_VERSION
from ragjudge.testsets._rows import Provenance, sample_row
from ragjudge.testsets._settings import (
    GenerationSettings,
    generation_fingerprint,
    kind_quotas,
    sources_for,
)
from ragjudge.testsets._sources import Sources
from ragjudge.testsets._types import KINDS, Kind, SourcePlan

__all__ = ["GeneratedSet", "generate_testset"]

FAILED_IN_A_ROW = 8
"""Candidates whose model calls all failed, one after another, before the generation
stops: the endpoint is down or refuses, and more attempts would only fail too."""


@dataclass
class GeneratedSet:
    """The outcome of a generation."""

    rows: list[dict[str, Any]]
    """The kept samples as evaluation-set rows (ragjudge's schema)."""
    generation_id: str
    wanted: dict[str, int]
    """Samples wanted per kind."""
    assembly: Assembly
    resumed: int = 0
    """Candidates read back from the store instead of checked again."""
    calls: int = 0
    """Model calls made by this invocation (cache hits included)."""
    cost: float | None = None
    """Dollars this invocation spent (None: no price known)."""
    stopped: str | None = None
    """Why the set is smaller than asked (None: it is complete)."""
    errors: list[str] = field(default_factory=list)
    """The distinct errors of candidates whose model calls failed."""

    @property
    def complete(self) -> bool:
        """Whether every kind has the samples asked for."""
        return self.stopped is None

    def kept_by_kind(self) -> dict[str, int]:
        """Samples kept per kind."""
        return {kind: self.assembly.kept_of(kind) for kind in self.wanted}  # type: ignore[arg-type]


@dataclass
class _Progress:
    """What one invocation did: calls, dollars, failures in a row."""

    calls: int = 0
    cost: float | None = None
    failed_in_a_row: int = 0
    errors: list[str] = field(default_factory=list)

    def add(self, outcome: CandidateOutcome) -> None:
        self.calls += outcome.calls
        if outcome.cost is not None:
            self.cost = (self.cost or 0.0) + outcome.cost
        if outcome.outcome == "error":
            self.failed_in_a_row += 1
            if outcome.error and outcome.error not in self.errors:
                self.errors.append(outcome.error)
        else:
            self.failed_in_a_row = 0


async def generate_testset(
    kb: KnowledgeBase,
    settings: GenerationSettings,
    model: Generator,
    store: Store,
    *,
    generator: str,
    prices: Callable[[Generation], float | None],
    sampling: GenerateConfig | None = None,
    embedder: Embedder | None = None,
) -> GeneratedSet:
    """Generate ``settings.n`` samples from ``kb`` with ``model`` (named ``generator``
    in the provenance), storing progress in ``store``."""
    sources = sources_for(kb, settings)
    fingerprint = generation_fingerprint(kb, settings, generator, PROMPT_VERSION)
    generation_id, _ = store.generation_for(fingerprint, settings.fingerprint_fields())
    stored = {c.candidate: c for c in store.generated_candidates(generation_id)}
    resumed = sum(1 for c in stored.values() if c.outcome != "error")
    quotas = kind_quotas(settings.n, settings.mix)
    run = _Generation(kb, settings, model, store, generation_id, sources, quotas, stored)
    run.sampling = sampling or GenerateConfig()
    run.prices, run.embedder = prices, embedder
    assembly, stopped = await run.rounds()
    provenance = Provenance(generator, PROMPT_VERSION, settings.seed, generation_id)
    chunks = {chunk.chunk_id: chunk for chunk in kb.chunks}
    rows = [
        sample_row(candidate, chunks, provenance, settings.reference) for candidate in assembly.kept
    ]
    return GeneratedSet(
        rows,
        generation_id,
        {str(kind): count for kind, count in quotas.items()},
        assembly,
        resumed=resumed,
        calls=run.progress.calls,
        cost=run.progress.cost,
        stopped=stopped,
        errors=run.progress.errors,
    )


class _Generation:
    """The rounds of one invocation."""

    def __init__(
        self,
        kb: KnowledgeBase,
        settings: GenerationSettings,
        model: Generator,
        store: Store,
        generation_id: str,
        sources: Sources,
        quotas: dict[Kind, int],
        stored: dict[str, StoredCandidate],
    ) -> None:
        self.kb, self.settings, self.model, self.store = kb, settings, model, store
        self.generation_id, self.sources, self.quotas = generation_id, sources, quotas
        self.stored = stored
        self.sampling = GenerateConfig()
        self.prices: Callable[[Generation], float | None] = lambda _: None
        self.embedder: Embedder | None = None
        self.progress = _Progress()
        self.capacities: dict[Kind, int] = {}
        self.exhausted: set[Kind] = set()
        self.checked_now: set[str] = set()
        """Candidates checked by this invocation (a failed one is not asked again)."""

    async def rounds(self) -> tuple[Assembly, str | None]:
        while True:
            assembly = await self._assembled()
            wanted = {k: q - assembly.kept_of(k) for k, q in self.quotas.items()}
            if all(count <= 0 for count in wanted.values()):
                return assembly, None
            batch = self._next_candidates(wanted, assembly)
            if not batch:
                return assembly, self._shortfall(wanted)
            batch = self._within_budget(batch)
            if not batch:
                return assembly, self._over_budget()
            await self._check(batch)
            if self.progress.failed_in_a_row >= FAILED_IN_A_ROW:
                assembly = await self._assembled()
                return assembly, f"the generator model failed: {self.progress.errors[-1]}"

    async def _assembled(self) -> Assembly:
        return await assemble(
            self.stored.values(),
            self.quotas,
            threshold=self.settings.duplicate_threshold,
            embedder=self.embedder,
        )

    def _next_candidates(self, wanted: dict[Kind, int], assembly: Assembly) -> list[Any]:
        """The plans to check next: per kind short of its quota, the first positions
        not yet stored (or stored as an error not yet retried), as many as it still
        needs divided by its pass rate so far."""
        batch = []
        for kind in KINDS:
            need = wanted.get(kind, 0)
            if need <= 0 or kind in self.exhausted:
                continue
            count = math.ceil(need / self._pass_rate(kind))
            batch.extend(self._open_plans(kind, count))
        return batch

    def _pass_rate(self, kind: Kind) -> float:
        done = [c for c in self.stored.values() if c.kind == kind and c.outcome != "error"]
        passed = sum(1 for c in done if c.outcome == "passed")
        return max(passed / len(done), 0.25) if done else 1.0

    def _open_plans(self, kind: Kind, count: int) -> list[Any]:
        limit = math.ceil(self.quotas[kind] * self.settings.attempts)
        plans: list[Any] = []
        for position in range(limit):
            if len(plans) >= count:
                return plans
            key = f"{kind}-{position}"
            found = self.stored.get(key)
            if found is not None and (found.outcome != "error" or key in self.checked_now):
                continue
            plan = self.sources.plan(kind, position)
            if plan is None:
                break
            plans.append(plan)
        if not plans:
            self.exhausted.add(kind)
        return plans

    def _within_budget(self, batch: list[Any]) -> list[Any]:
        ceiling = self.settings.max_cost
        if ceiling is None:
            return batch
        spent = self.progress.cost or 0.0
        checked = [c for c in self.stored.values() if c.cost is not None and c.calls]
        # Each candidate counted at the most one has cost so far, so a batch that fits
        # does not pass the ceiling by an unlucky candidate.
        per_candidate = max((c.cost or 0.0 for c in checked), default=0.0)
        if not checked:
            # Nothing priced yet: a first probe of a few candidates tells the cost.
            return batch[: self.settings.concurrency] if spent < ceiling else []
        if per_candidate <= 0:
            return batch
        fits = math.floor((ceiling - spent) / per_candidate)
        return batch[: max(fits, 0)]

    def _over_budget(self) -> str:
        return (
            f"stopped before the cost ceiling of ${self.settings.max_cost:g} "
            f"(spent ${self.progress.cost or 0.0:.4f}); run again with a higher --max-cost "
            "to continue where it stopped"
        )

    def _shortfall(self, wanted: dict[Kind, int]) -> str:
        short = ", ".join(f"{kind} {count}" for kind, count in wanted.items() if count > 0)
        return (
            f"ran out of candidates ({short} short): the knowledge base offers no more "
            "chunks for these kinds, or too many candidates failed their checks "
            "(raise --attempts, or lower the share of these kinds)"
        )

    def _variant(self, plan: SourcePlan) -> int:
        """How many times the plan's kind went round its chunks before this one (a
        two-chunk kind pairs each chunk with another partner on each round instead)."""
        if len(plan.chunks) > 1:
            return 0
        capacity = self.capacities.get(plan.kind)
        if capacity is None:
            capacity = self.capacities[plan.kind] = self.sources.capacity(plan.kind)
        return plan.index // capacity if capacity > 0 else 0

    async def _check(self, batch: list[Any]) -> None:
        gate = asyncio.Semaphore(self.settings.concurrency)

        async def one(plan: Any) -> None:
            async with gate:
                outcome = await check_candidate(
                    plan,
                    self.model,
                    self.sampling,
                    self.sources.related,
                    self.prices,
                    f"{self.settings.seed}-{plan.key}",
                    self._variant(plan),
                )
            stored = outcome.stored()
            self.checked_now.add(plan.key)
            self.store.save_candidate(self.generation_id, stored)
            self.stored[plan.key] = stored
            self.progress.add(outcome)

        await asyncio.gather(*(one(plan) for plan in batch))


def check_max_cost(estimate: float | None, ceiling: float | None) -> None:
    """:class:`SpendingLimitReached` when even the smallest estimate is above the ceiling."""
    if ceiling is not None and estimate is not None and estimate > ceiling:
        raise SpendingLimitReached(
            f"--max-cost: the generation would cost at least ${estimate:.4f}, above "
            f"${ceiling:g}; raise --max-cost or ask for fewer samples"
        )
