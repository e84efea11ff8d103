"""Preparing a run whose evaluation set is a folder of Parquet files without
holding the set: it is read, validated and checked a page at a time
(:class:`~ragjudge.loading.StreamedSet`), and the samples the run keeps are written to
a spool file (one line per sample: its request id and stored form) that the run's
creation copies into the store page by page.

What is held across pages, per row of the set: the request ids (see
:mod:`ragjudge.loading._stream`); with ``sample:``, the value of the ``by`` key of every
row (an extra pass over the set reads them first) and the positions drawn; with
``skip_invalid_rows``, the request ids of the rows a metric does not apply to. The
checks of :func:`~ragjudge.run._preparation.prepare` give the same errors and notes.
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ragjudge.config import ConfigError, EvalConfig
from ragjudge.loading import StreamedSet
from ragjudge.metrics import Metric
from ragjudge.run._preparation import (
    MetricSpec,
    Prepared,
    RequirementError,
    build_retriever,
    build_target,
    check_retriever,
    check_sample_per,
    configured_metrics,
)
from ragjudge.run._row_skipping import (
    check_filled,
    filled_fields,
    lacking_rows,
    missing_everywhere,
    skip_rows_lacking_inputs,
)
from ragjudge.run._sampling import per_group_positions, stratified_positions
from ragjudge.schema import Sample, ScoreMeaning
from ragjudge.targets._targets import Target

__all__ = [
    "SpooledSet",
    "parquet_folder",
    "parquet_folder_rows",
    "prepare_stored",
    "prepare_streamed",
]

SpoolRow = tuple[str, str]
"""A sample's request id and its stored form (JSON)."""


@dataclass
class SpooledSet:
    """The samples of a run being created, in a spool file, in run order."""

    path: Path
    count: int = 0
    meanings: dict[str, ScoreMeaning] = field(default_factory=dict)
    """The meanings of every score the metrics give these samples."""

    def pages(self, rows: int) -> Iterator[list[SpoolRow]]:
        """The spooled samples, ``rows`` at a time."""
        page: list[SpoolRow] = []
        with self.path.open(encoding="utf-8") as lines:
            for line in lines:
                rid, _, stored = line.rstrip("\n").partition("\t")
                page.append((json.loads(rid), stored))
                if len(page) == rows:
                    yield page
                    page = []
        if page:
            yield page

    def remove(self) -> None:
        """Delete the spool file."""
        self.path.unlink(missing_ok=True)


def parquet_folder(config: EvalConfig, data: Any) -> Path | None:
    """The folder of Parquet files to read page by page, or None when the set is
    anything else (read whole)."""
    if config.openai_evals is not None:
        return None
    if data is None and config.data is not None:
        data = config.resolve(config.data)
    if isinstance(data, str | Path) and Path(data).is_dir():
        return Path(data)
    return None


def parquet_folder_rows(folder: Path) -> int | None:
    """The rows of a folder of Parquet files, from the files' footers (nothing else is
    read); None when a file cannot be read (reading the set names it)."""
    import pyarrow
    import pyarrow.parquet as pq

    try:
        return sum(
            int(pq.ParquetFile(path).metadata.num_rows)
            for path in folder.rglob("*.parquet")
            if path.is_file()
        )
    except (pyarrow.ArrowException, OSError, ValueError):
        return None


def prepare_streamed(
    config: EvalConfig,
    folder: Path,
    *,
    target: Any = None,
    metrics: Sequence[MetricSpec] | None = None,
) -> tuple[Prepared, SpooledSet]:
    """:func:`~ragjudge.run._preparation.prepare` for a folder of Parquet files: the same
    checks in the same order, the kept samples spooled rather than returned (the
    :class:`Prepared` holds none)."""
    if config.systems or config.separators:
        raise ConfigError(
            "systems and separators read a file (.jsonl, .json, .csv, .tsv, .parquet), "
            "not a folder of Parquet files"
        )
    check_sample_per(config)
    metric_objects = configured_metrics(config, metrics)
    target_obj = build_target(config, target)
    notes: list[str] = []
    streamed = StreamedSet(
        folder,
        format=config.format,
        columns=config.columns,
        skip_invalid_rows=config.skip_invalid_rows,
        max_field_bytes=config.max_field_bytes,
        where=config.data_where,
    )
    chosen = _drawn_positions(streamed, config) if config.sample else None
    spool = SpooledSet(Path(tempfile.mkstemp(prefix="ragjudge-spool-", suffix=".tsv")[1]))
    try:
        checks = _spool(streamed, spool, config, chosen, metric_objects, target_obj)
        while streamed.again:
            checks = _spool(streamed, spool, config, chosen, metric_objects, target_obj)
        assert streamed.report is not None
        notes.extend(streamed.report.notes())
        checks.finish(notes)
        config.check_run_size(spool.count)
        check_retriever(config, metric_objects)
        retriever = build_retriever(config)
        prepared = Prepared([], metric_objects, target_obj, retriever, notes, in_store=True)
    except BaseException:
        spool.remove()
        raise
    return prepared, spool


