"""Targets over HTTP: the system under test behind an OpenAI-compatible chat endpoint
(:class:`OpenAIChatTarget`) or any JSON API (:class:`JsonApiTarget`), and a retriever
behind an HTTP search endpoint (:class:`HttpRetriever`).

Every request gets bounded retries with exponential backoff, but only for failures a
retry can cure: HTTP 429, 408 and 5xx (``Retry-After`` is honoured), timeouts and
connection errors. A target never raises for a failed request: the sample's
:class:`~ragjudge.schema.Output` carries the error, naming the status, the URL and the
start of the body, and the run goes on with the other samples. ``Output.trace["http"]``
records the status, the number of attempts and why earlier attempts were retried.

Fields of the response JSON are addressed with dotted paths: ``data.answer``,
``choices.0.message.content``, ``results.0.text`` (a number indexes a list; keys that
contain dots cannot be addressed). A path the response lacks is an explicit error.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import re
import threading
import time
import weakref
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, TypeVar

import httpx
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from ragjudge.models.openai_provider import parse_retry_after
from ragjudge.schema import ContextChunk, Output, Sample, Usage
from ragjudge.targets import Target, TargetError, context_chunk, usage_from

__all__ = [
    "BodyTemplate",
    "HttpCallError",
    "HttpClient",
    "HttpReply",
    "HttpRetriever",
    "JsonApiTarget",
    "OpenAIChatTarget",
    "ResponseFormatError",
    "http_retriever_from_config",
    "http_target_from_config",
    "resolve_path",
]

EXCERPT_CHARS = 200
MAX_BACKOFF = 20.0
MAX_RETRY_AFTER = 60.0
"""A ``Retry-After`` longer than this ends the retries instead of stalling the run."""


class HttpCallError(RuntimeError):
    """An HTTP request that failed for good (after its retries, or at once when a
    retry cannot help)."""

    def __init__(self, message: str, *, url: str, attempts: int, status: int | None = None) -> None:
        super().__init__(message)
        self.url = url
        self.attempts = attempts
        self.status = status


class ResponseFormatError(ValueError):
    """The response arrived but does not hold what was asked for at the given path."""


# dotted paths -----------------------------------------------------------------------


def resolve_path(document: Any, path: str) -> Any:
    """The value at a dotted ``path`` in a parsed JSON ``document``.

    Each segment is an object key, or a list index (negative counts from the end).
    The empty path is the whole document. A missing step raises
    :class:`ResponseFormatError` naming the path and where it broke off.
    """
    if path in ("", "."):
        return document
    value = document
    walked: list[str] = []
    for segment in path.split("."):
        where = ".".join(walked) or "the top level"
        if isinstance(value, dict):
            if segment not in value:
                keys = ", ".join(sorted(map(str, value))[:12]) or "none"
                raise ResponseFormatError(
                    f"response has no {path!r}: the object at {where} has no key "
                    f"{segment!r} (keys: {keys})"
                )
            value = value[segment]
        elif isinstance(value, list):
            index = _list_index(segment, path, where)
            if not -len(value) <= index < len(value):
                raise ResponseFormatError(
                    f"response has no {path!r}: the list at {where} has {len(value)} items"
                )
            value = value[index]
        else:
            raise ResponseFormatError(
                f"response has no {path!r}: the value at {where} is "
                f"{_json_type(value)}, not an object or a list"
            )
        walked.append(segment)
    return value


def _list_index(segment: str, path: str, where: str) -> int:
    try:
        return int(segment)
    except ValueError:
        raise ResponseFormatError(
            f"response has no {path!r}: the value at {where} is a list, "
            f"and {segment!r} is not an index"
        ) from None


def _json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "a list"
    return "an object"


def _text_at(document: Any, path: str) -> str:
    """The text at ``path``: a string, a number, or a list of OpenAI content parts."""
    value = resolve_path(document, path)
    if isinstance(value, str):
        return value
    if isinstance(value, int | float) and not isinstance(value, bool):
        return str(value)
    if isinstance(value, list) and all(isinstance(p, dict) for p in value):
        return "".join(str(p.get("text", "")) for p in value)
    raise ResponseFormatError(f"{path!r} in the response is {_json_type(value)}, not text")


def _contexts_at(document: Any, path: str) -> list[ContextChunk] | None:
    """Chunks from the list at ``path``: items are ``{doc_uri, content}`` objects
    (``text`` is accepted for ``content``) or strings; a null value means none given."""
    value = resolve_path(document, path)
    if value is None:
        return None
    if not isinstance(value, list):
        raise ResponseFormatError(
            f"{path!r} in the response is {_json_type(value)}, not a list of contexts"
        )
    try:
        return [context_chunk(item, f"{path}.{i}") for i, item in enumerate(value)]
    except ValueError as exc:
        raise ResponseFormatError(f"in the response, {exc}") from None


# HTTP with bounded retries -------------------------------------------------------------


@dataclass
class HttpReply:
    """A successful response, parsed as JSON, and how many attempts it took."""

    url: str
    status: int
    body: Any
    attempts: int
    retried: list[str] = field(default_factory=list)
    """Why each earlier attempt failed."""

    def trace(self) -> dict[str, Any]:
        """The ``Output.trace`` entry for this exchange."""
        return {
            "http": {
                "url": self.url,
                "status": self.status,
                "attempts": self.attempts,
                "retried": self.retried,
            }
        }


class _Failure(Exception):
    """One failed attempt: whether a retry may cure it, and how long to wait."""

    def __init__(
        self,
        message: str,
        *,
        retryable: bool,
        status: int | None = None,
        retry_after: float | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.retryable = retryable
        self.status = status
        self.retry_after = retry_after


class HttpClient:
    """JSON over HTTP with timeouts and bounded retries.

    One :class:`httpx.AsyncClient` is created lazily in each running event loop and
    reused for every request made in that loop. ``timeout`` bounds each attempt as a
    whole (connecting, waiting and reading); ``max_retries`` is the number of retries
    after the first attempt; the wait before retry ``n`` is ``Retry-After`` when the
    server sends it, else ``backoff * 2**(n-1)`` seconds with jitter.
    """

    def __init__(
        self,
        *,
        headers: Mapping[str, str] | None = None,
        timeout: float = 60.0,
        max_retries: int = 2,
        backoff: float = 0.5,
    ) -> None:
        if timeout <= 0:
            raise TargetError(f"timeout must be positive, got {timeout}")
        if max_retries < 0:
            raise TargetError(f"max_retries must not be negative, got {max_retries}")
        self.headers = dict(headers or {})
        self.timeout = timeout
        self.max_retries = max_retries
        self.backoff = backoff
        self._clients: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, httpx.AsyncClient]
        self._clients = weakref.WeakKeyDictionary()
        self._lock = threading.Lock()

    async def request_json(
        self,
        method: str,
        url: str,
        *,
        json_body: Any = None,
        params: Mapping[str, str] | None = None,
    ) -> HttpReply:
        """Send the request, retrying what a retry can cure; the JSON reply or
        :class:`HttpCallError`."""
        retried: list[str] = []
        attempts = self.max_retries + 1
        for attempt in range(1, attempts + 1):
            try:
                response = await self._attempt(method, url, json_body, params)
            except _Failure as failure:
                wait = self._wait_before_retry(attempt, failure.retry_after)
                if not failure.retryable or attempt == attempts or wait is None:
                    raise _final_error(failure, url, attempt, wait is None) from None
                retried.append(failure.message)
                await asyncio.sleep(wait)
                continue
            body = _parse_json(response, url, attempt)
            return HttpReply(url, response.status_code, body, attempt, retried)
        raise AssertionError("unreachable: the loop returns or raises")

    async def aclose(self) -> None:
        """Close the running loop's client (a new one opens on next use)."""
        with self._lock:
            client = self._clients.pop(asyncio.get_running_loop(), None)
        if client is not None:
            await client.aclose()

    async def _attempt(
        self, method: str, url: str, json_body: Any, params: Mapping[str, str] | None
    ) -> httpx.Response:
        try:
            # httpx's timeout is per network operation; this bounds the whole attempt,
            # so a server that trickles bytes cannot hold a sample forever.
            async with asyncio.timeout(self.timeout):
                response = await self._client().request(method, url, json=json_body, params=params)
        except (TimeoutError, httpx.TimeoutException):
            raise _Failure(
                f"no response from {url} within {self.timeout:g} s", retryable=True
            ) from None
        except httpx.UnsupportedProtocol as exc:
            raise _Failure(f"cannot request {url}: {exc}", retryable=False) from None
        except httpx.TransportError as exc:
            raise _Failure(
                f"cannot reach {url}: {type(exc).__name__}: {exc}", retryable=True
            ) from None
        if response.status_code >= 300:
            raise _status_failure(response, url)
        return response

    def _wait_before_retry(self, attempt: int, retry_after: float | None) -> float | None:
        """Seconds to wait before the next attempt; None when the server asks for
        longer than :data:`MAX_RETRY_AFTER`."""
        if retry_after is not None:
            return retry_after if retry_after <= MAX_RETRY_AFTER else None
        delay = min(MAX_BACKOFF, self.backoff * 2.0 ** (attempt - 1))
        return delay * random.uniform(0.5, 1.0)

    def _client(self) -> httpx.AsyncClient:
        loop = asyncio.get_running_loop()
        with self._lock:
            client = self._clients.get(loop)
            if client is None or client.is_closed:
                client = httpx.AsyncClient(
                    headers=self.headers,
                    timeout=httpx.Timeout(self.timeout, connect=min(self.timeout, 10.0)),
                    follow_redirects=True,
                    limits=httpx.Limits(max_connections=256, max_keepalive_connections=64),
                )
                self._clients[loop] = client
        return client


