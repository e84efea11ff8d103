"""Targets: the system under test, as ``async (sample) -> Output``.

Here: the responses already in the evaluation set, a Python callable given as
``package.module:function`` or ``path/to/file.py:function`` (found by
:mod:`ragjudge._util.importing`), the caps on a target's reply (:class:`ReplyLimits`) and
the readers of a reply (contexts, token usage) that every kind shares. HTTP targets are
in :mod:`ragjudge.targets.http`.
"""

from __future__ import annotations

import asyncio
import inspect
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, TypeGuard, cast

from ragjudge._util.importing import TargetError as TargetError
from ragjudge._util.importing import TargetSetupError as TargetSetupError
from ragjudge._util.importing import import_callable as import_callable
from ragjudge.loading import derived_chunk
from ragjudge.models._settings import DEFAULT_MAX_REPLY_BYTES as DEFAULT_MAX_REPLY_BYTES
from ragjudge.schema import ContextChunk, Output, Sample, Usage, response_text
from ragjudge.targets._frameworks import framework_call, no_known_shape, reply_fields
from ragjudge.targets._threaded import ThreadedCalls
from ragjudge.targets._tool_calls import chat_reply_text, tool_calls_of_reply
from ragjudge.targets._traces import read_trace, with_trace

DEFAULT_MAX_CONTEXTS = 100
DEFAULT_MAX_CONTEXT_BYTES = 256 * 1024
DEFAULT_CONCURRENCY = 8


class ReplyTooLarge(TargetError, ValueError):
    """A reply beyond its target's :class:`ReplyLimits`: that sample's error."""


@dataclass(frozen=True)
class ReplyLimits:
    """Caps on what a target may return, so that one runaway reply cannot exhaust
    memory, be stored whole or be sent whole to the judge.

    ``max_reply_bytes`` bounds the whole reply (an HTTP body is counted after
    decompression while it streams in, and reading stops at the cap; a Python
    target's response, contexts and trace are counted as UTF-8 JSON),
    ``max_contexts`` the number of retrieved contexts and ``max_context_bytes`` the
    text of one context. A reply beyond a cap is an explicit error of its sample and
    is not stored.
    """

    max_reply_bytes: int = DEFAULT_MAX_REPLY_BYTES
    max_contexts: int = DEFAULT_MAX_CONTEXTS
    max_context_bytes: int = DEFAULT_MAX_CONTEXT_BYTES

    def __post_init__(self) -> None:
        for name in ("max_reply_bytes", "max_contexts", "max_context_bytes"):
            if getattr(self, name) <= 0:
                raise TargetSetupError(f"{name} must be positive, got {getattr(self, name)}")

    @classmethod
    def of(cls, **caps: int | None) -> ReplyLimits:
        """The caps given by name, with the defaults for those that are None."""
        return cls(**{name: value for name, value in caps.items() if value is not None})

    def check_count(self, count: int) -> None:
        """Raise :class:`ReplyTooLarge` when ``count`` contexts are too many."""
        if count > self.max_contexts:
            raise ReplyTooLarge(
                f"reply lists {count} retrieved contexts, more than {self.max_contexts}"
                " (max_contexts)"
            )

    def check_contexts(self, contexts: Sequence[ContextChunk] | None) -> None:
        """Raise :class:`ReplyTooLarge` for too many contexts or one too long."""
        self.check_count(len(contexts or []))
        for chunk in contexts or []:
            if chunk.content is not None and _utf8_longer(chunk.content, self.max_context_bytes):
                raise ReplyTooLarge(
                    f"retrieved context {chunk.doc_uri!r} is larger than"
                    f" {self.max_context_bytes} bytes (max_context_bytes)"
                )

    def check_output(self, output: Output) -> None:
        """Raise :class:`ReplyTooLarge` when ``output`` (response, contexts, trace)
        breaks a cap."""
        self.check_contexts(output.retrieved_context)
        counted = {"response", "retrieved_context", "trace"}
        # A huge response is refused before the whole reply is serialised to count it.
        if _utf8_longer(output.response or "", self.max_reply_bytes) or _utf8_longer(
            output.model_dump_json(include=counted), self.max_reply_bytes
        ):
            raise ReplyTooLarge(f"reply larger than {self.max_reply_bytes} bytes (max_reply_bytes)")


