"""The judged-metric kit: everything a metric that asks an LLM judge shares.

A judged metric declares its template (a Jinja file beside its module), how the
judge's reply is read (a :class:`~ragjudge.metrics.replies.Reply`: ``[RESULT] n``, a
pydantic model of a JSON reply, yes/no …) and a pure function from the parsed reply
to its value(s). The kit does the rest: the missing-judge check, rendering with the
data notice and every evaluated string inside its delimiters, the call through the
judge layer (trial, purpose, sampling settings, the model of the asked role), the call
ids on every score, the re-ask and then the explicit parse error, and the dry run's
stand-in reply (from the reply parser, never written per metric).

A metric that needs several calls (statements, then verdicts; one call per rubric
item; a dialogue between agents) overrides :meth:`JudgedMetric.judge` and calls
:meth:`Judging.ask` once per call.

A reply that is one JSON document (:class:`~ragjudge.metrics.replies.JsonReply` and
the readers built on it) goes with its JSON schema, derived from the pydantic model
that describes it; the judge layer sends the schema to endpoints that keep replies to
one (the judge's ``structured`` setting) and the reader reads the constrained reply as
it reads any JSON reply.
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Awaitable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar, Generic, TypeVar

from pydantic import BaseModel

from ragjudge.metrics._base import (
    Metric,
    MetricContext,
    MetricFailure,
    NotApplicable,
    Produced,
)
from ragjudge.metrics._prompts import Instruction, render
from ragjudge.metrics.replies import Evaluated, Reply
from ragjudge.models._structured import schema_format
from ragjudge.models._types import ChatMessage, GenerateConfig, ModelError, TokenLogprob
from ragjudge.schema import Output, Sample, Score

__all__ = [
    "JudgeFailed",
    "JudgedMetric",
    "Judging",
    "Verdict",
    "ask_all",
    "conversation",
    "evaluated_texts",
]

T = TypeVar("T")


class JudgeFailed(MetricFailure):
    """A judge call failed after its retries, or its reply still did not parse after
    the re-asks; the metric's scores become errors carrying the call ids."""


@dataclass(frozen=True)
class Verdict(Generic[T]):
    """One answered judge call: the parsed reply, its call ids, its raw text and, when
    they were asked for and the endpoint sent them, its tokens' log probabilities."""

    value: T
    call_ids: list[int]
    text: str | None
    logprobs: tuple[TokenLogprob, ...] | None = None


@dataclass(frozen=True)
class _ReplyReader(Generic[T]):
    """``reply.parse`` bound to the evaluated texts of one prompt (indexed once, for the
    first reading and every re-ask): the callable the judge layer re-asks with.
    ``stand_in`` is what a dry run's stand-in judge answers."""

    reply: Reply[T]
    evaluated: Evaluated

    def __call__(self, text: str) -> T:
        return self.reply.parse(text, evaluated=self.evaluated)

    def stand_in(self) -> str:
        return self.reply.stand_in()

    def read_stand_in(self) -> T:
        """The stand-in reply, read as the reply of a judge that was shown no data (a
        dry run judges nothing: its own text cannot be a quotation)."""
        return self.reply.parse(self.reply.stand_in())


@dataclass
class Judging:
    """The judge calls of one metric on one sample and trial (a fresh object each
    time, so nothing is shared between samples). Collects every call id."""

    metric: JudgedMetric
    ctx: MetricContext
    call_ids: list[int] = field(default_factory=list)

    async def ask(
        self,
        reply: Reply[T],
        template: str,
        *,
        system: str | None = None,
        purpose: str | None = None,
        role: str = "judge",
        top_logprobs: int | None = None,
        **values: Any,
    ) -> Verdict[T]:
        """Render ``template`` (and ``system``, a system-message template) with
        ``values`` — evaluated text, delimited by the templates — ask the model that
        plays ``role``, and read the reply with ``reply``. With ``top_logprobs`` the
        endpoint is asked for the reply's token log probabilities (that many most likely
        tokens per place), which the verdict carries when they come. Raises
        :class:`JudgeFailed` when the call fails or the reply does not parse after the
        re-asks."""
        messages = self.metric.messages(template, values, system=system)
        model = self.ctx.model_for(role)
        reader = _ReplyReader(reply, Evaluated(evaluated_texts(values)))
        who = "judge" if role == "judge" else role
        try:
            parsed = await model.generate_parsed(
                messages,
                reader,
                _with_logprobs(_with_reply_schema(self.ctx.generate_config, reply), top_logprobs),
                trial=self.ctx.trial,
                purpose=purpose or self.metric.name,
            )
        except ModelError as exc:
            ids = list(getattr(exc, "call_ids", []))
            self.call_ids.extend(ids)
            raise JudgeFailed(f"{who} call failed: [{exc.kind}] {exc}", call_ids=ids) from None
        self.call_ids.extend(parsed.call_ids)
        if parsed.value is None:
            error = parsed.error or "parse error"
            message = error if role == "judge" else f"{role}: {error}"
            raise JudgeFailed(message, call_ids=parsed.call_ids)
        last = parsed.generations[-1] if parsed.generations else None
        logprobs = last.logprobs if last is not None else None
        return Verdict(parsed.value, list(parsed.call_ids), parsed.text, logprobs)


