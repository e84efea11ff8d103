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

from ragjudge.targets.http._client import EXCERPT_CHARS as EXCERPT_CHARS
from ragjudge.targets.http._client import MAX_BACKOFF as MAX_BACKOFF
from ragjudge.targets.http._client import MAX_RETRY_AFTER as MAX_RETRY_AFTER
from ragjudge.targets.http._client import HttpCallError, HttpClient, HttpReply
from ragjudge.targets.http._client import excerpt as excerpt
from ragjudge.targets.http._config import HTTP_TARGET_KINDS as HTTP_TARGET_KINDS
from ragjudge.targets.http._config import HttpRetrieverSpec as HttpRetrieverSpec
from ragjudge.targets.http._config import JsonApiSpec as JsonApiSpec
from ragjudge.targets.http._config import OpenAIChatSpec as OpenAIChatSpec
from ragjudge.targets.http._config import http_retriever_from_config, http_target_from_config
from ragjudge.targets.http._paths import ResponseFormatError, resolve_path
from ragjudge.targets.http._retriever import HttpRetriever
from ragjudge.targets.http._targets import JsonApiTarget, OpenAIChatTarget
from ragjudge.targets.http._template import PLACEHOLDERS as PLACEHOLDERS
from ragjudge.targets.http._template import BodyTemplate

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
