"""HTTP targets and retrievers from their mappings in a config file."""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from ragjudge.http_targets._retriever import HttpRetriever
from ragjudge.http_targets._targets import JsonApiTarget, OpenAIChatTarget
from ragjudge.targets import Target, TargetError


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