def _utf8_longer(text: str, limit: int) -> bool:
    # A character is at least one byte: a long text is refused without encoding it.
    return len(text) > limit or len(text.encode("utf-8")) > limit


class Target(Protocol):
    """The system under test."""

    name: str
    supplies_response: bool
    """Whether the target produces responses (False: they must be in the data)."""

    @property
    def supports_history(self) -> bool:
        """Whether the target receives the conversation history (multi-turn dialogues)."""

    async def __call__(self, sample: Sample) -> Output: ...


class DataTarget:
    """Responses (and retrieved context, trace) already in the evaluation set."""

    name = "data"
    supplies_response = False
    supports_history = False

    async def __call__(self, sample: Sample) -> Output:
        return output_of_row(sample)

    def output_now(self, sample: Sample) -> Output:
        """What awaiting the target gives, at once (the executor scores rows whose
        metrics never wait without a task)."""
        return output_of_row(sample)


def output_of_row(sample: Sample) -> Output:
    """The output a row of the evaluation set holds: its response, retrieved context
    and trace, with what an MLflow trace adds where the row leaves a field out (the
    response, the last retriever's chunks, token usage and latency; see
    :mod:`ragjudge.targets._traces`). A row with neither a response nor a trace that holds one
    gives an error output."""
    output = with_trace(
        Output(
            response=sample.response,
            retrieved_context=sample.retrieved_context,
            trace=sample.trace,
            tool_calls=sample.tool_calls,
        )
    )
    if output.response is not None:
        return output
    reading = read_trace(sample.trace)
    if sample.trace is None:
        error = "the row holds no response"
    elif reading is None:
        error = "the row holds no response, and its trace is not an MLflow trace"
    else:
        error = f"the row holds no response, and its trace gives none: {reading.problem}"
    return output.model_copy(update={"error": error})


_ARGUMENTS: dict[str, Callable[[Sample], Any]] = {
    "query": lambda s: s.request.query,
    "question": lambda s: s.request.query,
    "history": lambda s: [m.model_dump() for m in s.request.history],
    "messages": lambda s: [m.model_dump() for m in s.request.messages],
    "request": lambda s: s.request.original,
    "sample": lambda s: s,
}


_HISTORY_ARGUMENTS = {"history", "messages", "request", "sample"}