def _status_failure(response: httpx.Response, url: str) -> _Failure:
    status = response.status_code
    retryable = status in (408, 429) or status >= 500
    return _Failure(
        f"HTTP {status} from {url}: {excerpt(response.text) or '(empty body)'}",
        retryable=retryable,
        status=status,
        retry_after=parse_retry_after(response.headers) if retryable else None,
    )


def _final_error(failure: _Failure, url: str, attempts: int, wait_too_long: bool) -> HttpCallError:
    note = f" ({attempts} attempt{'s' if attempts > 1 else ''})"
    if wait_too_long:
        note += f"; the server asked to retry after more than {MAX_RETRY_AFTER:g} s"
    return HttpCallError(failure.message + note, url=url, attempts=attempts, status=failure.status)


def _parse_json(response: httpx.Response, url: str, attempts: int) -> Any:
    try:
        return response.json()
    except ValueError:
        raise HttpCallError(
            f"response from {url} is not JSON (HTTP {response.status_code}, "
            f"{len(response.content)} bytes): {excerpt(response.text) or '(empty body)'}",
            url=url,
            attempts=attempts,
            status=response.status_code,
        ) from None


def excerpt(text: str, limit: int = EXCERPT_CHARS) -> str:
    """``text`` on one line, cut to ``limit`` characters."""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def _check_url(url: str) -> str:
    if not re.match(r"https?://[^/\s]+", url):
        raise TargetError(f"URL {url!r} must start with http:// or https:// and name a host")
    return url


