"""The system under test over HTTP: an OpenAI-compatible chat endpoint or any JSON
API. A target never raises for a failed call: the sample's output carries the error.
Its name, errors and trace show URLs without credentials or key-like query values and
hold none of the configured header values."""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from typing import Any

from pydantic import ValidationError

from ragjudge._util.redact import scrub_url
from ragjudge._util.urls import join_path
from ragjudge.schema import Output, Sample, Usage
from ragjudge.targets._targets import ReplyLimits, ReplyTooLarge, TargetSetupError, usage_from
from ragjudge.targets.http._client import HttpCallError, HttpClient, check_url, excerpt
from ragjudge.targets.http._paths import ResponseFormatError, contexts_at, resolve_path, text_at
from ragjudge.targets.http._template import BodyTemplate, as_text, compact_json


async def _call(
    http: HttpClient,
    limits: ReplyLimits,
    method: str,
    url: str,
    read: Callable[[Any], Output],
    *,
    json_body: Any = None,
    params: Mapping[str, str] | None = None,
) -> Output:
    """One target call: send, read the reply with ``read(body) -> Output`` within
    ``limits``, and turn every failure into the sample's error."""
    started = time.perf_counter()
    try:
        reply = await http.request_json(method, url, json_body=json_body, params=params)
    except HttpCallError as exc:
        trace = {"http": {"url": exc.url, "status": exc.status, "attempts": exc.attempts}}
        return Output(error=str(exc), trace=trace, latency=time.perf_counter() - started)
    try:
        output = read(reply.body)
        limits.check_contexts(output.retrieved_context)
    except ReplyTooLarge as exc:
        return Output(error=str(exc), trace=reply.trace(), latency=time.perf_counter() - started)
    except (ResponseFormatError, ValidationError) as exc:
        message = http.scrub(f"{exc}; response body: {excerpt(compact_json(reply.body))}", url)
        return Output(error=message, trace=reply.trace(), latency=time.perf_counter() - started)
    output.trace = reply.trace()
    output.latency = time.perf_counter() - started
    return output


def _unexpected(target: str, http: HttpClient, url: str, exc: Exception) -> Output:
    """An unforeseen failure (a bug, a bad template value) as the sample's error: a
    target never stops the run."""
    return Output(error=http.scrub(f"target {target!r} failed: {type(exc).__name__}: {exc}", url))


class OpenAIChatTarget:
    """A system under test that speaks OpenAI chat completions.

    Each sample's whole conversation (history and query) is POSTed as ``messages`` to
    ``{base_url}/chat/completions`` (a query string of ``base_url`` kept after the
    path); the answer is ``choices[0].message.content``.
    When the app returns its retrieved contexts, ``context_field`` is the dotted path
    to them in the response JSON (``retrieved_context``, ``choices.0.message.context``),
    a list of ``{doc_uri, content}`` objects or strings. Token usage comes from
    ``usage``. ``extra_body`` is merged into every request body (``temperature`` …).
    ``limits`` caps the reply (:class:`~ragjudge.targets._targets.ReplyLimits`).
    """

    supplies_response = True
    supports_history = True

    def __init__(
        self,
        base_url: str,
        model: str,
        *,
        api_key: str | None = None,
        timeout: float = 60.0,
        context_field: str | None = None,
        headers: Mapping[str, str] | None = None,
        extra_body: Mapping[str, Any] | None = None,
        max_retries: int = 2,
        backoff: float = 0.5,
        name: str | None = None,
        limits: ReplyLimits | None = None,
    ) -> None:
        self.base_url = check_url(base_url).rstrip("/")
        self.model = model
        self.context_field = context_field
        self.extra_body = dict(extra_body or {})
        self.name: str = name or f"{model} @ {scrub_url(self.base_url)}"
        self.limits = limits or ReplyLimits()
        all_headers = dict(headers or {})
        if api_key:
            all_headers["Authorization"] = f"Bearer {api_key}"
        self.http = HttpClient(
            headers=all_headers,
            timeout=timeout,
            max_retries=max_retries,
            backoff=backoff,
            max_reply_bytes=self.limits.max_reply_bytes,
        )

    def __repr__(self) -> str:
        shown = scrub_url(self.base_url)
        return f"OpenAIChatTarget(base_url={shown!r}, model={self.model!r})"

    async def __call__(self, sample: Sample) -> Output:
        """Ask the endpoint; the answer, contexts and usage, or the sample's error."""
        url = join_path(self.base_url, "chat/completions")
        try:
            body = self.payload(sample)
            return await _call(self.http, self.limits, "POST", url, self._read, json_body=body)
        except Exception as exc:
            return _unexpected(self.name, self.http, url, exc)

    def payload(self, sample: Sample) -> dict[str, Any]:
        """The request body for ``sample``: the model and the whole conversation."""
        messages = [m.model_dump() for m in sample.request.messages]
        return {**self.extra_body, "model": self.model, "messages": messages}

    def _read(self, body: Any) -> Output:
        if isinstance(body, dict) and "error" in body and "choices" not in body:
            raise ResponseFormatError(f"the endpoint answered with an error: {body['error']}")
        response = text_at(body, "choices.0.message.content")
        contexts = (
            None
            if self.context_field is None
            else contexts_at(body, self.context_field, self.limits)
        )
        usage = usage_from(body.get("usage")) if isinstance(body, dict) else Usage()
        return Output(response=response, retrieved_context=contexts, usage=usage)

    async def aclose(self) -> None:
        """Close the HTTP client of the running loop."""
        await self.http.aclose()


