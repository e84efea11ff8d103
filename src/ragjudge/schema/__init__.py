"""The evaluation-set schema: one :class:`Sample` per row, what a target returns
(:class:`Output`) and what a metric returns (:class:`Score`).

Field names follow the Databricks agent-evaluation input schema (``request_id``,
``request``, ``response``, ``expected_response``, ``expected_facts``, ``guidelines``,
``expected_retrieved_context``, ``retrieved_context``, ``trace``) plus ``rubric`` and
``metadata``.
"""

from __future__ import annotations

import json
import math
from typing import Annotated, Any, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    ValidationInfo,
    field_validator,
    model_validator,
)

from ragjudge.schema._tools import ExpectedToolCall as ExpectedToolCall
from ragjudge.schema._tools import ToolCall as ToolCall
from ragjudge.schema._tools import read_tool_call as read_tool_call

Role = Literal["system", "user", "assistant", "tool", "developer"]


class Message(BaseModel):
    """One chat message in OpenAI chat-completions form."""

    model_config = ConfigDict(extra="allow")

    role: Role
    content: str

    @field_validator("content", mode="before")
    @classmethod
    def _no_content_is_empty(cls, value: Any) -> Any:
        # An assistant message that only calls tools carries ``"content": null``.
        return "" if value is None else value


class ContextChunk(BaseModel):
    """A retrieved or expected context chunk. ``doc_uri`` identifies the parent document."""

    model_config = ConfigDict(extra="allow")

    doc_uri: str = Field(min_length=1)
    content: str | None = None
    score: float | None = None
    """Retrieval score, when a retriever produced the chunk."""


class RubricItem(BaseModel):
    """One rubric criterion with its points (negative points penalise; a finite
    number)."""

    model_config = ConfigDict(extra="allow")

    criterion: str = Field(min_length=1)
    points: float = Field(allow_inf_nan=False)
    tags: list[str] = Field(default_factory=list)


def _points_add_up(items: list[RubricItem]) -> list[RubricItem]:
    if not math.isfinite(sum(abs(item.points) for item in items)):
        raise ValueError("the rubric's points add up beyond a float's range (about 1.8e308)")
    return items


RubricItems = Annotated[list[RubricItem], AfterValidator(_points_add_up)]
"""Rubric items whose points add up to a finite number."""


STORED_FORM = "stored_form"
"""Validation context key: the data is a sample as ragjudge stored it (its request
already normalised), not a row of an evaluation set."""


class Request(BaseModel):
    """A request normalised to messages, last user query and history.

    ``original`` keeps what the evaluation set held (a string or any JSON dict); a
    target that wants the raw form receives that.
    """

    original: str | dict[str, Any]
    messages: list[Message]
    query: str
    history: list[Message]

    @classmethod
    def parse(cls, value: Any) -> Request:
        """Normalise a request given as a string, ``{"messages": [...]}``,
        ``{"query": ..., "history": [...]}`` or any JSON-serialisable dict."""
        if isinstance(value, Request):
            return value
        if isinstance(value, str):
            if not value.strip():
                raise ValueError("request is an empty string")
            msg = Message(role="user", content=value)
            return cls(original=value, messages=[msg], query=value, history=[])
        if isinstance(value, dict):
            return cls._parse_dict(value)
        raise ValueError(f"request must be a string or a JSON object, not {type(value).__name__}")

    @classmethod
    def _parse_dict(cls, value: dict[str, Any]) -> Request:
        try:
            json.dumps(value)
        except (TypeError, ValueError) as exc:
            raise ValueError(f"request is not JSON-serialisable: {exc}") from exc
        if "messages" in value:
            messages = [Message.model_validate(m) for m in value["messages"]]
            users = [i for i, m in enumerate(messages) if m.role == "user"]
            if not users:
                raise ValueError("request.messages holds no user message")
            last = users[-1]
            return cls(
                original=value,
                messages=messages,
                query=messages[last].content,
                history=messages[:last],
            )
        if "query" in value:
            query = value["query"]
            if not isinstance(query, str) or not query.strip():
                raise ValueError("request.query must be a non-empty string")
            history = [Message.model_validate(m) for m in value.get("history") or []]
            messages = [*history, Message(role="user", content=query)]
            return cls(original=value, messages=messages, query=query, history=history)
        # Arbitrary dict: passed to the target as is; the query is its JSON text.
        text = json.dumps(value, ensure_ascii=False)
        return cls(
            original=value,
            messages=[Message(role="user", content=text)],
            query=text,
            history=[],
        )


def response_text(value: Any) -> str:
    """Extract the answer text from a string or an OpenAI ``choices`` dict."""
    if isinstance(value, str):
        return value
    if isinstance(value, dict):
        if "choices" in value:
            try:
                content = value["choices"][0]["message"]["content"]
            except (KeyError, IndexError, TypeError) as exc:
                raise ValueError(
                    "response.choices must hold [{'message': {'content': ...}}]"
                ) from exc
            if not isinstance(content, str):
                raise ValueError("response.choices[0].message.content must be a string")
            return content
        if isinstance(value.get("content"), str):
            return str(value["content"])
    raise ValueError("response must be a string or {'choices': [{'message': {'content': ...}}]}")


