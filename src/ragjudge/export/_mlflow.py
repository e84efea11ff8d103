"""Logging a stored run to MLflow (the ``mlflow`` extra): where teams that use
``mlflow.evaluate(model_type="databricks-agent")`` look for their results.

One MLflow run per ragjudge run, holding:

- params: the run's config (one param per top-level key, JSON text), the judge model
  (as its calls name it) and the dataset digest (SHA-256 of the run's samples), the
  number of samples and trials;
- metrics: each score's aggregate, named as Databricks names them — ``NAME/percentage``
  for a yes/no score (the share of yes, 0–1; safety's is ``…/rating/average``),
  ``NAME/average`` for any other (see :func:`ragjudge.export._databricks_table.aggregate_name`)
  — and the bounds of its bootstrap 95% interval as ``NAME/ci_low`` and ``NAME/ci_high``;
- the per-row table with Databricks' columns (``ragjudge export --layout databricks``,
  :mod:`ragjudge.export._databricks_table`) as the table artifact
  ``eval_results.json`` (read it with ``mlflow.load_table("eval_results.json", ...)``);
- the config and the summary as JSON artifacts under ``ragjudge/``, and the HTML report
  when one is given;
- tags: ``ragjudge.run_id`` (a run is logged once: a second export names the MLflow run
  that already holds it), ``ragjudge.status``, ``ragjudge.version``;
- one trace per row with its scores as feedback assessments, and the evaluation set as
  the run's dataset input (:mod:`ragjudge.export._mlflow_rows`).

The MLflow run is the active one when a run is open in this process on the same
tracking server (left open), as ``mlflow.evaluate`` chooses, else a new one (ended);
see :func:`target_run`.

The tracking URI is ``tracking_uri`` when given, else ``MLFLOW_TRACKING_URI``, else
MLflow's own default (a local store in the current folder).
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ragjudge._util.known_secrets import mask_secrets_in
from ragjudge._version import __version__
from ragjudge.analysis._results import EvaluationResult, summarize_run
from ragjudge.analysis._series import series_step
from ragjudge.errors import ExportError
from ragjudge.export._databricks_table import aggregate_name, databricks_table
from ragjudge.export._mlflow_rows import log_rows
from ragjudge.schema import ScoreMeaning
from ragjudge.store._store import RunInfo, Store

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "EVAL_RESULTS",
    "MlflowExportError",
    "MlflowRun",
    "export_to_mlflow",
    "log_to_mlflow",
    "metric_values",
    "mlflow_name",
]

EVAL_RESULTS = "eval_results.json"
"""The artifact file of the per-row table."""
RUN_ID_TAG = "ragjudge.run_id"
DEFAULT_EXPERIMENT = "ragjudge"
_STATUS = {"completed": "FINISHED", "failed": "FAILED"}
_PARAM_LIMIT = 6000  # MLflow's longest param value
_NAME_LIMIT = 250  # MLflow's longest metric or param name
_BAD_CHARACTERS = re.compile(r"[^/\w.\- :]")


class MlflowExportError(ExportError, RuntimeError):
    """The run cannot be logged: MLflow is not installed, or the run is already there."""


@dataclass(frozen=True)
class MlflowRun:
    """Where a ragjudge run was logged."""

    run_id: str
    experiment_id: str
    tracking_uri: str
    metrics: dict[str, float]
    traces: int = 0
    """How many row traces carry the run's assessments."""


def log_to_mlflow(
    result: EvaluationResult,
    *,
    tracking_uri: str | None = None,
    experiment: str | None = None,
    report: str | Path | None = None,
) -> MlflowRun:
    """Log the run of ``result`` (what :func:`ragjudge.evaluate` returned) to MLflow:
    one MLflow run with params, aggregate metrics and their CI bounds, the per-row
    ``eval_results`` table and ``report`` (an HTML report) when given."""
    with Store(result.store_path) as store:
        return export_to_mlflow(
            store, result.run_id, tracking_uri=tracking_uri, experiment=experiment, report=report
        )


def export_to_mlflow(
    store: Store,
    run_id: str,
    *,
    tracking_uri: str | None = None,
    experiment: str | None = None,
    report: str | Path | None = None,
) -> MlflowRun:
    """Log stored run ``run_id`` (a unique prefix will do) to MLflow; see the module
    docstring for what is logged. :class:`MlflowExportError` when MLflow is missing,
    the run was logged already, ``report`` is not there, or MLflow itself fails (a bad
    tracking URI, a tracking store it cannot write)."""
    run = store.run(run_id)
    if report is not None and not Path(report).is_file():
        raise MlflowExportError(f"no report at {report}")
    with _mlflow_failures():
        return _log_run(store, run, tracking_uri, experiment, report)