class CallableTarget:
    """A Python function (sync or async) that answers a request.

    Arguments are passed by parameter name: ``query`` (or ``question``), ``history``
    (earlier messages as dicts), ``messages`` (the whole conversation), ``request``
    (the request as the evaluation set held it) and ``sample``. A function with one
    parameter of another name receives the query. It returns a string, or a dict with
    ``response`` and optionally ``retrieved_context`` (a list of ``{doc_uri, content}``
    objects or strings, read by :func:`context_chunk`), ``trace`` and ``usage`` (read
    by :func:`usage_from`). A reply beyond ``limits`` (:class:`ReplyLimits`) is the
    sample's error.

    ``timeout`` bounds the function's own call. A sync function runs in a daemon
    thread of its own, at most ``concurrency`` calls at once (a run passes its
    concurrency); its clock starts when its thread starts running it, so waiting for
    a free slot never counts. A sync call that overruns its timeout is abandoned:
    its sample gets the timeout error at once and its slot goes to the next call,
    while the thread runs on in the background until the function returns — its
    result is then discarded, and being a daemon thread it does not keep the process
    alive after the run (Python cannot stop a thread from outside, so a function
    that may hang should also bound its own I/O). An async function is cancelled at
    its timeout.
    """

    supplies_response = True

    def __init__(
        self,
        fn: Callable[..., Any],
        *,
        name: str | None = None,
        timeout: float | None = None,
        concurrency: int = DEFAULT_CONCURRENCY,
        limits: ReplyLimits | None = None,
    ) -> None:
        if concurrency < 1:
            raise TargetSetupError(f"concurrency must be at least 1, got {concurrency}")
        self.fn = fn
        self.name: str = name or str(getattr(fn, "__qualname__", repr(fn)))
        self.timeout = timeout
        self.concurrency = concurrency
        self.limits = limits or ReplyLimits()
        self._arg_names, self._required = _argument_names(fn)
        self._threads = ThreadedCalls(fn, concurrency)
        self.supports_history = bool(set(self._arg_names) & _HISTORY_ARGUMENTS)
        """Whether the function receives the conversation (a dialogue can be held)."""

    def __getstate__(self) -> dict[str, Any]:
        """The target without its running calls (threads, locks), so that it can be
        pickled and shipped to another process (a Ray worker)."""
        state = self.__dict__.copy()
        del state["_threads"]
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        """Rebuild the running calls' state for the function received."""
        self.__dict__.update(state)
        self._threads = ThreadedCalls(self.fn, self.concurrency)

    async def __call__(self, sample: Sample) -> Output:
        started = time.perf_counter()
        try:
            kwargs = self._arguments(sample)
            result, latency = await self._invoke(kwargs)
            output = _to_output(result, self.limits)
        except ReplyTooLarge as exc:
            return Output(error=str(exc), latency=time.perf_counter() - started)
        except Exception as exc:  # the target's failure is this sample's error, not the run's
            return Output(
                error=f"{type(exc).__name__}: {exc}", latency=time.perf_counter() - started
            )
        output.latency = latency
        return output

    def _arguments(self, sample: Sample) -> dict[str, Any]:
        """The function's arguments for ``sample``: a request held as a dict of inputs
        (MLflow's ``predict_fn(**inputs)``) fills the parameters its keys name; the
        others are filled by name (see the class)."""
        inputs = sample.request.original if isinstance(sample.request.original, dict) else {}
        kwargs: dict[str, Any] = {}
        for arg in self._arg_names:
            if arg in inputs and arg not in ("request", "sample"):
                kwargs[arg] = inputs[arg]
            elif arg in _ARGUMENTS:
                kwargs[arg] = _ARGUMENTS[arg](sample)
        if not kwargs and self._arg_names:
            return {self._arg_names[0]: sample.request.query}
        missing = [name for name in self._required if name not in kwargs]
        if missing:
            raise TargetError(
                f"parameters {missing} of {self.name} are neither keys of the row's request "
                f"nor any of {sorted(_ARGUMENTS)}"
            )
        return kwargs

    async def _invoke(self, kwargs: dict[str, Any]) -> tuple[Any, float]:
        """The function's result and how long its own call took."""
        if not inspect.iscoroutinefunction(self.fn):
            return await self._threads.call(kwargs, self.timeout)
        started = time.perf_counter()
        deadline = asyncio.timeout(self.timeout)
        try:
            async with deadline:
                result = await self.fn(**kwargs)
        except TimeoutError:
            if not deadline.expired():  # the function's own TimeoutError
                raise
            raise TimeoutError(f"no answer within {self.timeout:g} s") from None
        return result, time.perf_counter() - started


def _argument_names(fn: Callable[..., Any]) -> tuple[list[str], list[str]]:
    """The names of ``fn``'s parameters, and of those it requires. A required name
    ragjudge does not fill is filled from a request held as a dict of inputs, or is
    its sample's error."""
    try:
        params = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError) as exc:
        raise TargetSetupError(f"cannot read the signature of {fn!r}: {exc}") from exc
    names = [p.name for p in params if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)]
    required = [
        p.name
        for p in params
        if p.default is p.empty and p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)
    ]
    return names, required


def _to_output(result: Any, limits: ReplyLimits) -> Output:
    """The function's return value as an Output, within ``limits``; an MLflow trace in
    it gives the retrieved context and token usage the reply leaves out."""
    output = with_trace(_read_reply(result, limits))
    limits.check_output(output)
    return output


def _read_reply(result: Any, limits: ReplyLimits) -> Output:
    if isinstance(result, Output):
        return result
    if isinstance(result, str):
        return Output(response=result)
    if isinstance(result, Mapping) and (text := chat_reply_text(result)) is not None:
        return Output(response=text, tool_calls=tool_calls_of_reply(result))
    fields = reply_fields(result)
    if fields is None:
        raise TypeError(
            f"target returned {type(result).__name__}; expected a string, a chat message, "
            "a dict, a dataclass or a pydantic object"
        )
    if "response" not in fields:
        raise TypeError(
            f"target returned a {type(result).__name__} without 'response' "
            "(or answer, output, result, content)"
        )
    result = fields
    try:
        return Output(
            response=response_text(result["response"]),
            retrieved_context=_contexts(result.get("retrieved_context"), limits),
            trace=result.get("trace"),
            usage=usage_from(result.get("usage")),
            tool_calls=tool_calls_of_reply(result),
        )
    except ReplyTooLarge:
        raise
    except ValueError as exc:  # pydantic's ValidationError included
        raise TypeError(f"target returned a malformed dict: {exc}") from exc


