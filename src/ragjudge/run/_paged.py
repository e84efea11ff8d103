"""Executing a local run whose samples stay in the store: they are read back a page of
:data:`LOCAL_PAGE_ROWS` at a time, with what is stored for that page (a resumed run's
outputs and scores), and each page is planned and run as a whole set would be —
scored on the spot, by forked scoring processes, or in tasks — before the next one is
read. What the execution holds is one page's samples, outputs and score keys, so its
memory does not grow with the set.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from concurrent.futures import Future
from contextlib import AbstractContextManager, nullcontext
from functools import partial

from ragjudge.analysis._rate_limits import calls_done
from ragjudge.metrics import Metric
from ragjudge.models._semaphore import SharedSemaphore
from ragjudge.run._execution import Execution, ScoredSample
from ragjudge.run._processes import blocks_of, standing_pool, worker_count
from ragjudge.run._progress import Tracker, progress_display, report_calls
from ragjudge.run._samples_in_flight import InFlight, sample_gate
from ragjudge.schema import Output, Sample

Send = Callable[[Sequence["SentItem"]], Future[list[ScoredSample]]]

__all__ = ["LOCAL_PAGE_ROWS", "PagedExecution"]

LOCAL_PAGE_ROWS = 20_000
"""Samples read back from the store and planned at a time: large enough that the
scoring processes forked for a page keep busy (a few seconds of lexical work), small
enough that a page's samples and results stay a few tens of megabytes."""


SentItem = tuple[Sample, list[tuple[int, int]], Output | None]
"""A sample sent to a standing scoring worker: the sample, its pending (trial, index of
the metric) pairs and its stored output (None: the target gives it at once)."""


class PagedExecution(Execution):
    """:class:`Execution` over the run's stored samples, a page at a time (see the
    module docstring)."""

    page_rows: int = LOCAL_PAGE_ROWS

    def stored_results(self) -> tuple[set[tuple[str, int, str]], dict[str, Output]]:
        """Nothing held for the whole run: what is stored is read with each page."""
        return set(), {}

    async def run(self, samples: Sequence[Sample], concurrency: InFlight, progress: bool) -> None:
        """Evaluate every stored sample of the run that is not done, page by page
        (``samples`` are the run's as stored, read back from the store). The scoring
        workers, when the run uses them, are forked once before the progress display
        starts its thread, and take every page's CPU-only samples."""
        total = self.store.run(self.run_id).n_samples
        semaphore = sample_gate(concurrency)
        # the workers fork before the progress display starts its thread
        with (
            self._workers(total) as send,
            progress_display(progress, status=self.rate_status) as tracker,
        ):
            tracker.start(total, 0)
            done = partial(calls_done, self.models)
            reporting = asyncio.create_task(report_calls(tracker, done, self.expected_calls))
            try:
                for start in range(0, total, self.page_rows):
                    await self._run_page(start, semaphore, tracker, send)
            finally:
                reporting.cancel()
                tracker.calls(done(), self.expected_calls)
                self.writer.flush()

    def _workers(self, total: int) -> AbstractContextManager[Send | None]:
        """The standing scoring workers, when the run has inline metrics and may use
        several processes; else nothing."""
        workers = worker_count(self.processes, total, self.busy_cpus) if self._inline else 0
        return standing_pool(self._scored_sent, workers) if workers else nullcontext()

    async def _run_page(
        self,
        start: int,
        semaphore: SharedSemaphore,
        tracker: Tracker,
        send: Send | None,
    ) -> None:
        """Plan and evaluate the page of samples at ``start``: what is stored for it is
        read first, and skipped."""
        page = self.store.sample_page(self.run_id, start, self.page_rows)
        self.writer.flush()  # what is stored for the page includes every earlier result
        self.outputs, self.finished = self.store.stored_for(
            self.run_id, [s.request_id for s in page]
        )
        todo = [
            (s, pending)
            for s in page
            if (pending := self._pending(s)) or s.request_id not in self.outputs
        ]
        for _ in range(len(page) - len(todo)):
            tracker.advance()
        now, later = self._split(todo)

        async def one(sample: Sample) -> None:
            async with semaphore:
                await self.evaluate_sample(sample)
            tracker.advance()

        futures = [send(self._sent(block)) for block in blocks_of(now)] if send else []
        await self._run_all(now, later, futures, one, tracker)

    def _sent(self, block: Sequence[tuple[Sample, list[tuple[int, Metric]]]]) -> list[SentItem]:
        """A block of samples as sent to a worker (metrics by their index)."""
        index = {id(metric): at for at, metric in enumerate(self.metrics)}
        return [
            (
                sample,
                [(trial, index[id(m)]) for trial, m in pending],
                self.outputs.get(sample.request_id),
            )
            for sample, pending in block
        ]

    def _scored_sent(self, item: SentItem) -> ScoredSample:
        """In a standing worker: a sample sent by :meth:`_sent`, scored."""
        sample, pending, output = item
        metrics = [(trial, self.metrics[at]) for trial, at in pending]
        return self._scored_with(sample, metrics, output)