@contextmanager
def _mlflow_failures() -> Iterator[None]:
    """MLflow's own errors, and files it cannot write, as :class:`MlflowExportError`."""
    try:
        yield
    except Exception as exc:
        if not (isinstance(exc, OSError) or type(exc).__module__.startswith("mlflow")):
            raise
        raise MlflowExportError(f"MLflow: {exc}") from exc


def _log_run(
    store: Store,
    run: RunInfo,
    tracking_uri: str | None,
    experiment: str | None,
    report: str | Path | None,
) -> MlflowRun:
    """The MLflow run holding ``run``, made (or the active one) and filled."""
    client = _client(tracking_uri)
    summary = summarize_run(store, run.run_id)
    metrics = metric_values(summary)
    tags = {
        RUN_ID_TAG: run.run_id,
        "ragjudge.status": run.status,
        "ragjudge.version": __version__,
    }
    target = target_run(client, run, experiment or run.name or DEFAULT_EXPERIMENT, tags)
    try:
        # what the store holds has its secrets masked; so has what this process knows of
        params = mask_secrets_in(_params(run, store))
        at = (_milliseconds(run.created_at), series_step(store, run))
        _log_values(client, target.run_id, params, metrics, at)
        client.log_table(target.run_id, data=_table(store, run), artifact_file=EVAL_RESULTS)
        client.log_dict(target.run_id, mask_secrets_in(run.config), "ragjudge/config.json")
        client.log_dict(target.run_id, mask_secrets_in(summary.to_dict()), "ragjudge/summary.json")
        if report is not None:
            client.log_artifact(target.run_id, str(report))
        digest = dataset_digest(store, run.run_id)
        rows = log_rows(client, store, run, (target.run_id, target.experiment_id), digest)
    except BaseException:
        if target.owned:
            client.set_terminated(target.run_id, "FAILED")
        raise
    if target.owned:
        status = _STATUS.get(run.status, "KILLED")
        client.set_terminated(target.run_id, status, end_time=_milliseconds(run.finished_at))
    uri = str(client.tracking_uri)
    return MlflowRun(target.run_id, target.experiment_id, uri, metrics, len(rows.trace_ids))


@dataclass(frozen=True)
class _Target:
    run_id: str
    experiment_id: str
    owned: bool
    """Whether the export made the run (and ends it), rather than an active run."""


def target_run(client: Any, run: RunInfo, experiment: str, tags: dict[str, str]) -> _Target:
    """Where ``run`` is logged, as ``mlflow.evaluate`` chooses: into the active MLflow
    run when one is open on the same tracking server, else into a new run of
    ``experiment``. An active run that already holds a ragjudge run gets a nested run
    for this one (its params would clash)."""
    active = _active_run(client)
    if active is not None and RUN_ID_TAG not in active.data.tags:
        for key, value in tags.items():
            client.set_tag(active.info.run_id, key, value)
        return _Target(active.info.run_id, active.info.experiment_id, owned=False)
    if active is not None:
        experiment_id = str(active.info.experiment_id)
        tags = tags | {"mlflow.parentRunId": active.info.run_id}
    else:
        experiment_id = _experiment_id(client, experiment)
    _refuse_a_second_export(client, experiment_id, run.run_id)
    created = client.create_run(
        experiment_id,
        start_time=_milliseconds(run.created_at),
        run_name=run.name or run.run_id,
        tags=tags,
    )
    return _Target(created.info.run_id, experiment_id, owned=True)


def _active_run(client: Any) -> Any:
    """MLflow's active run, when one is open on ``client``'s tracking server."""
    import mlflow

    active = mlflow.active_run()
    if active is None or mlflow.get_tracking_uri() != str(client.tracking_uri):
        return None
    return client.get_run(active.info.run_id)


def metric_values(result: EvaluationResult) -> dict[str, float]:
    """Each score's aggregate as MLflow metrics: ``NAME/percentage`` or
    ``NAME/average`` as Databricks names them (:func:`aggregate_name`), ``NAME/ci_low`` and
    ``NAME/ci_high``; a score without a mean (no value at all) logs nothing. A named
    judge's score is ``METRIC/JUDGE`` (``faithfulness/big/average``), so MLflow lists a
    metric's judges together."""
    values: dict[str, float] = {}
    for s in result.summaries:
        if s.mean is None:
            continue
        meaning = result.meanings.get(s.metric, ScoreMeaning())
        judged = meaning.judge is not None and meaning.metric is not None
        name = mlflow_name(f"{meaning.metric}/{meaning.judge}" if judged else s.metric)
        values[aggregate_name(name, meaning)] = float(s.mean)
        if s.ci is not None:
            values[f"{name}/ci_low"] = float(s.ci.low)
            values[f"{name}/ci_high"] = float(s.ci.high)
    return values