async def _call(
    http: HttpClient,
    method: str,
    url: str,
    read: Callable[[Any], Output],
    *,
    json_body: Any = None,
    params: Mapping[str, str] | None = None,
) -> Output:
    """One target call: send, read the reply with ``read(body) -> Output``, and turn
    every failure into the sample's error."""
    started = time.perf_counter()
    try:
        reply = await http.request_json(method, url, json_body=json_body, params=params)
    except HttpCallError as exc:
        trace = {"http": {"url": url, "status": exc.status, "attempts": exc.attempts}}
        return Output(error=str(exc), trace=trace, latency=time.perf_counter() - started)
    try:
        output = read(reply.body)
    except (ResponseFormatError, ValidationError) as exc:
        message = f"{exc}; response body: {excerpt(_compact_json(reply.body))}"
        return Output(error=message, trace=reply.trace(), latency=time.perf_counter() - started)
    output.trace = reply.trace()
    output.latency = time.perf_counter() - started
    return output


def _compact_json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def _unexpected(target: str, exc: Exception) -> Output:
    """An unforeseen failure (a bug, a bad template value) as the sample's error: a
    target never stops the run."""
    return Output(error=f"target {target!r} failed: {type(exc).__name__}: {exc}")


# targets -----------------------------------------------------------------------------


