"""The outcome of a run, aggregated from the store: per-metric mean, confidence
interval, n, errors and excluded values, per subset, with judge and target usage."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ragjudge.analysis._calibrated import CalibratedEstimate, calibrated_estimates
from ragjudge.analysis._columns import ColumnSummary, UnknownKeyError, summarize_columns
from ragjudge.analysis._drift import DriftReport, judge_drift
from ragjudge.analysis._gates import GateResult
from ragjudge.analysis._judges import JudgeGroup, judge_groups, run_has_judges
from ragjudge.analysis._meanings import exclusions, run_meanings, trial_reducers
from ragjudge.analysis._outcome import ErrorGroup, Verdict, error_groups, run_verdict
from ragjudge.analysis._pass_columns import sample_labels, subset_pass_rates, with_pass_rates
from ragjudge.analysis._passes import PassRate, pass_rates, run_passes
from ragjudge.analysis._rate_limits import RateLimitEvents, stored_rate_limits
from ragjudge.analysis._status import status_of
from ragjudge.schema import ScoreMeaning
from ragjudge.stats import MetricSummary, summarize_by, summarize_scores, summary_frame
from ragjudge.stats._reducers import TrialReducer
from ragjudge.store._events import NOTE
from ragjudge.store._store import RunStatus, Store

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["EvaluationResult", "summarize_run"]


@dataclass
class EvaluationResult:
    """The outcome of a run: its id, where it is stored, and the per-metric summary."""

    run_id: str
    store_path: Path
    status: RunStatus
    summaries: list[MetricSummary]
    n_samples: int
    trials: int
    by: str | None = None
    subsets: dict[str, list[MetricSummary]] = field(default_factory=dict)
    judge_usage: list[dict[str, Any]] = field(default_factory=list)
    """Judge calls, cached calls, tokens, cost and errors per metric."""
    target_usage: dict[str, Any] = field(default_factory=dict)
    meanings: dict[str, ScoreMeaning] = field(default_factory=dict)
    """What each score means (direction, range, values left out of the mean)."""
    errors: list[ErrorGroup] = field(default_factory=list)
    """Each metric's errors grouped by cause, with a count and one example."""
    max_error_rate: float = 0.0
    """The share of a metric's results that may fail before the run counts as failed."""
    judge: str | None = None
    """The judge model spec and the endpoint that judged the run (no credentials)."""
    stability: list[dict[str, Any]] = field(default_factory=list)
    """With several trials: each metric's stability (see :mod:`ragjudge.analysis._stability`)."""
    repro: list[dict[str, Any]] = field(default_factory=list)
    """With several trials: each sample's values over the trials, per score (see
    :mod:`ragjudge.analysis._repro`)."""
    notes: list[str] = field(default_factory=list)
    """What reading the evaluation set decided: the format assumed, columns no field
    took, rows skipped or not applicable."""
    rate_limits: list[RateLimitEvents] = field(default_factory=list)
    """The judge endpoints' 429 answers, pauses and retries (per limiter)."""
    judges: list[JudgeGroup] = field(default_factory=list)
    """With several named judges: per metric, each judge's score and how well the
    judges agree (see :mod:`ragjudge.analysis._judges`)."""
    report_path: Path | None = None
    """The HTML report written when the run ended (``report: true``), if any."""
    report_error: str | None = None
    """Why the configured HTML report could not be written."""
    anchors: DriftReport | None = None
    """Each judge's verdicts on the run's anchor samples against the expected ones and
    the reference run's (None: the run names no anchors)."""
    gates: list[GateResult] = field(default_factory=list)
    pass_rates: list[PassRate] = field(default_factory=list)
    """Per score with a per-sample pass (a ``threshold``, or a yes/no score): how many
    samples passed, failed or were not scored, and the pass rate with its interval."""
    """The quality gates (``fail_under``, ``fail_over``) checked on this result by
    :func:`ragjudge.evaluate`, each with whether it held and why."""
    report_writer: Callable[[EvaluationResult, Path | None], Path] | None = field(
        default=None, repr=False, compare=False
    )
    """What :meth:`report` writes with: set by the runner (the HTML report lives in a
    package above this one)."""

    def report(self, path: str | Path | None = None) -> Path:
        """Write this run's HTML report to ``path`` (default ``reports/RUN.html``
        beside the store, as ``ragjudge report`` does) and return where it went.
        Raises :class:`ragjudge.report.ReportError` when the file cannot be written."""
        if self.report_writer is None:
            raise RuntimeError(
                "this result was not returned by evaluate(); write its report with "
                "ragjudge.report.write_run_report(store, run_id)"
            )
        self.report_path = self.report_writer(self, None if path is None else Path(path))
        return self.report_path

    def _repr_html_(self) -> str:
        """The summary as an HTML table (shown by Jupyter and other notebooks)."""
        from ragjudge.analysis._notebook import result_html

        return result_html(self)

    @property
    def verdict(self) -> Verdict:
        """Whether every score arrived: the exit code of ``ragjudge run`` and why."""
        return run_verdict(self.summaries, max_error_rate=self.max_error_rate)

    def summary(self, by: str | None = None) -> pd.DataFrame:
        """One row per metric: mean, 95% CI, n, errors, excluded values, trial spread,
        and for a score with a per-sample pass (a ``threshold``, or a yes/no score) the
        share of samples passing it, ``pass_rate``, with its 95% interval
        ``pass_ci_low``/``pass_ci_high`` (NaN for the other scores).

        With ``by`` (a metadata key, ``lang`` or ``metadata.lang``), the same rows per
        subset too: a first column named after the key holds ``(all)`` for the overall
        rows and the subset's value for the others."""
        if by is None:
            return with_pass_rates(summary_frame(self.summaries), self.pass_rates)
        import pandas as pd

        subsets = self.subsets if _same_key(by, self.by) else self._subsets_by(by)
        rates = self._subset_pass_rates(by) if self.pass_rates else {}
        column = by.removeprefix("metadata.")
        parts = [("(all)", self.summaries), *subsets.items()]
        frames = [
            with_pass_rates(
                summary_frame(summaries),
                self.pass_rates if group == "(all)" else rates.get(group, []),
            ).assign(**{column: group})
            for group, summaries in parts
        ]
        frame = pd.concat(frames, ignore_index=True)
        return frame[[column, *(c for c in frame.columns if c != column)]]

    def _subset_pass_rates(self, by: str) -> dict[str, list[PassRate]]:
        with Store(self.store_path) as store:
            passes = run_passes(store, self.run_id, self.meanings)
            seed = int(store.run(self.run_id).config.get("seed", 0))
            labels = sample_labels(store.score_frame(self.run_id), by)
        return subset_pass_rates(passes, labels, self.meanings, seed=seed)

    def _subsets_by(self, by: str) -> dict[str, list[MetricSummary]]:
        with Store(self.store_path) as store:
            return summarize_run(store, self.run_id, by=by).subsets

    def calibrated(self, confidence: float = 0.95) -> dict[str, CalibratedEstimate]:
        """Each score people labelled (in the store, e.g. with ``ragjudge view RUN
        --label`` or ``ragjudge labels import``), with its mean calibrated to their
        labels: the power-tuned prediction-powered estimate (``.best``, with its
        interval at ``confidence``), the labels it used and those left out because
        they were not drawn at random, and how many labels alone it is worth
        (``.worth``). Empty when the run has no labels; read afresh on every call."""
        with Store(self.store_path) as store:
            return calibrated_estimates(store, self.run_id, self.meanings, confidence=confidence)

    def to_pandas(self) -> pd.DataFrame:
        """One row per sample and trial, with every metric's value, error and rationale
        (and ``METRIC.left_out`` for values a mean leaves out, ``METRIC.passed`` for
        scores with a threshold or yes/no)."""
        with Store(self.store_path) as store:
            return store.sample_frame(self.run_id, exclusions(self.meanings), self.meanings)

    def passed(self, metric: str) -> dict[str, bool | None]:
        """Whether each sample passed ``metric``'s threshold, by request id (None: its
        score errored, did not apply, or was left out of the mean). A ``KeyError``
        names the scores that have a pass when ``metric`` has none."""
        with Store(self.store_path) as store:
            passes = run_passes(store, self.run_id, self.meanings)
        if metric not in passes:
            known = ", ".join(passes) or "none"
            raise KeyError(
                f"{metric!r} has no per-sample pass (give it a 'threshold'); scores with "
                f"one: {known}"
            )
        return passes[metric]

    def to_dict(self) -> dict[str, Any]:
        """The JSON form printed by ``ragjudge run --json`` (with ``judges`` when the
        run had several named judges)."""
        found = {
            "run_id": self.run_id,
            "store": str(self.store_path),
            "status": self.status,
            "n_samples": self.n_samples,
            "trials": self.trials,
            "metrics": [self._summary_dict(s) for s in self.summaries],
            "by": self.by,
            "subsets": {
                group: [self._summary_dict(s) for s in summaries]
                for group, summaries in self.subsets.items()
            },
            "judge_usage": self.judge_usage,
            "target_usage": self.target_usage,
            "errors_by_cause": [group.to_dict() for group in self.errors],
            "judge": self.judge,
            "stability": self.stability,
            "repro": self.repro,
            "notes": self.notes,
            "rate_limits": [events.to_dict() for events in self.rate_limits],
            "report": None if self.report_path is None else str(self.report_path),
            "exit_code": self.verdict.exit_code,
            "exit_reasons": self.verdict.reasons,
            "anchors": None if self.anchors is None else self.anchors.to_dict(),
            "pass_rates": [rate.to_dict() for rate in self.pass_rates],
        }
        if self.judges:
            found["judges"] = [group.to_dict() for group in self.judges]
        return found

    def _summary_dict(self, s: MetricSummary) -> dict[str, Any]:
        meaning = self.meanings.get(s.metric)
        return {
            "metric": s.metric,
            "mean": s.mean,
            "ci95": None if s.ci is None else [s.ci.low, s.ci.high],
            "n": s.n,
            "errors": s.errors,
            "skipped": s.skipped,
            "excluded": s.excluded,
            "excluded_share": s.excluded_share,
            "mean_all": s.mean_all,
            "trials": s.trials,
            "trials_reduce": s.reduce,
            "trial_sd": s.trial_sd,
            "trial_agreement": s.trial_agreement,
            "meaning": None if meaning is None else meaning.model_dump(mode="json"),
        }


