"""Which samples the report of a run embeds, and the stored results it reads for them.

A run of up to :data:`EMBEDDED_SAMPLES` samples embeds every one, as it always has.
A larger run embeds that many: first the half that failed or scored lowest (a failed
target or score first, then by the sample's lowest value), then a random share of the
rest drawn with a fixed seed, so the same run gives the same page. Its plots read the
scores' values only (:meth:`~ragjudge.store._store.Store.score_values`), never a
frame of every field, and every row stays in the store for ``ragjudge export``."""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ragjudge.report._samples import calls_by_id
from ragjudge.schema import Output, Sample, Score
from ragjudge.store._store import RunInfo, Store

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["EMBEDDED_SAMPLES", "EmbeddedResults", "embedded_positions", "embedded_results"]

EMBEDDED_SAMPLES = 2000
"""The most samples a report embeds (a page of a few MB)."""
SEED = 0
"""The seed of the random share, fixed so the same run gives the same page."""


@dataclass(frozen=True)
class EmbeddedResults:
    """What the report of a run shows: its score values for the plots, and the samples
    it embeds with their outputs, scores and judge calls."""

    frame: pd.DataFrame
    samples: list[Sample]
    outputs: dict[str, Output]
    scores: list[tuple[str, int, Score]]
    calls: dict[int, dict[str, Any]]
    total: int
    """The run's samples, embedded or not."""

    @property
    def partial(self) -> bool:
        """Whether the report leaves samples out."""
        return len(self.samples) < self.total


def embedded_positions(
    store: Store, run_id: str, total: int, limit: int | None = None
) -> list[int] | None:
    """The positions of the samples to embed (at most ``limit``, by default
    :data:`EMBEDDED_SAMPLES`), sorted; None for every sample."""
    limit = EMBEDDED_SAMPLES if limit is None else limit
    if total <= limit:
        return None
    taken = set(store.worst_positions(run_id, limit // 2))
    draw = random.Random(SEED)
    while len(taken) < limit:
        taken.add(draw.randrange(total))
    return sorted(taken)


def embedded_results(
    store: Store, run: RunInfo, *, whole_frame: bool = False, limit: int | None = None
) -> EmbeddedResults:
    """The results the report of ``run`` shows; ``whole_frame`` reads the score frame
    with the samples' metadata (what plotting against human scores needs)."""
    positions = embedded_positions(store, run.run_id, run.n_samples, limit)
    if positions is None:
        samples, outputs = store.samples(run.run_id), store.outputs(run.run_id)
        scores = store.scores(run.run_id)
        calls = calls_by_id(store.judge_calls(run.run_id))
        frame = store.score_frame(run.run_id)
        return EmbeddedResults(frame, samples, outputs, scores, calls, len(samples))
    page = store.results_at(run.run_id, positions)
    ids = [i for _, _, score in page.scores for i in score.judge_call_ids]
    calls = calls_by_id(store.judge_calls_by_id(run.run_id, ids))
    frame = store.score_frame(run.run_id) if whole_frame else store.score_values(run.run_id)
    return EmbeddedResults(frame, page.samples, page.outputs, page.scores, calls, run.n_samples)