class OpenAIChatTarget:
    """A system under test that speaks OpenAI chat completions.

    Each sample's whole conversation (history and query) is POSTed as ``messages`` to
    ``{base_url}/chat/completions``; the answer is ``choices[0].message.content``.
    When the app returns its retrieved contexts, ``context_field`` is the dotted path
    to them in the response JSON (``retrieved_context``, ``choices.0.message.context``),
    a list of ``{doc_uri, content}`` objects or strings. Token usage comes from
    ``usage``. ``extra_body`` is merged into every request body (``temperature`` …).
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
    ) -> None:
        self.base_url = _check_url(base_url).rstrip("/")
        self.model = model
        self.context_field = context_field
        self.extra_body = dict(extra_body or {})
        self.name: str = name or f"{model} @ {self.base_url}"
        all_headers = dict(headers or {})
        if api_key:
            all_headers["Authorization"] = f"Bearer {api_key}"
        self.http = HttpClient(
            headers=all_headers, timeout=timeout, max_retries=max_retries, backoff=backoff
        )

    def __repr__(self) -> str:
        return f"OpenAIChatTarget(base_url={self.base_url!r}, model={self.model!r})"

    async def __call__(self, sample: Sample) -> Output:
        """Ask the endpoint; the answer, contexts and usage, or the sample's error."""
        url = f"{self.base_url}/chat/completions"
        try:
            return await _call(self.http, "POST", url, self._read, json_body=self.payload(sample))
        except Exception as exc:
            return _unexpected(self.name, exc)

    def payload(self, sample: Sample) -> dict[str, Any]:
        """The request body for ``sample``: the model and the whole conversation."""
        messages = [m.model_dump() for m in sample.request.messages]
        return {**self.extra_body, "model": self.model, "messages": messages}

    def _read(self, body: Any) -> Output:
        if isinstance(body, dict) and "error" in body and "choices" not in body:
            raise ResponseFormatError(f"the endpoint answered with an error: {body['error']}")
        response = _text_at(body, "choices.0.message.content")
        contexts = None if self.context_field is None else _contexts_at(body, self.context_field)
        usage = usage_from(body.get("usage")) if isinstance(body, dict) else Usage()
        return Output(response=response, retrieved_context=contexts, usage=usage)

    async def aclose(self) -> None:
        """Close the HTTP client of the running loop."""
        await self.http.aclose()


PLACEHOLDERS = ("query", "history", "messages", "request_id", "request")
_PLACEHOLDER = re.compile(r"\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}")