def prepare_stored(
    config: EvalConfig, *, target: Any = None, metrics: Sequence[MetricSpec] | None = None
) -> Prepared:
    """:func:`~ragjudge.run._preparation.prepare` for a resumed run read in pages: its samples
    stay in the store (they were checked when the run was created); the metrics, the
    target and the retriever are built and checked."""
    metric_objects = configured_metrics(config, metrics)
    target_obj = build_target(config, target)
    problems = [p for m in metric_objects if (p := m.check_target(target_obj)) is not None]
    if problems:
        raise RequirementError(problems, hint=False)
    check_retriever(config, metric_objects)
    return Prepared([], metric_objects, target_obj, build_retriever(config), in_store=True)


def _drawn_positions(streamed: StreamedSet, config: EvalConfig) -> set[int]:
    """``sample:``: the positions drawn, from a pass over the set that keeps only each
    row's value of the ``by`` key (of ``sample_per``: drawn as the pass goes)."""
    if config.sample_per is not None:
        return _drawn_per_group(streamed, config.sample_per, config)
    key = None if config.by is None else config.by.removeprefix("metadata.")
    while True:
        values: list[Any] = []
        for page in streamed.pages():
            values += [None if key is None else s.metadata.get(key) for s in page]
        if not streamed.again:
            break
    assert config.sample is not None
    return set(stratified_positions(values, config.sample, seed=config.seed))


def _drawn_per_group(streamed: StreamedSet, per: str, config: EvalConfig) -> set[int]:
    """``sample`` positions per value of ``per``, drawn in one pass (or two when the
    set must be read again) that keeps only the reservoirs."""
    key = per.removeprefix("metadata.")
    assert config.sample is not None
    while True:
        values = (s.metadata.get(key) for page in streamed.pages() for s in page)
        chosen = set(per_group_positions(values, config.sample, seed=config.seed))
        if not streamed.again:
            return chosen


def _spool(
    streamed: StreamedSet,
    spool: SpooledSet,
    config: EvalConfig,
    chosen: set[int] | None,
    metrics: list[Metric],
    target: Target,
) -> _Checks:
    """One pass over the set: the kept samples written to ``spool``, checked page by
    page."""
    checks = _Checks(config.by, metrics, target, skip=config.skip_invalid_rows)
    spool.count, spool.meanings, position = 0, {}, 0
    limit = config.limit if chosen is None else None
    with spool.path.open("w", encoding="utf-8") as out:
        for page in streamed.pages():
            selected = []
            for sample in page:
                if (chosen is None or position in chosen) and not (limit and checks.total >= limit):
                    selected.append(sample)
                    checks.total += 1
                position += 1
            kept = checks.page(selected)
            for sample in kept:
                out.write(f"{json.dumps(sample.request_id)}\t{sample.model_dump_json()}\n")
            spool.count += len(kept)
            for metric in metrics:
                spool.meanings.update(metric.meanings_for(kept))
    return checks