def trace_object(value: Any) -> dict[str, Any]:
    """A row's ``trace``: an MLflow trace as a JSON object, or its JSON text (read
    here, so a trace that is not JSON is the row's error, not a surprise mid-run)."""
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except (ValueError, RecursionError):
            raise ValueError(
                "trace is not JSON; give MLflow's trace JSON (Trace.to_json())"
            ) from None
    if not isinstance(value, dict):
        raise ValueError(
            f"trace must be an MLflow trace (a JSON object or its text), not {type(value).__name__}"
        )
    return value


_EMPTY_IS_A_VALUE = frozenset({"response", "retrieved_context"})
"""Sample fields whose empty text is a value, not a missing one (see
:meth:`Sample.has_field`)."""


class Sample(BaseModel):
    """One row of an evaluation set, validated and normalised."""

    model_config = ConfigDict(extra="forbid")

    request_id: str
    request: Request
    response: str | None = None
    expected_response: str | list[str] | None = None
    expected_facts: list[str] | None = None
    guidelines: list[str] | dict[str, list[str]] | None = None
    expected_retrieved_context: list[ContextChunk] | None = None
    retrieved_context: list[ContextChunk] | None = None
    trace: Any = None
    rubric: RubricItems | None = None
    expected_tool_calls: list[ExpectedToolCall] | None = None
    tool_calls: list[ToolCall] | None = None
    metadata: dict[str, Any] = Field(default_factory=dict)

    @field_validator("request", mode="before")
    @classmethod
    def _normalise_request(cls, value: Any, info: ValidationInfo) -> Request:
        if isinstance(value, dict) and (info.context or {}).get(STORED_FORM):
            return Request.model_validate(value)
        return Request.parse(value)

    @field_validator("response", mode="before")
    @classmethod
    def _normalise_response(cls, value: Any) -> str | None:
        return None if value is None else response_text(value)

    @field_validator("trace", mode="before")
    @classmethod
    def _read_trace(cls, value: Any) -> Any:
        return None if value is None else trace_object(value)

    @field_validator("expected_response", mode="before")
    @classmethod
    def _check_expected_response(cls, value: Any) -> Any:
        if isinstance(value, list) and not value:
            raise ValueError("expected_response is an empty list")
        return value

    @model_validator(mode="after")
    def _facts_xor_response(self) -> Sample:
        if self.expected_facts is not None and self.expected_response is not None:
            raise ValueError("expected_facts and expected_response are both given; give only one")
        return self

    @property
    def references(self) -> list[str]:
        """The reference answers: ``expected_response`` as a list (empty when absent)."""
        if self.expected_response is None:
            return []
        if isinstance(self.expected_response, str):
            return [self.expected_response]
        return list(self.expected_response)

    @property
    def all_guidelines(self) -> dict[str, list[str]]:
        """Guidelines as a dict of named lists (a plain list is named ``guidelines``)."""
        if self.guidelines is None:
            return {}
        if isinstance(self.guidelines, list):
            return {"guidelines": list(self.guidelines)}
        return dict(self.guidelines)

    def has_field(self, name: str) -> bool:
        """Whether the row carries a value for ``name`` (a field or ``metadata.KEY``).

        None is absent, and so are empty text, lists and dicts, except an empty
        ``response`` — an answer (a wrong one, which metrics score) — and an empty
        ``retrieved_context`` — the system retrieved nothing, which the context metrics
        score (0 found)."""
        if name.startswith("metadata."):
            return name.split(".", 1)[1] in self.metadata
        value = getattr(self, name, None)
        if name in _EMPTY_IS_A_VALUE:
            return value is not None
        return value is not None and value not in ("", [], {})


class Usage(BaseModel):
    """Token usage as reported by a model or target."""

    input_tokens: int = 0
    output_tokens: int = 0

    @property
    def total_tokens(self) -> int:
        """Input and output tokens together."""
        return self.input_tokens + self.output_tokens


class Output(BaseModel):
    """What the system under test returned for one sample."""

    response: str | None = None
    retrieved_context: list[ContextChunk] | None = None
    trace: Any = None
    usage: Usage = Field(default_factory=Usage)
    latency: float | None = None
    error: str | None = None
    tool_calls: list[ToolCall] | None = None
    """The tools the system called, in order (when its reply or the data says)."""


INVALID_CHOICE = "__invalid__"
"""The choice a model-graded classification reply that names none of the choices
counts as: stored in a score's details (``choice``) and counted by ``ragjudge counts``."""


TrialsReduceMethod = Literal["mean", "mode", "median", "max", "pass_at_k", "at_least_k"]
"""How a sample's trial values become its value (see :class:`TrialsReduce`)."""


