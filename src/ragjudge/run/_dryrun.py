"""``--dry-run``: build every judge prompt an evaluation would send, count the calls and
estimate tokens and cost — calling neither the system under test nor any model.

Each judge metric runs against a stand-in judge (:class:`StandInJudge`) that answers
every call with the stand-in reply of the call's own reply parser (so it always
parses); prompts are collected instead of sent, and priced as the run prices calls
(:func:`~ragjudge.run._judging.prices_of`: the config's prices, else the published
ones).

A sample's stored response is used when the data holds one. When the target answers,
it is called on the first ``dry_run_target_rows`` rows and its real answers (response
and retrieved contexts) size the prompts of every row, since judge prompts that show
the answer grow with it; without them (none asked for, or the target failed) the
reference answer stands in, else the query, and the estimate says it is a lower
bound. Metrics whose number of calls depends on the judge's answers (multi-turn
dialogues) are walked along their longest path, so the estimate is an upper bound for
them.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from ragjudge.config import EvalConfig
from ragjudge.metrics import Metric, MetricContext
from ragjudge.models import (
    ChatMessage,
    EmbeddingResult,
    GenerateConfig,
    Generation,
    JudgeCallRecord,
    Parsed,
)
from ragjudge.models._embeddings import normalize_rows
from ragjudge.models.scripted import hash_embedding
from ragjudge.run._dryrun_plan import DryRunPlan as DryRunPlan
from ragjudge.run._dryrun_plan import PurposeEstimate as PurposeEstimate
from ragjudge.run._dryrun_plan import output_tokens_per_call, purpose_estimates, tell_prices
from ragjudge.run._judging import generate_config
from ragjudge.run._matrix import judge_of
from ragjudge.schema import Output, Sample
from ragjudge.targets._targets import Target, output_of_row

T = TypeVar("T")

STAND_IN_MODEL = "dry-run"


class StandInEmbedder:
    """The embedder of a dry run: deterministic stand-in vectors, no model loaded."""

    def __init__(self, name: str) -> None:
        self.name = name

    async def embed(self, texts: list[str]) -> Any:
        """One stand-in vector per text."""
        return normalize_rows([hash_embedding(text) for text in texts])


class StandInJudge:
    """The judge of a dry run: calls nothing. Every prompt is kept in ``records`` (for
    the call and token counts) and answered with the stand-in reply of the parser the
    metric reads it with (``parse.stand_in()``, read as a reply to a prompt with no
    data: the dry run's own text is never a quotation), so every metric walks its path as with
    a real judge. Embeddings are deterministic stand-in vectors."""

    def __init__(self, records: list[JudgeCallRecord]) -> None:
        self.records = records

    @property
    def spec(self) -> str:
        """``scripted/dry-run``."""
        return f"scripted/{STAND_IN_MODEL}"

    async def generate_parsed(
        self,
        messages: Sequence[ChatMessage],
        parse: Callable[[str], T],
        config: GenerateConfig | None = None,
        *,
        trial: int = 0,
        purpose: str | None = None,
    ) -> Parsed[T]:
        """The parser's stand-in reply, parsed; recorded as one call."""
        stand_in = getattr(parse, "stand_in", None)
        text = stand_in() if callable(stand_in) else "(dry run)"
        generation = self._record(messages, config, trial, purpose, text)
        read = getattr(parse, "read_stand_in", None)
        try:
            value = read() if callable(read) else parse(text)
        except Exception as exc:  # a reply whose stand-in does not parse: a metric bug
            return Parsed(None, f"parse error: stand-in reply {text!r}: {exc}", [generation])
        return Parsed(value, None, [generation], [generation.call_id or 0])

    async def generate(
        self,
        messages: Sequence[ChatMessage],
        config: GenerateConfig | None = None,
        *,
        trial: int = 0,
        purpose: str | None = None,
    ) -> Generation:
        """A plain stand-in reply; recorded as one call."""
        return self._record(messages, config, trial, purpose, "(dry run)")

    async def embed(self, texts: list[str], *, purpose: str | None = None) -> EmbeddingResult:
        """Deterministic stand-in vectors (no call is counted)."""
        vectors = [hash_embedding(text) for text in texts]
        return EmbeddingResult(vectors=vectors, model=STAND_IN_MODEL)

    async def aclose(self) -> None:
        """Nothing to close."""

    def _record(
        self,
        messages: Sequence[ChatMessage],
        config: GenerateConfig | None,
        trial: int,
        purpose: str | None,
        text: str,
    ) -> Generation:
        chat = [dict(m) for m in messages]
        self.records.append(
            JudgeCallRecord(
                provider="scripted",
                model=STAND_IN_MODEL,
                messages=chat,
                config=(config or GenerateConfig()).model_dump(mode="json", exclude_none=True),
                trial=trial,
                text=text,
                purpose=purpose,
            )
        )
        return Generation(text=text, model=STAND_IN_MODEL, call_id=len(self.records))


@dataclass
class TargetAnswers:
    """The target's real answers to the rows the dry run asked it about."""

    by_row: dict[str, Output] = field(default_factory=dict)
    by_index: dict[int, Output] = field(default_factory=dict)
    """The same answers by the row's place in the set."""
    failure: str | None = None

    def for_row(self, sample: Sample, index: int) -> Output | None:
        """The row's own answer, else that of the nearest row asked (sets are often
        grouped by language or topic, and answer lengths with them), else ``None``."""
        if sample.request_id in self.by_row:
            return self.by_row[sample.request_id]
        if not self.by_index:
            return None
        return self.by_index[min(self.by_index, key=lambda asked: abs(asked - index))]


def spread_rows(total: int, rows: int) -> list[int]:
    """``rows`` places spread evenly over a set of ``total`` rows, the first included."""
    if rows >= total:
        return list(range(total))
    return sorted({i * total // rows for i in range(rows)})


async def ask_target(target: Target, samples: Sequence[Sample], rows: int) -> TargetAnswers:
    """The target's answers to ``rows`` samples spread over the set (one at a time: a
    dry run must not load the system); the first failure ends the asking."""
    answers = TargetAnswers()
    for index in spread_rows(len(samples), rows):
        sample = samples[index]
        try:
            output = await target(sample)
        except Exception as exc:  # reported in the plan; the estimate goes on without
            answers.failure = f"the target failed on {sample.request_id}: {exc}"
            break
        if output.error is not None or output.response is None:
            answers.failure = f"the target failed on {sample.request_id}: {output.error}"
            break
        answers.by_row[sample.request_id] = answers.by_index[index] = output
    return answers


def _stand_in_output(
    sample: Sample, supplies_response: bool, answer: Output | None = None
) -> Output:
    """The data's response (or its trace's), else the target's real answer (of this
    row or another), else the reference or the query."""
    held = output_of_row(sample)
    if supplies_response and answer is not None and answer.response is not None:
        return Output(response=answer.response, retrieved_context=answer.retrieved_context)
    response = None if supplies_response else held.response
    if response is None:
        response = sample.references[0] if sample.references else sample.request.query
    return Output(response=response, retrieved_context=held.retrieved_context)


class _StandInTarget:
    """The system under test of a dry run: answers at once, as the run's first output
    does (:func:`_stand_in_output`), and counts the calls metrics make to it (a
    dialogue's turns, a classification's completions). It takes the history and
    answers, so every metric walks its path."""

    name = "dry-run"
    supplies_response = True
    supports_history = True

    def __init__(self, real_target_answers: bool, answers: TargetAnswers) -> None:
        self.real_target_answers = real_target_answers
        self.answers = answers
        self.calls = 0

    async def __call__(self, sample: Sample) -> Output:
        self.calls += 1
        answer = self.answers.for_row(sample, 0)
        return _stand_in_output(sample, self.real_target_answers, answer)


async def plan_evaluation(
    config: EvalConfig,
    samples: Sequence[Sample],
    metrics: Sequence[Metric],
    *,
    supplies_response: bool,
    retriever: Any = None,
    answers: TargetAnswers | None = None,
) -> DryRunPlan:
    """Walk every sample, trial and metric with stand-in judges and count the prompts;
    ``answers`` are the target's real answers to some rows (:func:`ask_target`)."""
    answers = answers or TargetAnswers()
    records: list[JudgeCallRecord] = []
    judge = StandInJudge(records)
    named = config.judges or {}
    per_judge = {name: StandInJudge([]) for name in named}
    shared: dict[tuple[str, int, str | None], dict[Any, Any]] = {}  # as in a run
    sampling = generate_config(config.primary_judge)
    errors: list[str] = []
    semaphore = asyncio.Semaphore(config.concurrency)  # the retriever may be a live service
    target = _StandInTarget(supplies_response, answers)

    def judged_context(name: str, sample: Sample, trial: int) -> MetricContext:
        own = MetricContext(judge=per_judge[name], generate_config=generate_config(named[name]))
        own.shared = shared.setdefault((sample.request_id, trial, name), {})
        return own

    async def walk(sample: Sample, index: int, trial: int, metric: Metric) -> None:
        bound = judge_of(metric)
        own = judge if bound is None else per_judge[bound]
        ctx = _stand_in_context(metric, own, target, retriever, sampling, trial)
        ctx.shared = shared.setdefault((sample.request_id, trial, bound), {})
        ctx.judges = {name: judged_context(name, sample, trial) for name in named}
        if metric.rows_not_applicable.get(sample.request_id) is not None:
            return  # no call: the row lacks the metric's inputs
        async with semaphore:
            try:
                output = _stand_in_output(sample, supplies_response, answers.for_row(sample, index))
                await metric.score(sample, output, ctx)
            except Exception as exc:  # reported, the plan goes on
                errors.append(f"{metric.name} on {sample.request_id}: {type(exc).__name__}: {exc}")

    await asyncio.gather(
        *(
            walk(sample, index, trial, metric)
            for index, sample in enumerate(samples)
            for trial in range(config.trials)
            for metric in metrics
            if metric.needs_judge
        )
    )
    primary = config.primary_judge
    purposes = purpose_estimates(primary, records)
    for name, stand_in in per_judge.items():
        purposes += purpose_estimates(named[name], stand_in.records, name)
    plan = DryRunPlan(
        samples=len(samples),
        trials=config.trials,
        target_calls=target.calls + (len(samples) if supplies_response else 0),
        judge_model=primary.model if primary else None,
        purposes=purposes,
        output_tokens_per_call=output_tokens_per_call(primary),
        errors=errors,
        target_rows=len(answers.by_row),
        lower_bound=_lower_bound(
            supplies_response, answers, bool(records) or any(j.records for j in per_judge.values())
        ),
        max_cost=config.max_cost,
        judge_models={name: judge.model for name, judge in named.items()},
    )
    tell_prices(plan, named or ({"": primary} if primary is not None else {}))
    return plan


def _lower_bound(supplies_response: bool, answers: TargetAnswers, judged: bool) -> str | None:
    """Why judge prompts showing the target's answers may be longer in the run."""
    if not supplies_response or not judged or answers.by_row:
        return None
    why = answers.failure or "the target was not called (dry_run_target_rows: 0)"
    return (
        f"{why}; reference answers stand in for its answers, so prompts that show them "
        "may be longer in the run: the estimate is a lower bound"
    )


def _stand_in_context(
    metric: Metric,
    judge: StandInJudge,
    target: _StandInTarget,
    retriever: Any,
    sampling: GenerateConfig,
    trial: int,
) -> MetricContext:
    """What ``metric`` scores with in a dry run: the stand-in judge for every model
    role, stand-in embedders, the stand-in target."""
    return MetricContext(
        trial=trial,
        retriever=retriever,
        judge=judge,
        generate_config=sampling,
        target=target,
        models={role: judge for role in metric.model_roles()},
        embedders={spec: StandInEmbedder(spec) for spec in metric.embedding_specs()},
    )


async def sample_prompts(
    config: EvalConfig,
    sample: Sample,
    metric: Metric,
    *,
    supplies_response: bool,
    retriever: Any = None,
) -> list[JudgeCallRecord]:
    """Every judge call ``metric`` would make for ``sample`` (its first trial), in the
    order made, each with its prompt; built as the dry run builds them, calling nothing.
    A metric's failure on the stand-in replies propagates."""
    records: list[JudgeCallRecord] = []
    judge = StandInJudge(records)
    target = _StandInTarget(supplies_response, TargetAnswers())
    sampling = generate_config(config.primary_judge)
    ctx = _stand_in_context(metric, judge, target, retriever, sampling, 0)
    await metric.score(sample, _stand_in_output(sample, supplies_response), ctx)
    return records
