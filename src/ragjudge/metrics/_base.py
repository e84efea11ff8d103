"""The metric protocol: what a metric declares (inputs, options, the meaning of its
scores) and how its result becomes :class:`~ragjudge.schema.Score` objects."""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Awaitable, Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, ClassVar, Literal, TypeVar

from pydantic import BaseModel, ConfigDict

from ragjudge.metrics._failures import MetricFailure, NotApplicable, references, require_response
from ragjudge.metrics._threshold_value import THRESHOLD, pass_threshold
from ragjudge.schema import Output, Sample, Score, ScoreMeaning

if TYPE_CHECKING:  # types only: a metric module imports no model, index or client
    from ragjudge.knowledge import Retriever
    from ragjudge.models import GenerateConfig, Judge
    from ragjudge.models._embeddings import Embedder
    from ragjudge.targets import Target

T = TypeVar("T")

PipelinePart = Literal["retrieval", "generation", "end to end", "agent", "conversation"]
PIPELINE_PARTS: tuple[PipelinePart, ...] = (
    "retrieval",
    "generation",
    "end to end",
    "agent",
    "conversation",
)

__all__ = [
    "Metric",
    "MetricContext",
    "MetricFailure",
    "MetricOptions",
    "NotApplicable",
    "Produced",
    "Result",
    "references",
    "require_response",
]


class MetricOptions(BaseModel):
    """A metric's options: a pydantic model checked when the metric is built from the
    config, so a misspelt key or a bad value stops the run before any data is read.
    Strict: a flag must be true or false and a count a whole number, not a string."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)


@dataclass
class Result:
    """One score's value with its rationale and details (what :meth:`Metric.compute`
    returns when a bare number is not enough)."""

    value: float
    rationale: str | None = None
    details: dict[str, Any] = field(default_factory=dict)


Produced = float | Result | Mapping[str, "float | Result"] | Score | list[Score]
"""What :meth:`Metric.compute` may return: a value or :class:`Result` for a single-score
metric; a mapping from each declared score (``scores`` keys) to its value or Result;
or finished Score objects."""


@dataclass
class MetricContext:
    """What the runner hands a metric besides the sample and the output.

    A metric never opens files, HTTP clients or databases itself; whatever it needs
    (a retriever for evaluation contexts, a judge model) arrives here.
    """

    trial: int = 0
    retriever: Retriever | None = None
    """The evaluation retriever (``search(query, k)``), when a knowledge base is set."""
    judge: Judge | None = None
    """The judge model (``generate_parsed``), when one is configured."""
    generate_config: GenerateConfig | None = None
    """The judge's sampling settings."""
    target: Target | None = None
    """The system under test (``await ctx.target(sample)``), for metrics that hold a
    dialogue with it; the runner supplies it, the metric never builds clients."""
    models: dict[str, Judge] = field(default_factory=dict)
    """Further models by role, as named in the metric's :meth:`Metric.model_roles`; a
    role that is not set there uses the judge."""
    embedders: dict[str, Embedder] = field(default_factory=dict)
    """Embedders by spec (``local``, ``openai/<model>``), as named in the metrics'
    :meth:`Metric.embedding_specs`; built (and cached) by the runner."""
    shared: dict[Hashable, asyncio.Future[Any]] = field(default_factory=dict)
    """Work shared by the metrics of one sample and trial (see :meth:`once`); the
    runner gives each sample and trial a fresh one."""
    computed: dict[Hashable, Any] = field(default_factory=dict)
    """What :meth:`once_now` computed for the metrics of one sample and trial; fresh
    for each, as ``shared``."""
    judges: dict[str, MetricContext] = field(default_factory=dict)
    """With several named judges (a judge matrix): each judge's own context (its judge
    model, sampling settings and shared work) by name; the runner sets it."""

    def model_for(self, role: str) -> Judge:
        """The model that plays ``role`` (e.g. ``composer``), defaulting to the judge;
        :class:`MetricFailure` when there is neither."""
        found = self.models.get(role) or self.judge
        if found is None:
            raise MetricFailure(f"no model for the role {role!r} and no judge model configured")
        return found

    def embedder(self, spec: str) -> Embedder:
        """The embedder for ``spec`` (``embed(texts) -> vectors``)."""
        found = self.embedders.get(spec)
        if found is None:
            raise MetricFailure(f"no embedder {spec!r} was built for this run")
        return found

    async def once(self, key: Hashable, make: Callable[[], Awaitable[T]]) -> T:
        """The result of ``make()``, computed once per ``key`` for every metric of this
        sample and trial (the statements of a response serve faithfulness and answer
        correctness alike). A failure is shared too."""
        found = self.shared.get(key)
        if found is None:
            found = asyncio.ensure_future(make())
            self.shared[key] = found
        result: T = await asyncio.shield(found)
        return result

    def once_now(self, key: Hashable, make: Callable[[], T]) -> T:
        """:meth:`once` for work done at once, without waiting (what :meth:`Metric.compute_now`
        shares, such as a sample's tokens); kept apart from :meth:`once`'s entries. A
        failure is shared too."""
        try:
            found = self.computed[key]
        except KeyError:
            try:
                found = self.computed[key] = make()
            except Exception as exc:
                self.computed[key] = _Failed(exc)
                raise
        if isinstance(found, _Failed):
            raise found.error
        result: T = found
        return result