def summarize_run(
    store: Store, run_id: str, *, by: str | None = None, seed: int | None = None
) -> EvaluationResult:
    """Aggregate a stored run: per-metric mean, CI, n, errors, and per-subset tables.

    The values each mean leaves out come from the meanings stored with the run; the
    bootstrap ``seed`` defaults to the run's own, so a stored run shows the intervals
    it ran with. An unknown ``by`` key is a :class:`ConfigError`.

    The scores are read a page at a time into numeric columns (see
    :mod:`ragjudge.analysis._columns`): besides one page, memory grows by 8 bytes per
    sample and metric (16 when a metric leaves values out of its mean, 24 with several
    trials; twice that while an array grows, again as much per subset with ``by``).
    Runs with several trials read the whole score frame once more for their stability
    and reproducibility tables.
    """
    run = store.run(run_id)
    meanings = run_meanings(run)
    exclude = exclusions(meanings)
    reducers = trial_reducers(meanings)
    if seed is None:
        seed = int(run.config.get("seed", 0))
    if by in _FRAME_COLUMNS:
        read = frame_summary(
            store, run.run_id, exclude=exclude, seed=seed, by=by, reducers=reducers
        )
    else:
        try:
            read = summarize_columns(
                store, run.run_id, exclude=exclude, seed=seed, by=by, reducers=reducers
            )
        except UnknownKeyError:
            from ragjudge.config._eval import ConfigError  # the config layer loads the judge models

            raise ConfigError(f"--by {by!r}: no sample has that metadata key") from None
    scored = bool(read.summaries)
    summaries = _with_skipped(read.summaries, store.skipped_counts(run.run_id))
    max_error_rate = float(run.config.get("max_error_rate") or 0.0)
    return EvaluationResult(
        run_id=run.run_id,
        store_path=store.path,
        status=status_of(run.status, summaries, max_error_rate),
        summaries=summaries,
        n_samples=run.n_samples,
        trials=run.trials,
        by=by,
        subsets=read.subsets,
        judge_usage=store.judge_usage(run.run_id),
        target_usage=store.target_usage(run.run_id),
        meanings=meanings,
        errors=read.errors,
        max_error_rate=max_error_rate,
        judge=_judge_of(run.config),
        stability=_stability(store, run.run_id, seed) if run.trials > 1 and scored else [],
        repro=_repro(store, run.run_id) if run.trials > 1 and scored else [],
        notes=[str(event["text"]) for event in store.run_events(run.run_id, NOTE)],
        rate_limits=stored_rate_limits(store, run.run_id),
        anchors=judge_drift(store, run),
        judges=(
            judge_groups(store, run.run_id, meanings, summaries, seed=seed)
            if run_has_judges(meanings)
            else []
        ),
        pass_rates=pass_rates(run_passes(store, run.run_id, meanings), meanings, seed=seed),
    )