class TrialsReduce(BaseModel):
    """How a run with several trials turns one sample's trial values into the sample's
    value: ``method`` (``mean``, ``mode``, ``median``, ``max``, ``pass_at_k``,
    ``at_least_k``), and for the last two ``k`` and the pass ``threshold`` (a trial
    passes when its value is at least the threshold)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    method: TrialsReduceMethod = "mean"
    k: int | None = None
    threshold: float | None = None


class ScoreMeaning(BaseModel):
    """What one score's values mean: declared by its metric, stored with every run, and
    read from the run by ``show``, ``compare``, ``meta`` and the exports.

    ``direction`` says whether a higher or a lower value is better; ``low``/``high``
    bound the values (None: unbounded); ``excluded`` lists values that the mean leaves
    out and reports beside it (answer accuracy's 0, "not sure"); ``binary`` marks
    yes/no scores stored as 1/0 (their mean is the share of yes).
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    direction: Literal["higher", "lower"] = "higher"
    low: float | None = 0.0
    high: float | None = 1.0
    excluded: tuple[float, ...] = ()
    binary: bool = False
    description: str = ""
    judge: str | None = None
    """The named judge (a key of the config's ``judges``) whose verdicts this score
    holds; None for a score of a run with one judge, or one no judge gives."""
    metric: str | None = None
    """The score's name without its judge (``faithfulness`` for ``faithfulness@big``):
    the same for every judge of a judge matrix, so tables group by it; None when the
    score's name is already that."""
    ensemble: tuple[str, ...] = ()
    """For a score that combines several judges' verdicts: the judges it combines."""
    contexts: str | None = None
    """The contexts the judge was shown (the metric's ``contexts`` option:
    ``reference``, ``question``, ``retrieved`` …), when the metric shows any; tables of
    judges against human scores group by it."""
    trials_reduce: TrialsReduce | None = None
    """How the run reduces each sample's trials to one value before averaging over
    samples (None: the mean)."""
    threshold: float | None = None
    """The value a sample's score must reach to pass (at least it when higher is
    better, at most it when lower is better); None: a yes/no score passes at its better
    value and any other score has no pass."""

    @property
    def has_pass(self) -> bool:
        """Whether each sample's score passes or fails: a threshold is declared, or the
        score is yes/no."""
        return self.threshold is not None or self.binary

    def passed(self, value: float | None) -> bool | None:
        """Whether ``value`` passes; None when the score has no pass, has no value (an
        error, not applicable) or is a value its mean leaves out."""
        if value is None or value in self.excluded:
            return None
        limit = self.threshold
        if limit is None and self.binary:
            limit = self.low if self.lower_is_better else self.high
        if limit is None:
            return None
        return value <= limit if self.lower_is_better else value >= limit

    @property
    def aggregate(self) -> str:
        """What the run-level value of this score is called in exports that name
        aggregates (MLflow: ``NAME/percentage``, ``NAME/average``): ``percentage`` for
        a yes/no score (the share of yes), ``average`` for any other."""
        return "percentage" if self.binary else "average"

    @property
    def lower_is_better(self) -> bool:
        """Whether a lower value is better."""
        return self.direction == "lower"

    def contains(self, value: float) -> bool:
        """Whether ``value`` lies in the declared range."""
        return (self.low is None or value >= self.low) and (self.high is None or value <= self.high)


class Score(BaseModel):
    """One metric's result for one sample and trial.

    ``value`` is None exactly when ``error`` says why the score could not be computed
    (or ``skipped`` why the metric does not apply to the sample); a failure is never
    recorded as 0, pass or NaN.
    """

    metric: str
    value: float | None
    rationale: str | None = None
    details: dict[str, Any] = Field(default_factory=dict)
    judge_call_ids: list[int] = Field(default_factory=list)
    error: str | None = None
    skipped: str | None = None
    """Why the metric does not apply to this sample (a row without the input a judge
    needs): neither a value nor an error, left out of the mean and the error count."""
    judge: str | None = None
    """The named judge that gave this score (a key of the config's ``judges``), when the
    run names several; None otherwise."""

    @model_validator(mode="after")
    def _value_or_error(self) -> Score:
        if self.skipped:
            if self.value is not None or self.error:
                raise ValueError(f"score {self.metric!r} is skipped but has a value or an error")
            return self
        if self.value is None and not self.error:
            raise ValueError(f"score {self.metric!r} has neither a value nor an error")
        if self.value is not None and not math.isfinite(self.value):
            raise ValueError(
                f"score {self.metric!r} is {self.value}; a value must be finite, "
                "record an error instead"
            )
        if self.value is not None and self.error:
            raise ValueError(f"score {self.metric!r} has both a value and an error")
        return self

    @classmethod
    def failed(cls, metric: str, error: str, **details: Any) -> Score:
        """A score that could not be computed, with the reason."""
        return cls(metric=metric, value=None, error=error, details=details)

    @classmethod
    def not_applicable(cls, metric: str, reason: str) -> Score:
        """A metric that does not apply to this sample, with the reason."""
        return cls(metric=metric, value=None, skipped=reason)