def mlflow_name(name: str) -> str:
    """``name`` as MLflow accepts a metric name: characters other than letters, digits,
    ``_ - . : /`` and spaces become ``_``, and no path segment is empty, ``.`` or
    ``..``. Databricks' names pass unchanged."""
    cleaned = _BAD_CHARACTERS.sub("_", name)
    parts = [p if p.strip(".") else "_" for p in cleaned.split("/")]
    joined = "/".join(parts)
    if len(joined) <= _NAME_LIMIT - len("/percentage"):
        return joined
    digest = hashlib.sha256(name.encode("utf-8")).hexdigest()[:8]
    return f"{joined[: _NAME_LIMIT - len('/percentage') - 9]}~{digest}"


# MLflow ----------------------------------------------------------------------------


def _client(tracking_uri: str | None) -> Any:
    try:
        from mlflow.tracking import MlflowClient
    except ImportError:
        raise MlflowExportError(
            "MLflow is not installed; install the extra: pip install 'ragjudge[mlflow]'"
        ) from None
    return MlflowClient(tracking_uri=tracking_uri)


def _experiment_id(client: Any, name: str) -> str:
    found = client.get_experiment_by_name(name)
    if found is not None:
        return str(found.experiment_id)
    return str(client.create_experiment(name))


def _refuse_a_second_export(client: Any, experiment_id: str, run_id: str) -> None:
    logged = client.search_runs([experiment_id], filter_string=f"tags.`{RUN_ID_TAG}` = '{run_id}'")
    if logged:
        raise MlflowExportError(
            f"run {run_id} is already logged to MLflow as run {logged[0].info.run_id} "
            f"(experiment {experiment_id}); delete that MLflow run to log it again"
        )


def _log_values(
    client: Any,
    run_id: str,
    params: dict[str, str],
    metrics: dict[str, float],
    at: tuple[int, int],
) -> None:
    """Log the params, and the metrics at ``at``: the run's start (milliseconds) and its
    step in its series of incremental runs (0 outside one), so MLflow draws a series'
    metrics over time."""
    from mlflow.entities import Metric, Param

    stamp, step = at
    param_list = [Param(k, v) for k, v in params.items()]
    metric_list = [Metric(k, v, stamp, step) for k, v in metrics.items()]
    for start in range(0, len(param_list), 100):
        client.log_batch(run_id, params=param_list[start : start + 100])
    for start in range(0, len(metric_list), 1000):
        client.log_batch(run_id, metrics=metric_list[start : start + 1000])


# what is logged ----------------------------------------------------------------------


def _params(run: RunInfo, store: Store) -> dict[str, str]:
    """The config, one param per top-level key, with the judge and the dataset digest."""
    params = {
        "judge_model": judge_models(store, run),
        "dataset_digest": dataset_digest(store, run.run_id),
        "n_samples": str(run.n_samples),
        "trials": str(run.trials),
    }
    for key, value in run.config.items():
        if value is None or key == "base_dir":
            continue
        text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
        params[mlflow_name(f"config.{key}")] = _fit(text)
    return params


def judge_models(store: Store, run: RunInfo) -> str:
    """The models that judged the run (``provider/model`` of its judge calls), else the
    configured judge, else ``none``."""
    calls = store.judge_calls(run.run_id)
    if len(calls):
        used = sorted({f"{p}/{m}" for p, m in zip(calls["provider"], calls["model"], strict=True)})
        return ", ".join(used)
    judge = run.config.get("judge")
    return str(judge["model"]) if isinstance(judge, dict) and judge.get("model") else "none"


def dataset_digest(store: Store, run_id: str) -> str:
    """SHA-256 of the run's samples (their stored JSON, in order): the same evaluation
    set gives the same digest."""
    digest = hashlib.sha256()
    for sample in store.samples(run_id):
        digest.update(sample.model_dump_json().encode("utf-8"))
        digest.update(b"\n")
    return digest.hexdigest()


def _fit(text: str) -> str:
    """A param value within MLflow's length limit (the full config is an artifact)."""
    return text if len(text) <= _PARAM_LIMIT else text[: _PARAM_LIMIT - 1] + "…"


def _table(store: Store, run: RunInfo) -> pd.DataFrame:
    """The per-row table with Databricks' columns (``ragjudge export --layout
    databricks``)."""
    return databricks_table(store, run)


def _milliseconds(stamp: str | None) -> int:
    moment = datetime.fromisoformat(stamp) if stamp else datetime.now().astimezone()
    return int(moment.timestamp() * 1000)