_FRAME_COLUMNS = frozenset({"sample_id", "trial", "metric", "value", "error"})
"""Columns of the score frame that ``by`` may also name (grouping by them is only
done from the frame)."""


def frame_summary(
    store: Store,
    run_id: str,
    *,
    exclude: Mapping[str, Sequence[float]],
    seed: int,
    by: str | None = None,
    reducers: Mapping[str, TrialReducer] | None = None,
) -> ColumnSummary:
    """The same summary computed from the run's whole score frame (pandas): what
    :func:`summarize_run` computed before it read columns, kept for ``by`` naming a
    frame column and as the reference the column reads are checked against."""
    frame = store.score_frame(run_id)
    if not len(frame):
        return ColumnSummary([])
    subsets: dict[str, list[MetricSummary]] = {}
    if by is not None:
        column = by if by in frame.columns else f"metadata.{by}"
        if column not in frame.columns:
            raise UnknownKeyError(by)
        subsets = summarize_by(frame, column, exclude=exclude, seed=seed, reducers=reducers)
    summaries = summarize_scores(frame, exclude=exclude, seed=seed, reducers=reducers)
    return ColumnSummary(summaries, subsets, error_groups(frame))


def _same_key(a: str, b: str | None) -> bool:
    return b is not None and a.removeprefix("metadata.") == b.removeprefix("metadata.")


