"""HTTP targets and retrievers from their mappings in a config file.

``${VAR}`` references in a mapping are expanded here (again), so that a run resumed
from its stored record — which keeps the references, never the secrets — reads them
from the environment afresh.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from ragjudge._util.redact import MASK, is_secret_name
from ragjudge.config import ConfigError, expand_environment
from ragjudge.targets._targets import DEFAULT_MAX_REPLY_BYTES, ReplyLimits, Target, TargetSetupError
from ragjudge.targets.http._retriever import HttpRetriever
from ragjudge.targets.http._targets import JsonApiTarget, OpenAIChatTarget


class _HttpSpec(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str | None = None
    headers: dict[str, str] | None = None
    timeout: float = Field(default=60.0, gt=0)
    max_retries: int = Field(default=2, ge=0, le=10)
    backoff: float = Field(default=0.5, ge=0)
    max_reply_bytes: int | None = Field(default=None, gt=0)
    max_contexts: int | None = Field(default=None, gt=0)
    max_context_bytes: int | None = Field(default=None, gt=0)

    def limits(self) -> ReplyLimits:
        """The caps on a reply, defaults for those not given."""
        return ReplyLimits.of(
            max_reply_bytes=self.max_reply_bytes,
            max_contexts=self.max_contexts,
            max_context_bytes=self.max_context_bytes,
        )


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
    max_reply_bytes: int = Field(default=DEFAULT_MAX_REPLY_BYTES, gt=0)


HTTP_TARGET_KINDS = ("openai_chat", "json_api")


def http_target_from_config(spec: Mapping[str, Any]) -> Target:
    """An HTTP target from its config mapping (``kind: openai_chat`` or ``json_api``);
    a bad or incomplete spec raises :class:`~ragjudge.errors.TargetSetupError`."""
    spec = _expanded(spec, "target")
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
            limits=chat.limits(),
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
            limits=api.limits(),
        )
    raise TargetSetupError(
        f"unknown HTTP target kind {kind!r}; known: {', '.join(HTTP_TARGET_KINDS)}"
    )


def http_retriever_from_config(spec: Mapping[str, Any]) -> HttpRetriever:
    """An :class:`HttpRetriever` from its config mapping (``kind: http``)."""
    parsed = _validated(HttpRetrieverSpec, _expanded(spec, "retriever"))
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
        max_reply_bytes=parsed.max_reply_bytes,
    )


def _expanded(spec: Mapping[str, Any], what: str) -> dict[str, Any]:
    """``spec`` with its ``${VAR}`` references expanded; a secret that a stored
    record masked is refused, as it cannot be sent."""
    try:
        expanded: dict[str, Any] = expand_environment(dict(spec), source=what)
    except ConfigError as exc:
        raise TargetSetupError(str(exc)) from None
    masked = _masked_fields(expanded)
    if masked:
        raise TargetSetupError(
            f"{what} {', '.join(masked)}: the secret was not stored with the run (it was "
            "written in the config, not as ${VAR}); give it again as a ${VAR} reference"
        )
    return expanded


def _masked_fields(spec: Mapping[str, Any]) -> list[str]:
    """The fields of ``spec`` that hold a masked secret instead of a value."""
    found = [f"headers.{k}" for k, v in (spec.get("headers") or {}).items() if v == MASK]
    found += [k for k, v in spec.items() if v == MASK and is_secret_name(str(k))]
    for key in ("url", "base_url"):
        url = spec.get(key)
        if isinstance(url, str) and (f"={MASK}" in url or f"{MASK}@" in url):
            found.append(key)
    return found


_Spec = TypeVar("_Spec", bound=BaseModel)


def _validated(model: type[_Spec], spec: Mapping[str, Any]) -> _Spec:
    try:
        return model.model_validate(dict(spec))
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(map(str, e['loc'])) or 'target'}: {e['msg']}" for e in exc.errors()
        )
        raise TargetSetupError(f"bad {spec.get('kind')!r} spec: {problems}") from None


def _key_from_env(variable: str | None) -> str | None:
    if variable is None:
        return None
    value = os.environ.get(variable)
    if not value:
        raise TargetSetupError(f"api_key_env: the environment variable {variable} is not set")
    return value