class JudgedMetric(Metric):
    """A metric that asks an LLM judge.

    For one call per sample, declare ``template`` (a file beside the module), ``reply``
    (how the reply is read), :meth:`prompt_values` (what the template shows, all of it
    evaluated text unless wrapped in :class:`~ragjudge.metrics.Instruction`) and
    :meth:`value` (the pure function from the parsed reply to the value(s)). For
    several calls override :meth:`judge`.
    """

    needs_judge = True
    template: ClassVar[str] = ""
    system_template: ClassVar[str | None] = None
    reply: ClassVar[Reply[Any]]
    reply_copies_data: ClassVar[bool] = False
    """True when the judge's reply is made of verbatim copies of the evaluated text
    (sentences extracted from the contexts): quoting then cannot be told from
    answering, and the metric bounds what a copy can do itself."""
    template_root: ClassVar[str | None] = None
    """Where the templates are: a package name or a folder. Default: the package (or,
    for a module outside any package, the folder) of the metric's module."""

    async def score(self, sample: Sample, output: Output, ctx: MetricContext) -> list[Score]:
        """Check for a judge, run :meth:`judge`, attach every call id; a failure of any
        call (or a missing input) makes every score an explicit error."""
        if ctx.judge is None:
            return self.failed("no judge model configured", sample=sample)
        judging = Judging(self, ctx)
        try:
            produced = await self.judge(sample, output, judging)
        except NotApplicable as exc:
            return self.not_applicable(exc.reason, sample)
        except MetricFailure as exc:
            ids = [*judging.call_ids, *(i for i in exc.call_ids if i not in judging.call_ids)]
            return self.failed(exc.message, details=exc.details, call_ids=ids, sample=sample)
        return self.to_scores(produced, judging.call_ids)

    async def judge(self, sample: Sample, output: Output, j: Judging) -> Produced:
        """One judge call: :meth:`prompt_values`, the ``template``, ``reply``, :meth:`value`."""
        values = await self.prompt_values(sample, output, j.ctx)
        verdict = await j.ask(self.reply, self.template, system=self.system_template, **values)
        return self.value(verdict.value)

    async def prompt_values(
        self, sample: Sample, output: Output, ctx: MetricContext
    ) -> dict[str, Any]:
        """What the template shows for this sample (may raise
        :class:`~ragjudge.metrics.MetricFailure` when an input is missing)."""
        raise NotImplementedError(
            f"{type(self).__name__} defines neither judge() nor prompt_values()"
        )

    def value(self, reply: Any) -> Produced:
        """The value(s) of a parsed reply: a pure function, no I/O."""
        raise NotImplementedError(f"{type(self).__name__} defines neither judge() nor value()")

    def messages(
        self, template: str, values: Mapping[str, Any], *, system: str | None = None
    ) -> list[ChatMessage]:
        """The chat messages of one judge call: ``system`` (when given), then ``template``."""
        root = self._templates()
        messages: list[ChatMessage] = []
        if system is not None:
            messages.append({"role": "system", "content": render(root, system, values)})
        messages.append({"role": "user", "content": render(root, template, values)})
        return messages

    @classmethod
    def _templates(cls) -> str:
        if cls.template_root is not None:
            return cls.template_root
        module = sys.modules[cls.__module__]
        if module.__package__:
            return module.__package__
        return str(Path(module.__file__ or ".").resolve().parent)


def _with_reply_schema(config: GenerateConfig | None, reply: Reply[Any]) -> GenerateConfig | None:
    """The sampling settings of a call read by ``reply``, with the reply's JSON schema
    when the reply is a JSON document (the judge layer sends it as its ``structured``
    setting says)."""
    schema = reply.reply_schema()
    if schema is None:
        return config
    return (config or GenerateConfig()).model_copy(
        update={"response_format": schema_format(schema)}
    )


def _with_logprobs(config: GenerateConfig | None, top: int | None) -> GenerateConfig | None:
    """The sampling settings asking for token log probabilities when ``top`` is set."""
    if top is None:
        return config
    update = {"logprobs": True, "top_logprobs": top}
    return (config or GenerateConfig()).model_copy(update=update)


def evaluated_texts(values: Any) -> list[str]:
    """Every evaluated string in template ``values`` (what the judge might quote back),
    instructions left out."""
    if isinstance(values, Instruction):
        return []
    if isinstance(values, str):
        return [values] if values.strip() else []
    if isinstance(values, BaseModel):
        return evaluated_texts(values.model_dump())
    if isinstance(values, Mapping):
        return [t for k, v in values.items() for t in (*evaluated_texts(k), *evaluated_texts(v))]
    if isinstance(values, list | tuple):
        return [t for v in values for t in evaluated_texts(v)]
    return []


def conversation(sample: Sample) -> dict[str, Any]:
    """The conversation before the request and the request, as template values
    (``history``, ``request``: what ``kit/conversation.jinja`` shows)."""
    return {
        "history": [m.model_dump() for m in sample.request.history],
        "request": sample.request.query,
    }


async def ask_all(asks: Sequence[Awaitable[Verdict[T]]]) -> list[Verdict[T]]:
    """Several judge calls at once (one per fact, chunk …). Every call finishes — its
    call ids are kept — before the first failure, if any, is raised."""
    done = await asyncio.gather(*asks, return_exceptions=True)
    for outcome in done:
        if isinstance(outcome, BaseException):
            raise outcome
    return [d for d in done if not isinstance(d, BaseException)]