@dataclass(frozen=True)
class _Failed:
    """A failure of :meth:`MetricContext.once_now`'s work, raised again for every metric."""

    error: Exception


class Metric:
    """A metric scores one sample's output.

    A metric class declares:

    - ``requires``: the fields every row must carry (``"a|b"``: either will do;
      ``response``, ``retrieved_context`` and ``trace`` are satisfied by a target);
    - ``calls_per_sample``, when it makes more (or other) judge calls than one;
    - ``extra``, when it needs an optional extra of the package (``local``);
    - ``Options``: a :class:`MetricOptions` model of its options (``self.options``);
    - the meaning of its scores: ``meaning`` for one score, named after the instance
      (or ``fixed_score_name``, such as a Databricks metric name), or ``scores`` (score
      name → meaning) for several; a renamed instance prefixes fixed names with
      ``NAME.``;
    - :meth:`compute`: the value(s) for one sample. It may raise
      :class:`MetricFailure`; the kit turns that into error scores.

    Metrics keep no state between samples: everything a sample needs arrives in its
    arguments, so one instance scores many samples concurrently.
    """

    kind: ClassVar[str] = ""
    """The name the metric is registered under (set by ``register_metric``)."""
    Options: ClassVar[type[MetricOptions]] = MetricOptions
    requires: tuple[str, ...] = ("response",)
    meaning: ClassVar[ScoreMeaning] = ScoreMeaning()
    fixed_score_name: ClassVar[str | None] = None
    scores: ClassVar[Mapping[str, ScoreMeaning]] = {}
    needs_judge: ClassVar[bool] = False
    """Whether the metric calls a judge model (``ctx.judge``)."""
    inline: ClassVar[bool] = False
    """Whether the metric does CPU work only and never waits: it defines
    :meth:`compute_now`, which the executor calls directly — without a task or the
    event loop — for every sample whose output is already at hand (see
    :attr:`scored_inline`)."""
    scored_inline: ClassVar[bool] = False
    """Set by the kit for every metric class: whether the executor scores it with
    :meth:`score_now` — it is :attr:`inline`, keeps the kit's :meth:`score`, and keeps the
    kit's :meth:`compute` or declares :meth:`compute_now` where it declares ``compute`` (a
    subclass that replaces ``compute`` alone means its own ``compute``, so it is
    awaited)."""
    rows_not_applicable: Mapping[str, str] = MappingProxyType({})
    """Request id → why the metric does not apply to that row (a row lacking its inputs
    when invalid rows are skipped); the runner scores such rows not applicable without
    calling the metric."""
    extra: ClassVar[str | None] = None
    """The optional extra of the ragjudge package the metric needs (``"local"`` for a
    local model), or None when the core install runs it."""
    pipeline_parts: ClassVar[tuple[PipelinePart, ...]] = ()
    """Which parts of a RAG pipeline the metric's scores speak of, for ``ragjudge
    metrics``: ``retrieval`` (finding the contexts: the search and its documents),
    ``generation`` (answering from the contexts: the model and its prompt), ``end to
    end`` (the answer the whole pipeline gives), ``agent`` (what the system does on the
    way: its tools, tokens and time) or ``conversation`` (an exchange of several turns).
    Every registered metric declares it, in this order."""
    example_options: ClassVar[Mapping[str, Any]] = MappingProxyType({})
    """Options that make an instance of a metric with required options (a ``regex``'s
    pattern), for ``ragjudge metrics`` and the contract test to describe and try it;
    empty for a metric whose options all have defaults."""
    calls_per_sample: ClassVar[str | None] = None
    """Judge calls per sample and trial, in words (``"2 (statements, verdicts)"``,
    ``"1 per chunk"``), for ``ragjudge metrics``; None: none without a judge, one for a
    judged metric that keeps the kit's one-call :meth:`JudgedMetric.judge`."""
    threshold: float | None = None
    """The value each sample's score must reach to pass (see
    :attr:`ScoreMeaning.threshold`); given as ``threshold=`` unless the metric's own
    options take a ``threshold``."""
    threshold_refused: ClassVar[str | None] = None
    """Why the metric's scores take no pass threshold (they are choices), or None."""
    name: str

    def __init__(self, *, name: str | None = None, **options: Any) -> None:
        if THRESHOLD in options and THRESHOLD not in self.Options.model_fields:
            who = f"metric {name or self._default_name()!r}"
            self.threshold = pass_threshold(options.pop(THRESHOLD), who)
        self.options = self.Options.model_validate(options)
        self.name = name or self._default_name()

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls.scored_inline = cls.inline and _computes_now_as_awaited(cls)

    @classmethod
    def _default_name(cls) -> str:
        declared = cls.__dict__.get("name") or getattr(cls, "name", None)
        return str(declared or cls.kind or cls.__name__)

    # declarations -------------------------------------------------------------

    @property
    def needs_retriever(self) -> bool:
        """Whether the metric searches for evaluation contexts (``ctx.retriever``)."""
        return False

    def embedding_specs(self) -> list[str]:
        """The embedders the metric uses (``local``, ``openai/<model>`` …), for the
        runner to build."""
        return []

    def extras(self) -> list[str]:
        """The optional extras this instance needs: its class's ``extra`` and ``local``
        when it embeds with a local model."""
        needed = [self.extra] if self.extra else []
        if any(spec == "local" or spec.startswith("local/") for spec in self.embedding_specs()):
            needed.append("local")
        return list(dict.fromkeys(needed))

    def model_roles(self) -> dict[str, str]:
        """Model specs per agent role (``{"composer": "openai/gpt-4o"}``) that the runner
        builds through the judge layer and passes as ``ctx.models``."""
        return {}

    @property
    def agent_models(self) -> dict[str, str]:
        """:meth:`model_roles`, under its older name."""
        return self.model_roles()

    def meanings(self) -> dict[str, ScoreMeaning]:
        """Every score this metric gives, by name, with what its values mean."""
        if self.scores:
            return {self.score_name(base): m for base, m in self.scores.items()}
        return {self._single_name(): self.meaning}

    def _single_name(self) -> str:
        fixed = self.fixed_score_name
        return self.name if fixed is None else self.score_name(fixed)

    def score_names(self) -> list[str]:
        """The names of the scores this metric produces."""
        return list(self.meanings())

    def score_names_for(self, sample: Sample) -> list[str]:
        """The scores this metric gives ``sample``: every declared one, unless the
        metric's scores depend on the row (one per named guideline)."""
        return self.score_names()

    def meanings_for(self, samples: Sequence[Sample]) -> dict[str, ScoreMeaning]:
        """The meanings of every score the metric gives these samples (stored with the
        run)."""
        return self.meanings()

    def score_name(self, base: str) -> str:
        """The stored name of declared score ``base``: as declared for an instance with
        the registered name, prefixed ``NAME.`` for a renamed one."""
        return base if self.name == (self.kind or self._default_name()) else f"{self.name}.{base}"

    def check_target(self, target: Target | None) -> str | None:
        """Why this metric cannot work with ``target`` (the system under test), or None
        when it can. The runner asks before any work; the default accepts any target."""
        return None

    def needed_in_some_row(self) -> dict[str, str]:
        """Fields (``metadata.KEY`` …) the metric reads where a row has them, each with
        what reads it (a row without one is that row's error): when no row has one,
        the metric is set up wrong, and the runner refuses the run before any work.
        The default reads none."""
        return {}

    # scoring ------------------------------------------------------------------

    async def compute(self, sample: Sample, output: Output, ctx: MetricContext) -> Produced:
        """The metric's value(s) for one sample (see :data:`Produced`); an
        :attr:`inline` metric's are :meth:`compute_now`'s."""
        if self.inline:
            return self.compute_now(sample, output, ctx)
        raise NotImplementedError(f"{type(self).__name__} defines neither compute() nor score()")

    def compute_now(self, sample: Sample, output: Output, ctx: MetricContext) -> Produced:
        """:meth:`compute` done at once, for an :attr:`inline` metric."""
        raise NotImplementedError(f"{type(self).__name__} does not compute at once")

    async def score(self, sample: Sample, output: Output, ctx: MetricContext) -> list[Score]:
        """Score one sample: :meth:`compute`, with a :class:`MetricFailure` turned into
        an error score for every declared score."""
        try:
            produced = await self.compute(sample, output, ctx)
        except (NotApplicable, MetricFailure) as exc:
            return self._unscored(exc, sample)
        return self.to_scores(produced)

    def score_now(self, sample: Sample, output: Output, ctx: MetricContext) -> list[Score]:
        """:meth:`score` through :meth:`compute_now`, for an :attr:`inline` metric: the
        same scores, without a coroutine."""
        try:
            produced = self.compute_now(sample, output, ctx)
        except (NotApplicable, MetricFailure) as exc:
            return self._unscored(exc, sample)
        return self.to_scores(produced)

    def _unscored(self, exc: NotApplicable | MetricFailure, sample: Sample) -> list[Score]:
        if isinstance(exc, NotApplicable):
            return self.not_applicable(exc.reason, sample)
        return self.failed(exc.message, details=exc.details, call_ids=exc.call_ids, sample=sample)

    def failed(
        self,
        error: str,
        *,
        details: Mapping[str, Any] | None = None,
        call_ids: Sequence[int] = (),
        sample: Sample | None = None,
    ) -> list[Score]:
        """An error score, with the reason, for every score the metric gives ``sample``
        (every declared one without it)."""
        names = self.score_names() if sample is None else self.score_names_for(sample)
        return [
            Score(
                metric=name,
                value=None,
                error=error,
                details=dict(details or {}),
                judge_call_ids=list(call_ids),
            )
            for name in names
        ]

    def not_applicable(self, reason: str, sample: Sample) -> list[Score]:
        """A not-applicable score, with the reason, for every score of ``sample``."""
        return [Score.not_applicable(name, reason) for name in self.score_names_for(sample)]

    def to_scores(self, produced: Produced, call_ids: Sequence[int] = ()) -> list[Score]:
        """Score objects from what :meth:`compute` returned; ``call_ids`` go on every
        score that does not list its own."""
        if type(produced) is Result:  # the usual case, ahead of the checks below
            return [_score(self._single_name(), produced, call_ids)]
        if isinstance(produced, Score):
            produced = [produced]
        if isinstance(produced, list):
            return [_with_calls(s, call_ids) for s in produced]
        if isinstance(produced, Mapping):
            pairs = [(self.score_name(base), value) for base, value in produced.items()]
        else:
            pairs = [(self._single_name(), produced)]
        return [_score(name, value, call_ids) for name, value in pairs]


def _score(name: str, produced: float | Result, call_ids: Sequence[int]) -> Score:
    result = produced if isinstance(produced, Result) else Result(float(produced))
    return Score(
        metric=name,
        value=float(result.value),
        rationale=result.rationale,
        details=result.details,
        judge_call_ids=list(call_ids),
    )


def _computes_now_as_awaited(cls: type[Metric]) -> bool:
    """Whether :meth:`Metric.score_now` of ``cls`` gives what its awaited :meth:`score`
    would: the kit's ``score``, and ``compute`` either the kit's (which calls
    ``compute_now``) or declared where ``compute_now`` is."""
    computes = _declaring(cls, "compute")
    return cls.score is Metric.score and computes in (Metric, _declaring(cls, "compute_now"))


def _declaring(cls: type, name: str) -> type | None:
    return next((k for k in cls.__mro__ if name in vars(k)), None)


def _with_calls(score: Score, call_ids: Sequence[int]) -> Score:
    if score.judge_call_ids or not call_ids:
        return score
    return score.model_copy(update={"judge_call_ids": list(call_ids)})


def is_metric_class(value: Any) -> bool:
    """Whether ``value`` is a :class:`Metric` subclass."""
    return inspect.isclass(value) and issubclass(value, Metric)