class BodyTemplate:
    """A JSON request body with ``{{placeholder}}`` strings.

    Placeholders: ``query`` (the latest user message), ``history`` (the earlier
    messages), ``messages`` (the whole conversation), ``request_id`` and ``request``
    (the request as the evaluation set held it). A string that is exactly one
    placeholder is replaced by its JSON value (``"{{messages}}"`` becomes a list); a
    placeholder inside a longer string is replaced by its text (non-strings as JSON).
    Only values are templated, not object keys. The substitution works on the parsed
    structure, never on JSON text, so no value can break out of its string.
    """

    def __init__(self, template: Any) -> None:
        if isinstance(template, str):
            template = _parse_template_text(template)
        self.template = template
        self.names = frozenset(_placeholders_in(template))
        unknown = sorted(self.names - set(PLACEHOLDERS))
        if unknown:
            raise TargetError(
                f"body template uses unknown placeholders {unknown}; known: {list(PLACEHOLDERS)}"
            )

    def render(self, values: Mapping[str, Any]) -> Any:
        """The body with every placeholder replaced from ``values``."""
        return _render(self.template, values)

    @staticmethod
    def values_for(sample: Sample) -> dict[str, Any]:
        """The placeholder values of one sample."""
        request = sample.request
        return {
            "query": request.query,
            "history": [m.model_dump() for m in request.history],
            "messages": [m.model_dump() for m in request.messages],
            "request_id": sample.request_id,
            "request": request.original,
        }


