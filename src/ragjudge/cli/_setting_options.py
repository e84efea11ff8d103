"""The options of ``ragjudge run`` that carry a setting or a run control.

Written by ``python -m ragjudge.cli._options_source`` from the declarations in
:mod:`ragjudge.config` (help texts) and :mod:`ragjudge.cli._options_source` (flags,
metavars, types); do not edit by hand.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

__all__ = [
    "RunBy",
    "RunConcurrency",
    "RunDataWhere",
    "RunExecutor",
    "RunFailOver",
    "RunFailUnder",
    "RunGate",
    "RunIncremental",
    "RunLimit",
    "RunMaxCost",
    "RunMaxErrorRate",
    "RunProcesses",
    "RunProgress",
    "RunResume",
    "RunRetryErrors",
    "RunSample",
    "RunSeed",
    "RunSkipInvalidRows",
    "RunStore",
    "RunTrials",
    "RunUseCache",
]

RunResume = Annotated[
    str | None,
    typer.Option(
        "--resume",
        metavar="RUN",
        help="Finish the interrupted run with this id ('latest', or a unique start or end of it): only missing results are computed.",
    ),
]

RunRetryErrors = Annotated[
    bool,
    typer.Option(
        "--retry-errors",
        help="With resume: compute the run's errored results again.",
    ),
]

RunLimit = Annotated[
    int | None,
    typer.Option(
        "--limit",
        metavar="N",
        help="Evaluate only the first N rows.",
    ),
]

RunSample = Annotated[
    int | None,
    typer.Option(
        "--sample",
        metavar="N",
        help="Evaluate N random rows, each subset of the breakdown (by) keeping its share.",
    ),
]

RunDataWhere = Annotated[
    str | None,
    typer.Option(
        "--where",
        metavar="FILTER",
        help="Evaluate only the rows of a Parquet folder or Delta table that match this filter, such as date >= '2026-11-01' and lang in ('en', 'fr'); the files of partitions it excludes are never opened.",
    ),
]

RunSeed = Annotated[
    int | None,
    typer.Option(
        "--seed",
        metavar="S",
        help="Seed of the random rows of sample and of the bootstrap confidence intervals.",
    ),
]

RunConcurrency = Annotated[
    int | None,
    typer.Option(
        "--concurrency",
        metavar="N",
        help="Samples in flight at once (at most 1,000). Unset: as many as the judge's calls keep busy (at least 8; a batched judge's batch_size), a target's calls 8 at a time.",
    ),
]

RunProcesses = Annotated[
    str | None,
    typer.Option(
        "--processes",
        metavar="N",
        help="Processes that score CPU-only metrics of a large run and chunk a large knowledge base: auto scores in as many processes as there are CPUs other programs leave free (the CPUs less those busy when the run starts, at least 1) and chunks on every CPU; 1 keeps the work in this process.",
    ),
]

RunExecutor = Annotated[
    str | None,
    typer.Option(
        "--executor",
        metavar="NAME",
        help="Where samples are evaluated: local (this process) or ray (Ray workers).",
    ),
]

RunTrials = Annotated[
    int | None,
    typer.Option(
        "--trials",
        metavar="N",
        help="Score every sample this many times (to measure how stable the scores are).",
    ),
]

RunMaxErrorRate = Annotated[
    float | None,
    typer.Option(
        "--max-error-rate",
        metavar="SHARE",
        help="Share of a metric's results that may fail before the run counts as failed (exit 3); a metric with no value at all always fails it (exit 4).",
    ),
]

RunMaxCost = Annotated[
    float | None,
    typer.Option(
        "--max-cost",
        metavar="DOLLARS",
        help="Stop the run before it spends more than this many dollars on judge calls.",
    ),
]

RunSkipInvalidRows = Annotated[
    bool,
    typer.Option(
        "--skip-invalid-rows",
        help="Score what can be scored: leave out rows that cannot be read, and rows lacking a metric's inputs for that metric; report both.",
    ),
]

RunIncremental = Annotated[
    bool,
    typer.Option(
        "--incremental",
        help="Evaluate only the rows whose request id no earlier run of the same config has scored (the new rows of an appended log); the rows must carry their own ids.",
    ),
]

RunBy = Annotated[
    str | None,
    typer.Option(
        "--by",
        metavar="KEY",
        help="Break the summary down by a metadata key (metadata.KEY or KEY).",
    ),
]

RunStore = Annotated[
    Path | None,
    typer.Option(
        "--store",
        metavar="FILE",
        help="The store file (default .ragjudge/runs.db beside the config).",
    ),
]

RunFailUnder = Annotated[
    list[str] | None,
    typer.Option(
        "--fail-under",
        metavar="METRIC=VALUE",
        help="Quality gates: a score and the value its mean (with gate ci, the low end of its 95% CI) may not fall below, or ragjudge run exits 5; on the command line METRIC=VALUE, repeatable, adding to the config's gates or replacing its gate for that score.",
    ),
]

RunFailOver = Annotated[
    list[str] | None,
    typer.Option(
        "--fail-over",
        metavar="METRIC=VALUE",
        help="Quality gates for scores where lower is better: a score and the value its mean (with gate ci, the high end of its 95% CI) may not exceed, or ragjudge run exits 5; on the command line METRIC=VALUE, as for fail_under.",
    ),
]

RunGate = Annotated[
    str | None,
    typer.Option(
        "--gate",
        metavar="mean|ci",
        help="What the quality gates check: mean, or ci (the 95% confidence interval's conservative end, so a gate fails only when the evidence says the score is off).",
    ),
]

RunProgress = Annotated[
    bool,
    typer.Option(
        "--progress/--no-progress",
        help="Show a progress bar.",
    ),
]

RunUseCache = Annotated[
    bool,
    typer.Option(
        "--cache/--no-cache",
        help="Reuse cached judge replies.",
    ),
]