def _stability(store: Store, run_id: str, seed: int) -> list[dict[str, Any]]:
    from ragjudge.analysis._stability import stability_for_run

    return [row.to_dict() for row in stability_for_run(store, run_id, seed=seed).rows]


def _repro(store: Store, run_id: str) -> list[dict[str, Any]]:
    from ragjudge.analysis._repro import repro_for_run

    return [row.to_dict() for row in repro_for_run(store, run_id).rows]


def _with_skipped(summaries: list[MetricSummary], skipped: dict[str, int]) -> list[MetricSummary]:
    """The summaries with each metric's not-applicable count; a metric that applied to
    no sample gets a summary of its own (no mean, nothing failed)."""
    known = {s.metric for s in summaries}
    counted = [replace(s, skipped=skipped.get(s.metric, 0)) for s in summaries]
    alone = [
        MetricSummary(
            metric=metric,
            mean=None,
            ci=None,
            n=0,
            errors=0,
            excluded=0,
            mean_all=None,
            trials=0,
            trial_sd=None,
            trial_agreement=None,
            skipped=count,
        )
        for metric, count in skipped.items()
        if metric not in known
    ]
    return counted + alone


def _judge_of(config: dict[str, Any]) -> str | None:
    """``model at endpoint`` from a stored config, when the run had a judge."""
    judge = config.get("judge")
    if not isinstance(judge, dict) or not judge.get("model"):
        return None
    endpoint = judge.get("base_url")
    return f"{judge['model']} at {endpoint}" if endpoint else str(judge["model"])