class JsonApiTarget:
    """A system under test behind any JSON API.

    The request body is ``body_template`` (a JSON structure, or its JSON text) with
    placeholders filled per sample (see :class:`BodyTemplate`); with ``method="GET"``
    the rendered template's top-level fields are sent as query parameters instead.
    ``response_path`` is the dotted path to the answer text, ``context_path`` (optional)
    to the retrieved contexts, ``usage_path`` (optional) to an OpenAI-style usage object.
    ``limits`` caps the reply (:class:`~ragjudge.targets._targets.ReplyLimits`).
    """

    supplies_response = True

    def __init__(
        self,
        url: str,
        *,
        method: str = "POST",
        body_template: Any,
        response_path: str,
        context_path: str | None = None,
        usage_path: str | None = None,
        headers: Mapping[str, str] | None = None,
        timeout: float = 60.0,
        max_retries: int = 2,
        backoff: float = 0.5,
        name: str | None = None,
        limits: ReplyLimits | None = None,
    ) -> None:
        self.url = check_url(url)
        self.method = method.upper()
        if self.method not in ("GET", "POST", "PUT", "PATCH"):
            raise TargetSetupError(f"method must be GET, POST, PUT or PATCH, not {method!r}")
        self.template = BodyTemplate(body_template)
        if self.method == "GET" and not isinstance(self.template.template, dict):
            raise TargetSetupError(
                "a GET target's body_template must be an object (its query parameters)"
            )
        self.response_path = response_path
        self.context_path = context_path
        self.usage_path = usage_path
        self.name: str = name or f"{self.method} {scrub_url(self.url)}"
        self.limits = limits or ReplyLimits()
        self.http = HttpClient(
            headers=headers,
            timeout=timeout,
            max_retries=max_retries,
            backoff=backoff,
            max_reply_bytes=self.limits.max_reply_bytes,
        )

    @property
    def supports_history(self) -> bool:
        """Whether the request carries the conversation (the template uses
        ``{{history}}``, ``{{messages}}`` or ``{{request}}``)."""
        return bool(self.template.names & {"history", "messages", "request"})

    def __repr__(self) -> str:
        shown = scrub_url(self.url)
        return f"JsonApiTarget({self.method} {shown!r}, response_path={self.response_path!r})"

    async def __call__(self, sample: Sample) -> Output:
        """Call the API; the answer (and contexts, usage), or the sample's error."""
        try:
            body = self.template.render(BodyTemplate.values_for(sample))
            if self.method == "GET":
                params = {k: as_text(v) for k, v in body.items()}
                return await _call(
                    self.http, self.limits, "GET", self.url, self._read, params=params
                )
            return await _call(
                self.http, self.limits, self.method, self.url, self._read, json_body=body
            )
        except Exception as exc:
            return _unexpected(self.name, self.http, self.url, exc)

    def _read(self, body: Any) -> Output:
        response = text_at(body, self.response_path)
        contexts = (
            None if self.context_path is None else contexts_at(body, self.context_path, self.limits)
        )
        usage = (
            Usage() if self.usage_path is None else usage_from(resolve_path(body, self.usage_path))
        )
        return Output(response=response, retrieved_context=contexts, usage=usage)

    async def aclose(self) -> None:
        """Close the HTTP client of the running loop."""
        await self.http.aclose()