def _contexts(value: Any, limits: ReplyLimits) -> list[ContextChunk] | None:
    if value is None:
        return None
    if not isinstance(value, list):
        raise ValueError(f"retrieved_context is {type(value).__name__}, not a list")
    return read_contexts(value, lambda i: f"retrieved_context[{i}]", limits)


def read_contexts(
    items: Sequence[Any], where: Callable[[int], str], limits: ReplyLimits
) -> list[ContextChunk]:
    """The contexts of a reply (each read by :func:`context_chunk`, ``where(i)``
    naming item ``i``), after checking that there are not more than ``limits``
    allows; :class:`ReplyTooLarge` otherwise, before any item is read."""
    limits.check_count(len(items))
    return [context_chunk(item, where(i)) for i, item in enumerate(items)]


def context_chunk(item: Any, where: str) -> ContextChunk:
    """One retrieved context from a target's reply: a plain string, or an object with
    ``content`` (or ``text``), ``doc_uri`` and an optional numeric ``score``; further
    keys are kept. ``where`` (the item's position in the reply) stands in for a
    missing ``doc_uri``, marked ``doc_uri_derived``. Anything else raises
    ``ValueError`` naming ``where``."""
    if isinstance(item, str):
        return ContextChunk.model_validate(derived_chunk(where, item))
    if not isinstance(item, Mapping):
        raise ValueError(f"{where!r} is {type(item).__name__}, not a context object or text")
    content = item.get("content", item.get("text"))
    if content is not None and not isinstance(content, str):
        raise ValueError(f"{where + '.content'!r} is {type(content).__name__}, not text")
    uri = item.get("doc_uri")
    score = item.get("score")
    extra = {k: v for k, v in item.items() if k not in ("doc_uri", "content", "text", "score")}
    return ContextChunk.model_validate(
        {
            **extra,
            "doc_uri": str(uri) if uri else where,
            "content": content,
            "score": float(score) if _is_number(score) else None,
            **({} if uri else {"doc_uri_derived": True}),
        }
    )


def usage_from(value: Any) -> Usage:
    """Token usage from a target's ``usage`` object: ``input_tokens``/``output_tokens``
    or OpenAI's ``prompt_tokens``/``completion_tokens``. No object (or no counts in
    it) counts no tokens."""
    if not isinstance(value, Mapping):
        return Usage()

    def count(*keys: str) -> int:
        for key in keys:
            if _is_number(value.get(key)):
                return int(value[key])
        return 0

    return Usage(
        input_tokens=count("input_tokens", "prompt_tokens"),
        output_tokens=count("output_tokens", "completion_tokens"),
    )


def _is_number(value: Any) -> TypeGuard[int | float]:
    return isinstance(value, int | float) and not isinstance(value, bool)


def target_from_object(
    obj: Any,
    *,
    name: str | None = None,
    where: str = "the target",
    timeout: float | None = None,
    concurrency: int = DEFAULT_CONCURRENCY,
    limits: ReplyLimits | None = None,
) -> Target:
    """The target ``obj`` is: a :class:`Target` as it is, a framework's application
    object recognised by its shape (see :mod:`ragjudge.targets._frameworks`) or a
    function, called as a :class:`CallableTarget`. Anything else is a
    :class:`TargetSetupError` naming the shapes accepted (``where`` names ``obj``)."""
    if hasattr(obj, "supplies_response"):
        return cast(Target, obj)
    settings: dict[str, Any] = {"timeout": timeout, "concurrency": concurrency, "limits": limits}
    call = framework_call(obj)
    if call is not None:
        target = CallableTarget(
            call.fn, name=name or f"{call.kind} {type(obj).__name__}", **settings
        )
        target.supports_history = call.takes_history
        return target
    if callable(obj):
        return CallableTarget(obj, name=name, **settings)
    raise no_known_shape(obj, where)
