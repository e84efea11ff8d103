"""The evaluation configuration: what ``ragjudge run eval.yaml`` reads and what
``ragjudge.evaluate(...)`` builds from its arguments."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    PrivateAttr,
    field_validator,
    model_validator,
)

from ragjudge._util.redact import mask_record
from ragjudge.config._anchors import checked_anchor_rows, read_anchor_file
from ragjudge.config._data_settings import (
    checked_columns,
    checked_delimiter,
    checked_separators,
    checked_systems,
)
from ragjudge.config._judges import JUDGE_NAME as JUDGE_NAME
from ragjudge.config._judges import JudgeConfig as JudgeConfig
from ragjudge.config._judges import (
    check_judge_settings,
    checked_judge_names,
    judge_endpoint,
    judge_from_spec,
    judges_from_specs,
)
from ragjudge.config._partitions import DataWhere, SamplePer
from ragjudge.config._presets import expand_presets
from ragjudge.config._ray import RayConfig
from ragjudge.config._record import restore_references
from ragjudge.config._results_table import ResultsTable
from ragjudge.config._sections import KnowledgeBaseConfig as KnowledgeBaseConfig
from ragjudge.config._sections import OpenAIEvalsConfig, ReportConfig, TargetConfig
from ragjudge.config._trials import MAX_TRIALS, check_trial_rows, check_trials_reduce
from ragjudge.errors import ConfigError as ConfigError
from ragjudge.loading import MAX_FIELD_BYTES
from ragjudge.schema import TrialsReduce, TrialsReduceMethod

MAX_CONCURRENCY = 1000
"""The most samples a run may have in flight at once."""
MAX_PROCESSES = 1024
"""The most processes a run may score in."""

EnvReferences = dict[tuple[str | int, ...], tuple[str, str]]
"""Per place in a config mapping (its path of keys and list indexes), a string that
used ``${VAR}``: as written and as expanded."""


class EvalConfig(BaseModel):
    """One evaluation: every setting of an evaluation YAML file, of
    :func:`ragjudge.evaluate`'s keyword arguments and of ``ragjudge run``'s setting
    options, declared once here. Relative paths are resolved against ``base_dir`` (the
    folder of the YAML file).

    The first paragraph of each setting's description is its help text on the command
    line and in the API's documentation (see :mod:`ragjudge.config._surface`)."""

    model_config = ConfigDict(extra="forbid", use_attribute_docstrings=True)

    name: str | None = None
    """A name for the run, shown in the run list."""
    data: str | None = None
    """The evaluation set: a .jsonl, .json, .csv or .parquet file, a folder of Parquet
    files (read page by page), or the traces of an MLflow experiment
    (mlflow:EXPERIMENT?tracking_uri=...&filter=...&max_results=N)."""
    format: str | None = None
    """The layout of the data (ragas, deepeval, openai-evals …, or exported traces:
    otlp, langfuse, langsmith); guessed from the column names (from the content for
    traces) when not given."""
    columns: Annotated[dict[str, str], BeforeValidator(checked_columns)] = Field(
        default_factory=dict
    )
    """Sample field → the column of the data holding it, for layouts no built-in format
    knows.

    ``column.key`` reads a key of a JSON-object column."""
    delimiter: Annotated[str | None, BeforeValidator(checked_delimiter)] = None
    """The character between the cells of a delimited text file (a tab for .tsv and a
    comma for .csv unless given); with it, a file of another extension (.txt) is read as
    delimited text."""
    separators: Annotated[dict[str, str], BeforeValidator(checked_separators)] = Field(
        default_factory=dict
    )
    """Fields whose several values are packed in one text cell, and the text between
    them: ``{expected_response: "/"}`` reads ``A/B/C`` as three references."""
    systems: dict[str, str] = Field(default_factory=dict)
    """A wide file with one response column per system: system name → its column; one
    run per system, named RUN-NAME/SYSTEM, with the same sample ids for compare.

    ``{gpt4o: response_gpt4o, llama: response_llama}``. Rows are identified by the id
    column, or by their row number when there is none."""
    skip_invalid_rows: bool = False
    """Score what can be scored: leave out rows that cannot be read, and rows lacking a
    metric's inputs for that metric; report both."""
    max_field_bytes: int = Field(default=MAX_FIELD_BYTES, ge=1)
    """The most bytes of text (UTF-8) one field of a data row may hold; a longer field
    makes its row a problem, named with the file, row and field.

    A list or object (contexts, a trace) counts all the text in it. JSON Lines files
    are read a line at a time, so a long field is refused without the file in memory."""
    target: TargetConfig | None = None
    """The system under test: ``module:function``, ``path/to/app.py:function``,
    ``data`` (the responses are in the data) or a mapping for an HTTP endpoint."""
    metrics: list[str | dict[str, Any]] = Field(default_factory=list)
    """The metrics: names, mappings of a name (``metric:``) and its options, or
    ``preset: NAME`` for a named set of metrics chosen for a common case."""
    specs: list[str] = Field(default_factory=list)
    """Folders of model-graded classification specs (YAML), besides the built-in ones."""
    openai_evals: OpenAIEvalsConfig | None = None
    """An eval of an openai-evals registry to run instead of ``data``: ``{registry:
    FOLDER, eval: NAME}``."""
    knowledge_base: KnowledgeBaseConfig | None = None
    """The documents the evaluation contexts are retrieved from: a folder, a JSONL file
    or a mapping of its settings."""
    retriever: dict[str, Any] | None = None
    """The evaluation contexts from the system's own search endpoint instead of a
    knowledge base.

    ``{kind: http, url: ..., results_path: results, ...}``, also accepted as
    ``knowledge_base: {retriever: {kind: http, ...}}``."""
    judge: JudgeConfig | None = None
    """The judge model: a spec such as ``openai/gpt-4o-mini`` or a mapping of its
    settings (model, base_url, rpm, tpm, prices …)."""
    judges: dict[str, JudgeConfig] | None = None
    """Several judge models, by name, instead of ``judge``: every judged metric runs
    under each (scores ``NAME@JUDGE``), or under those its ``judges`` option names.

    ``{mini: openai/gpt-4o-mini, big: {model: openai/gpt-4o, base_url: ...}}``; each
    judge has its own endpoint, limits and prices. The first judge listed is the run's
    primary judge (agents' models and embeddings use its settings)."""
    cache: bool | str = True
    """The judge reply cache: true (``cache.db`` beside the store), false, or a file."""
    trials: int = Field(default=1, ge=1, le=MAX_TRIALS)
    """Score every sample this many times (to measure how stable the scores are).

    At most 1,000, and at most 1,000,000 rows × trials when there are several."""
    trials_reduce: TrialsReduceMethod = "mean"
    """How each sample's trials become its one value before the summary averages over
    samples: ``mean``, ``mode`` (the commonest value), ``median``, ``max``,
    ``pass_at_k`` (the chance that at least one of ``trials_reduce_k`` trials passes,
    estimated from all of them) or ``at_least_k`` (1 when at least
    ``trials_reduce_k`` trials pass).

    For every metric; a metric's own ``reduce`` key overrides it."""
    trials_reduce_k: int | None = Field(default=None, ge=1)
    """The k of ``trials_reduce: pass_at_k`` or ``at_least_k`` (at most ``trials``)."""
    trials_pass_threshold: float | None = None
    """The value a trial reaches to pass, for ``pass_at_k`` and ``at_least_k`` (a yes/no
    score passes on yes without it)."""
    concurrency: int = Field(default=8, ge=1, le=MAX_CONCURRENCY)
    """Samples in flight at once (at most 1,000). Unset: as many as the judge's calls
    keep busy (at least 8; a batched judge's batch_size), a target's calls 8 at a time."""
    processes: Annotated[int, Field(ge=1, le=MAX_PROCESSES)] | Literal["auto"] = "auto"
    """Processes that score CPU-only metrics of a large run and chunk a large knowledge
    base: ``auto`` scores in as many processes as there are CPUs other programs leave
    free (the CPUs less those busy when the run starts, at least 1) and chunks on every
    CPU; 1 keeps the work in this process.

    They are used when a run has at least 2,000 samples for CPU-only metrics (the
    lexical ones) and for a knowledge base of at least 4 M characters. Judge calls and
    targets always stay in the run's event loop."""
    max_error_rate: float = Field(default=0.0, ge=0.0, le=1.0)
    """Share of a metric's results that may fail before the run counts as failed (exit
    3); a metric with no value at all always fails it (exit 4)."""
    max_cost: float | None = Field(default=None, gt=0)
    """Stop the run before it spends more than this many dollars on judge calls.

    Checked before the start against the estimate (a run estimated above it does not
    start) and against the recorded cost as calls complete: the run then stops,
    is kept as interrupted with the cause and can be resumed. Calls are priced as the
    dry run prices them; a judge without a price cannot be held to a ceiling."""
    dry_run_target_rows: int = Field(default=5, ge=0)
    """Rows the dry run sends to the target, whose real answers size the judge prompts
    that show them (0: the target is not called and the estimate is a lower bound).

    The rows are spread over the set; a row not asked is sized by the nearest one asked."""
    limit: int | None = Field(default=None, ge=1)
    """Evaluate only the first N rows."""
    sample: int | None = Field(default=None, ge=1)
    """Evaluate N random rows, each subset of the breakdown (``by``) keeping its share."""
    sample_per: SamplePer = None
    data_where: DataWhere = None
    incremental: bool = False
    """Evaluate only the rows whose request id no earlier run of the same config has
    scored (the new rows of an appended log); the rows must carry their own ids.

    The same config: the same settings apart from the name, the data path, the row
    choice, the pace, the limits, the gates and the store (see
    ``docs/everyday.md#nightly-runs``)."""
    by: str | None = None
    """Break the summary down by a metadata key (``metadata.KEY`` or ``KEY``)."""
    store: str | None = None
    """The store file (default ``.ragjudge/runs.db`` beside the config)."""
    seed: int = 0
    """Seed of the random rows of ``sample`` and of the bootstrap confidence intervals."""
    report: ReportConfig | None = None
    """Write the run's HTML report when the run ends: true, a path (``{run}`` stands for
    the run id) or a mapping of its settings."""
    fail_under: dict[str, float] = Field(default_factory=dict)
    """Quality gates: a score and the value its mean (with gate ci, the low end of its
    95% CI) may not fall below, or ragjudge run exits 5; on the command line METRIC=VALUE,
    repeatable, adding to the config's gates or replacing its gate for that score.

    In the config a mapping, ``fail_under: {faithfulness: 0.8}``; the score is named as
    ``ragjudge show`` names it. NAME.passed gates the share of samples passing NAME's
    threshold: ``faithfulness.passed: 0.9``; NAME.calibrated its labels' estimate."""
    fail_over: dict[str, float] = Field(default_factory=dict)
    """Quality gates for scores where lower is better: a score and the value its mean
    (with gate ci, the high end of its 95% CI) may not exceed, or ragjudge run exits 5;
    on the command line METRIC=VALUE, as for fail_under."""
    gate: Literal["mean", "ci"] = "mean"
    """What the quality gates check: mean, or ci (the 95% confidence interval's
    conservative end, so a gate fails only when the evidence says the score is off)."""
    executor: Literal["local", "ray"] = "local"
    """Where samples are evaluated: ``local`` (this process) or ``ray`` (Ray workers)."""
    ray: RayConfig | None = None
    """The Ray cluster and batching settings for ``executor: ray``."""
    results_table: ResultsTable = None
    anchors: str | list[dict[str, Any]] | None = None
    """Anchor samples with the verdict each judge should give them: a file (.jsonl, .json
    or .csv, relative to the config) or a list of rows ``{request_id, metric, expected}``
    (optional ``tolerance``); show and the report flag a judge whose anchors moved.

    ``metric`` is a metric name (it covers each judge's score of it) or one score's
    name; ``expected`` is a number, or true/false for 1/0. The file is read with the
    config and its rows are kept with the run."""
    reference_run: str | None = None
    """The earlier run whose verdicts on the anchors this run's are compared with: its
    id (or a unique start or end of it) or ``previous`` (the run stored just before)."""
    base_dir: Path = Field(default_factory=Path.cwd)
    _env_references: EnvReferences = PrivateAttr(default_factory=dict)
    """Strings of the config file that used ``${VAR}`` (see :func:`load_config`)."""
    _source: Path | None = PrivateAttr(default=None)
    """The YAML file the config was read from (see :func:`load_config`)."""
    _system: str | None = PrivateAttr(default=None)

    @property
    def source(self) -> Path | None:
        """The YAML file the config was read from; None for one built in Python."""
        return self._source

    def where(self, key: str) -> str:
        """``key`` as an error message names it: after the config file, when there is one."""
        return key if self._source is None else f"{self._source}: {key}"

    @model_validator(mode="before")
    @classmethod
    def _retriever_under_knowledge_base(cls, data: Any) -> Any:
        """``knowledge_base: {retriever: {kind: http, url: ...}}`` (where the README
        describes the system's own search) is the top-level ``retriever``."""
        if not isinstance(data, dict):
            return data
        kb = data.get("knowledge_base")
        if not isinstance(kb, dict) or not isinstance(kb.get("retriever"), dict):
            return data
        if data.get("retriever") is not None:
            raise ValueError(
                "retriever: give the HTTP retriever once, under knowledge_base or at the top level"
            )
        kb = dict(kb)
        moved = {**data, "retriever": kb.pop("retriever")}
        moved["knowledge_base"] = kb or None
        return moved

    @model_validator(mode="after")
    def _settings_together(self) -> EvalConfig:
        """Settings that need, or exclude, each other."""
        if not self.metrics and self.openai_evals is None:
            raise ValueError("metrics: give at least one metric (or an openai_evals eval)")
        if self.openai_evals is not None and self.data is not None:
            raise ValueError("give 'data' or 'openai_evals' (whose samples are the data), not both")
        if self.limit is not None and self.sample is not None:
            raise ValueError(
                "give 'limit' (the first N rows) or 'sample' (N random rows), not both"
            )
        check_trials_reduce(self.trials_reduce, self.trials_reduce_k, self.trials_pass_threshold)
        return self

    @model_validator(mode="after")
    def _systems_settings(self) -> EvalConfig:
        kind = None if self.target is None else self.target.kind
        self.systems = checked_systems(self.systems, self.columns, kind)
        return self

    def system_configs(self) -> list[tuple[str, EvalConfig]]:
        """One config per system of ``systems``, each reading that system's column as
        the response and named ``NAME/SYSTEM`` (NAME: the run's name, or the data
        file's stem); ``[("", self)]`` when there are no systems."""
        if not self.systems:
            return [("", self)]
        base = self.name or (Path(self.data).stem if self.data else "run")
        configs: list[tuple[str, EvalConfig]] = []
        for system in self.systems:
            one = self.model_copy(update={"name": f"{base}/{system}"})
            one._system = system
            configs.append((system, one))
        return configs

    @property
    def system(self) -> str | None:
        """The system of ``systems`` this config evaluates (see :meth:`system_configs`)."""
        return self._system

    def trials_reduce_choice(self) -> TrialsReduce | None:
        """The config-wide reducer of the metrics' trials (None: the mean)."""
        if self.trials_reduce == "mean":
            return None
        return TrialsReduce(
            method=self.trials_reduce, k=self.trials_reduce_k, threshold=self.trials_pass_threshold
        )

    @model_validator(mode="after")
    def _anchor_rows(self) -> EvalConfig:
        """The anchors as rows: a file is read now, so the run keeps its rows."""
        if isinstance(self.anchors, str):
            self.anchors = read_anchor_file(self.resolve(self.anchors))
        elif self.anchors is not None:
            self.anchors = checked_anchor_rows(self.anchors)
        return self

    @field_validator("fail_under", "fail_over")
    @classmethod
    def _finite_thresholds(cls, value: dict[str, float]) -> dict[str, float]:
        for metric, threshold in value.items():
            if not math.isfinite(threshold):
                raise ValueError(f"{metric}: the threshold must be a finite number")
        return value

    @field_validator("metrics", mode="before")
    @classmethod
    def _presets_expanded(cls, value: Any) -> Any:
        return expand_presets(value) if isinstance(value, list) else value

    @field_validator("target", mode="before")
    @classmethod
    def _target_from_string(cls, value: Any) -> Any:
        if isinstance(value, str):
            return {"kind": "data"} if value == "data" else {"kind": "callable", "path": value}
        return value

    @field_validator("judge", mode="before")
    @classmethod
    def _judge_from_string(cls, value: Any) -> Any:
        return judge_from_spec(value)

    @field_validator("judges", mode="before")
    @classmethod
    def _judges_from_strings(cls, value: Any) -> Any:
        return judges_from_specs(value)

    @field_validator("judges")
    @classmethod
    def _judge_names(cls, value: dict[str, JudgeConfig] | None) -> dict[str, JudgeConfig] | None:
        return checked_judge_names(value)

    @model_validator(mode="after")
    def _judge_or_judges(self) -> EvalConfig:
        check_judge_settings(self.judge, self.judges, self.executor)
        return self

    @property
    def primary_judge(self) -> JudgeConfig | None:
        """The run's one judge, or the first of its ``judges``: the judge of the agents'
        models, the embeddings and what a run without a named judge uses."""
        if self.judges:
            return next(iter(self.judges.values()))
        return self.judge

    @property
    def judge_names(self) -> list[str]:
        """The names of the run's ``judges``, in the config's order (empty for a run
        with one judge)."""
        return list(self.judges or {})

    @field_validator("report", mode="before")
    @classmethod
    def _report_from_flag(cls, value: Any) -> Any:
        if value is True:
            return {}
        if value is False:
            return None
        return {"path": value} if isinstance(value, str) else value

    @field_validator("knowledge_base", mode="before")
    @classmethod
    def _kb_from_path(cls, value: Any) -> Any:
        return {"path": value} if isinstance(value, str | Path) else value

    def check_run_size(self, rows: int) -> None:
        """Refuse (:class:`ConfigError`) more rows × trials than a run plans in memory
        (:data:`MAX_TRIAL_ROWS`), before anything is paid for."""
        check_trial_rows(self.trials, rows)

    def resolve(self, path: str | Path) -> Path:
        """A path from the config, relative to the config's folder."""
        p = Path(path).expanduser()
        return p if p.is_absolute() else (self.base_dir / p)

    @property
    def cache_path(self) -> Path | None:
        """The judge response cache file, or None when caching is off."""
        if self.cache is False:
            return None
        if self.cache is True:
            return self.store_path.parent / "cache.db"
        return self.resolve(self.cache)

    @property
    def store_path(self) -> Path:
        """The store file: ``store`` if set, else ``.ragjudge/runs.db`` beside the config."""
        return self.resolve(self.store or ".ragjudge/runs.db")

    def report_path(self, run_id: str) -> Path | None:
        """Where the run's HTML report goes (None when ``report`` is off)."""
        if self.report is None:
            return None
        if self.report.path is None:
            return self.store_path.parent / "reports" / f"{run_id}.html"
        return self.resolve(self.report.path.replace("{run}", run_id))

    def to_record(self) -> dict[str, Any]:
        """JSON-able form kept with the run (paths absolute, so a resume finds them).

        No secret is kept. A string of the target or the retriever (or of a key-like
        field anywhere) written with ``${VAR}`` keeps that form: the target and the
        retriever expand it again when they are built, so a resumed run reads the
        environment afresh. Values of key-like fields (``api_key``, ``token``,
        ``password`` …) and of every header but a few harmless ones are masked unless
        they are ``${VAR}`` references, and URLs lose their credentials and key-like
        query values (:func:`ragjudge._util.redact.mask_record`). A config of one system
        of ``systems`` records it as ``system``. The judge's ``base_url`` is the endpoint
        that judged the run (``OPENAI_BASE_URL``, else OpenAI's), without credentials."""
        record = self.model_dump(mode="json")
        record["base_dir"] = str(self.base_dir.resolve())
        if self._system is not None:
            record["system"] = self._system
        restore_references(record, self._env_references)
        if self.judge is not None:
            record["judge"]["base_url"] = judge_endpoint(self.judge)
        for name, judge in (self.judges or {}).items():
            record["judges"][name]["base_url"] = judge_endpoint(judge)
        masked: dict[str, Any] = mask_record(record)
        return masked