def _parse_template_text(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError as exc:
        raise TargetError(
            f"body template {excerpt(text, 80)!r} is not JSON ({exc}); write a placeholder "
            'that stands for a list or object as a string, e.g. {"messages": "{{messages}}"}'
        ) from None


def _placeholders_in(template: Any) -> list[str]:
    if isinstance(template, str):
        return _PLACEHOLDER.findall(template)
    if isinstance(template, dict):
        return [n for v in template.values() for n in _placeholders_in(v)]
    if isinstance(template, list):
        return [n for v in template for n in _placeholders_in(v)]
    return []


def _render(template: Any, values: Mapping[str, Any]) -> Any:
    if isinstance(template, dict):
        return {k: _render(v, values) for k, v in template.items()}
    if isinstance(template, list):
        return [_render(v, values) for v in template]
    if not isinstance(template, str):
        return template
    whole = _PLACEHOLDER.fullmatch(template.strip())
    if whole:
        return values[whole.group(1)]
    return _PLACEHOLDER.sub(lambda m: _as_text(values[m.group(1)]), template)


def _as_text(value: Any) -> str:
    return value if isinstance(value, str) else _compact_json(value)


class JsonApiTarget:
    """A system under test behind any JSON API.

    The request body is ``body_template`` (a JSON structure, or its JSON text) with
    placeholders filled per sample (see :class:`BodyTemplate`); with ``method="GET"``
    the rendered template's top-level fields are sent as query parameters instead.
    ``response_path`` is the dotted path to the answer text, ``context_path`` (optional)
    to the retrieved contexts, ``usage_path`` (optional) to an OpenAI-style usage object.
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
    ) -> None:
        self.url = _check_url(url)
        self.method = method.upper()
        if self.method not in ("GET", "POST", "PUT", "PATCH"):
            raise TargetError(f"method must be GET, POST, PUT or PATCH, not {method!r}")
        self.template = BodyTemplate(body_template)
        if self.method == "GET" and not isinstance(self.template.template, dict):
            raise TargetError(
                "a GET target's body_template must be an object (its query parameters)"
            )
        self.response_path = response_path
        self.context_path = context_path
        self.usage_path = usage_path
        self.name: str = name or f"{self.method} {self.url}"
        self.http = HttpClient(
            headers=headers, timeout=timeout, max_retries=max_retries, backoff=backoff
        )

    @property
    def supports_history(self) -> bool:
        """Whether the request carries the conversation (the template uses
        ``{{history}}``, ``{{messages}}`` or ``{{request}}``)."""
        return bool(self.template.names & {"history", "messages", "request"})

    def __repr__(self) -> str:
        return f"JsonApiTarget({self.method} {self.url!r}, response_path={self.response_path!r})"

    async def __call__(self, sample: Sample) -> Output:
        """Call the API; the answer (and contexts, usage), or the sample's error."""
        try:
            body = self.template.render(BodyTemplate.values_for(sample))
            if self.method == "GET":
                params = {k: _as_text(v) for k, v in body.items()}
                return await _call(self.http, "GET", self.url, self._read, params=params)
            return await _call(self.http, self.method, self.url, self._read, json_body=body)
        except Exception as exc:
            return _unexpected(self.name, exc)

    def _read(self, body: Any) -> Output:
        response = _text_at(body, self.response_path)
        contexts = None if self.context_path is None else _contexts_at(body, self.context_path)
        usage = (
            Usage() if self.usage_path is None else usage_from(resolve_path(body, self.usage_path))
        )
        return Output(response=response, retrieved_context=contexts, usage=usage)

    async def aclose(self) -> None:
        """Close the HTTP client of the running loop."""
        await self.http.aclose()


# retriever ---------------------------------------------------------------------------


class HttpRetriever:
    """A retriever behind an HTTP search endpoint, e.g. the RAG system's own search.

    ``search(query, k)`` POSTs ``{query_field: query, k_field: k}`` to ``url`` and
    reads the list at ``results_path``; each result is an object with the text under
    ``content_key``, the document under ``doc_uri_key`` (its position when absent) and
    an optional numeric ``score``, or a plain string. Failures raise
    :class:`HttpCallError` or :class:`ResponseFormatError` (a metric records them as
    its score's error).
    """

    def __init__(
        self,
        url: str,
        *,
        query_field: str = "query",
        k_field: str = "k",
        results_path: str = "results",
        content_key: str = "content",
        doc_uri_key: str = "doc_uri",
        headers: Mapping[str, str] | None = None,
        timeout: float = 30.0,
        max_retries: int = 2,
        backoff: float = 0.5,
    ) -> None:
        self.url = _check_url(url)
        self.query_field = query_field
        self.k_field = k_field
        self.results_path = results_path
        self.content_key = content_key
        self.doc_uri_key = doc_uri_key
        self.http = HttpClient(
            headers=headers, timeout=timeout, max_retries=max_retries, backoff=backoff
        )

    def __repr__(self) -> str:
        return f"HttpRetriever({self.url!r})"

    async def search(self, query: str, k: int = 5) -> list[ContextChunk]:
        """The at most ``k`` chunks the endpoint returns for ``query``, in its order."""
        if k < 0:
            raise ValueError(f"k must not be negative, got {k}")
        if k == 0:
            return []
        body = {self.query_field: query, self.k_field: k}
        reply = await self.http.request_json("POST", self.url, json_body=body)
        results = resolve_path(reply.body, self.results_path)
        if not isinstance(results, list):
            raise ResponseFormatError(
                f"{self.results_path!r} in the search response is {_json_type(results)}, not a list"
            )
        return [self._chunk(item, i) for i, item in enumerate(results[:k])]

    def _chunk(self, item: Any, index: int) -> ContextChunk:
        where = f"{self.results_path}.{index}"
        if isinstance(item, str):
            return ContextChunk(doc_uri=where, content=item)
        if not isinstance(item, dict):
            raise ResponseFormatError(f"{where!r} in the search response is {_json_type(item)}")
        content = item.get(self.content_key)
        if not isinstance(content, str):
            raise ResponseFormatError(
                f"{where + '.' + self.content_key!r} in the search response is "
                f"{'missing' if content is None else _json_type(content)}, not text"
            )
        uri = item.get(self.doc_uri_key)
        score = item.get("score")
        return ContextChunk(
            doc_uri=str(uri) if uri else where,
            content=content,
            score=float(score) if isinstance(score, int | float) else None,
        )

    async def aclose(self) -> None:
        """Close the HTTP client of the running loop."""
        await self.http.aclose()


# configuration -----------------------------------------------------------------------


class _HttpSpec(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str | None = None
    headers: dict[str, str] | None = None
    timeout: float = Field(default=60.0, gt=0)
    max_retries: int = Field(default=2, ge=0, le=10)
    backoff: float = Field(default=0.5, ge=0)


class OpenAIChatSpec(_HttpSpec):
    """``target: {kind: openai_chat, ...}`` in a config file."""

    kind: Literal["openai_chat"]
    base_url: str
    model: str
    api_key: str | None = None
    api_key_env: str | None = None
    """The name of an environment variable holding the key (keeps it out of the file)."""
    context_field: str | None = None
    extra_body: dict[str, Any] | None = None


class JsonApiSpec(_HttpSpec):
    """``target: {kind: json_api, ...}`` in a config file."""

    kind: Literal["json_api"]
    url: str
    method: str = "POST"
    body_template: dict[str, Any] | list[Any] | str
    response_path: str
    context_path: str | None = None
    usage_path: str | None = None


class HttpRetrieverSpec(BaseModel):
    """``retriever: {kind: http, url: ...}``: the target's own search endpoint."""

    model_config = ConfigDict(extra="forbid")

    kind: Literal["http"] = "http"
    url: str
    query_field: str = "query"
    k_field: str = "k"
    results_path: str = "results"
    content_key: str = "content"
    doc_uri_key: str = "doc_uri"
    headers: dict[str, str] | None = None
    timeout: float = Field(default=30.0, gt=0)
    max_retries: int = Field(default=2, ge=0, le=10)


HTTP_TARGET_KINDS = ("openai_chat", "json_api")


def http_target_from_config(spec: Mapping[str, Any]) -> Target:
    """An HTTP target from its config mapping (``kind: openai_chat`` or ``json_api``);
    a bad or incomplete spec raises :class:`~ragjudge.targets.TargetError`."""
    kind = spec.get("kind")
    if kind == "openai_chat":
        chat = _validated(OpenAIChatSpec, spec)
        return OpenAIChatTarget(
            chat.base_url,
            chat.model,
            api_key=chat.api_key or _key_from_env(chat.api_key_env),
            timeout=chat.timeout,
            context_field=chat.context_field,
            headers=chat.headers,
            extra_body=chat.extra_body,
            max_retries=chat.max_retries,
            backoff=chat.backoff,
            name=chat.name,
        )
    if kind == "json_api":
        api = _validated(JsonApiSpec, spec)
        return JsonApiTarget(
            api.url,
            method=api.method,
            body_template=api.body_template,
            response_path=api.response_path,
            context_path=api.context_path,
            usage_path=api.usage_path,
            headers=api.headers,
            timeout=api.timeout,
            max_retries=api.max_retries,
            backoff=api.backoff,
            name=api.name,
        )
    raise TargetError(f"unknown HTTP target kind {kind!r}; known: {', '.join(HTTP_TARGET_KINDS)}")


def http_retriever_from_config(spec: Mapping[str, Any]) -> HttpRetriever:
    """An :class:`HttpRetriever` from its config mapping (``kind: http``)."""
    parsed = _validated(HttpRetrieverSpec, spec)
    return HttpRetriever(
        parsed.url,
        query_field=parsed.query_field,
        k_field=parsed.k_field,
        results_path=parsed.results_path,
        content_key=parsed.content_key,
        doc_uri_key=parsed.doc_uri_key,
        headers=parsed.headers,
        timeout=parsed.timeout,
        max_retries=parsed.max_retries,
    )


_Spec = TypeVar("_Spec", bound=BaseModel)


def _validated(model: type[_Spec], spec: Mapping[str, Any]) -> _Spec:
    try:
        return model.model_validate(dict(spec))
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(map(str, e['loc'])) or 'target'}: {e['msg']}" for e in exc.errors()
        )
        raise TargetError(f"bad {spec.get('kind')!r} spec: {problems}") from None


def _key_from_env(variable: str | None) -> str | None:
    if variable is None:
        return None
    value = os.environ.get(variable)
    if not value:
        raise TargetError(f"api_key_env: the environment variable {variable} is not set")
    return value