class _Checks:
    """The checks of :func:`~ragjudge.run._preparation.prepare` (the ``by`` key, the rows'
    fields against what the metrics need, or with ``skip_invalid_rows`` the rows left
    out or not applicable), gathered page by page."""

    def __init__(self, by: str | None, metrics: list[Metric], target: Target, *, skip: bool):
        self.key = None if by is None else by.removeprefix("metadata.")
        self.by, self.metrics, self.target, self.skip = by, metrics, target, skip
        self.total = 0
        """Samples selected so far (before rows without a response are left out)."""
        self.kept = 0
        self.found_key = False
        self.filled: set[tuple[str, str]] = set()
        self.keys: set[str] = set()
        self.missing: dict[tuple[str, str], tuple[int, list[tuple[int, str]]]] = {}
        self.dropped: tuple[int, list[tuple[int, str]]] = (0, [])
        self.nowhere: dict[str, list[str] | None] = {m.name: None for m in metrics}
        self.lacking: dict[str, dict[str, str]] = {m.name: {} for m in metrics}
        self.lacking_at: dict[str, list[tuple[int, str]]] = {m.name: [] for m in metrics}

    def page(self, samples: list[Sample]) -> list[Sample]:
        """Check a page of selected samples; the ones the run keeps."""
        start = self.total - len(samples)
        if self.key is not None and not self.found_key:
            self.found_key = any(self.key in s.metadata for s in samples)
            self.keys.update(k for s in samples for k in s.metadata)
        self.filled |= filled_fields(samples, self.metrics)
        if not self.skip:
            self._requirements(samples, start)
            return samples
        kept = samples
        if not self.target.supplies_response:
            kept = [s for s in samples if s.has_field("response") or s.has_field("trace")]
            count, first_rows = self.dropped
            first_rows += [
                (start + i + 1, s.request_id)
                for i, s in enumerate(samples)
                if not (s.has_field("response") or s.has_field("trace"))
            ][: 10 - len(first_rows)]
            self.dropped = (count + len(samples) - len(kept), first_rows)
        self._lacking(kept, self.kept)
        self.kept += len(kept)
        return kept

    def _requirements(self, samples: list[Sample], start: int) -> None:
        answers = self.target.supplies_response
        for metric in self.metrics:
            for requirement in metric.requires:
                alternatives = requirement.split("|")
                if answers and any(
                    a in ("response", "retrieved_context", "trace") for a in alternatives
                ):
                    continue
                count, shown = self.missing.get((metric.name, requirement), (0, []))
                for i, s in enumerate(samples):
                    if not any(s.has_field(a) for a in alternatives):
                        count += 1
                        if len(shown) < 20:
                            shown.append((start + i + 1, s.request_id))
                self.missing[(metric.name, requirement)] = (count, shown)

    def _lacking(self, kept: list[Sample], start: int) -> None:
        answers = self.target.supplies_response
        for metric in self.metrics:
            nowhere = missing_everywhere(kept, metric, supplies_response=answers)
            before = self.nowhere[metric.name]
            self.nowhere[metric.name] = (
                nowhere if before is None else [w for w in before if w in nowhere]
            )
            lacking = lacking_rows(kept, metric, supplies_response=answers)
            self.lacking[metric.name].update(lacking)
            self.lacking_at[metric.name] += [
                (start + i + 1, s.request_id) for i, s in enumerate(kept) if s.request_id in lacking
            ][: 10 - len(self.lacking_at[metric.name])]

    def finish(self, notes: list[str]) -> None:
        """Raise what :func:`~ragjudge.run._preparation.prepare` raises; add its notes."""
        if self.key is not None and not self.found_key:
            shown = ", ".join(sorted(self.keys)[:20]) or "none"
            raise ConfigError(
                f"by: no sample has the metadata key {self.key!r}; keys in the data: {shown}"
            )
        check_filled(self.metrics, self.filled)
        if self.skip:
            self._finish_skipping(notes)
            return
        problems: list[str] = []
        for metric in self.metrics:
            if (problem := metric.check_target(self.target)) is not None:
                problems.append(problem)
            for requirement in metric.requires:
                count, first = self.missing.get((metric.name, requirement), (0, []))
                if count:
                    rows = ", ".join(f"row {row} ({rid})" for row, rid in first)
                    more = f" and {count - 20} more" if count > 20 else ""
                    wanted = " or ".join(repr(a) for a in requirement.split("|"))
                    problems.append(
                        f"metric {metric.name!r} needs {wanted}; missing in {count} of "
                        f"{self.total} rows: {rows}{more}"
                    )
        if problems:
            raise RequirementError(problems)

    def _finish_skipping(self, notes: list[str]) -> None:
        dropped, first = self.dropped
        if dropped:
            notes.append(
                f"skipped {dropped} row(s) with no response: {_positions_text(first, dropped)}"
            )
        if not self.kept:
            raise RequirementError(["no row holds a response (and no target gives one)"])
        problems = [p for m in self.metrics if (p := m.check_target(self.target)) is not None]
        for metric in self.metrics:
            if nowhere := self.nowhere[metric.name]:
                problems += [f"metric {metric.name!r} needs {w}; no row has it" for w in nowhere]
                continue
            lacking = self.lacking[metric.name]
            if lacking:
                reasons = sorted(set(lacking.values()))
                notes.append(
                    f"metric {metric.name!r} is not applicable to {len(lacking)} of {self.kept} "
                    f"rows ({'; '.join(reasons)}): "
                    + _positions_text(self.lacking_at[metric.name], len(lacking))
                )
                skip_rows_lacking_inputs(metric, lacking)
        if problems:
            raise RequirementError(problems, hint=False)


def _positions_text(first: list[tuple[int, str]], count: int) -> str:
    """Rows named as :func:`~ragjudge.run._preparation.prepare` names them: the first ten
    (given) of ``count``."""
    shown = ", ".join(f"row {row} ({rid})" for row, rid in first[:10])
    return shown + (f" and {count - 10} more" if count > 10 else "")
