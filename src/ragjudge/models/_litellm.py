"""A provider that reaches any model LiteLLM supports (Anthropic, Gemini, Bedrock …).

LiteLLM is an optional extra (``pip install 'ragjudge[litellm]'``), imported on first
use. Its own retries are switched off: the layer around every provider retries.
"""

from __future__ import annotations

import importlib
import time
from collections.abc import Mapping
from types import ModuleType
from typing import Any

from ragjudge._util.redact import scrub_url, url_secrets
from ragjudge.errors import MissingExtra
from ragjudge.models._openai import parse_retry_after, scrub_error
from ragjudge.models._types import (
    ChatMessage,
    EmbeddingResult,
    GenerateConfig,
    Generation,
    ModelError,
)
from ragjudge.schema import Usage

INSTALL_HINT = "LiteLLM is not installed; install it with: pip install 'ragjudge[litellm]'"


def import_litellm() -> ModuleType:
    """Import :mod:`litellm`, or raise :class:`~ragjudge.errors.MissingExtra` (an
    ``ImportError``) saying how to install it."""
    try:
        return importlib.import_module("litellm")
    except ImportError as exc:
        raise MissingExtra(INSTALL_HINT, extra="litellm") from exc


def _class_names(exc: BaseException) -> set[str]:
    return {cls.__name__ for cls in type(exc).__mro__}


def error_from_litellm(exc: Exception) -> ModelError:
    """Map a LiteLLM (or OpenAI SDK) exception to a :class:`ModelError` by its class
    and HTTP status."""
    names = _class_names(exc)
    status = getattr(exc, "status_code", None)
    status = status if isinstance(status, int) else None
    # the SDK beneath LiteLLM answers with httpx's or httpx2's response: read it by shape
    headers = getattr(getattr(exc, "response", None), "headers", None)
    retry_after = parse_retry_after(headers) if isinstance(headers, Mapping) else None
    message = f"{type(exc).__name__}: {exc}"
    if names & {"Timeout", "APITimeoutError"} or status == 408:
        return ModelError(message, kind="timeout", status=status)
    if "RateLimitError" in names or status == 429:
        return ModelError(message, kind="rate_limit", status=status, retry_after=retry_after)
    if "APIConnectionError" in names and status is None:
        return ModelError(message, kind="connection")
    if status is not None and 400 <= status < 500:
        return ModelError(message, kind="client", status=status)
    if "APIResponseValidationError" in names:
        return ModelError(message, kind="bad_response", status=status)
    return ModelError(message, kind="server", status=status, retry_after=retry_after)


def _field(obj: Any, name: str) -> Any:
    """``obj.name`` or ``obj[name]``: LiteLLM returns objects that allow either."""
    if isinstance(obj, dict):
        return obj.get(name)
    return getattr(obj, name, None)


def _usage(response: Any) -> Usage:
    usage = _field(response, "usage")
    if usage is None:
        return Usage()
    return Usage(
        input_tokens=int(_field(usage, "prompt_tokens") or 0),
        output_tokens=int(_field(usage, "completion_tokens") or 0),
    )


class LiteLLMProvider:
    """A model addressed as ``<provider>/<model>`` in LiteLLM's naming, e.g.
    ``anthropic/claude-3-5-haiku-latest``. Keys come from the variables LiteLLM reads
    (``ANTHROPIC_API_KEY`` …) unless ``api_key`` is given. Error messages never hold
    the key or URL credentials."""

    name = "litellm"

    def __init__(
        self,
        model: str,
        *,
        base_url: str | None = None,
        api_key: str | None = None,
        timeout: float = 60.0,
    ) -> None:
        if "/" not in model:
            raise ValueError(f"LiteLLM model must look like '<provider>/<model>', got {model!r}")
        self.model = model
        self.base_url = base_url
        self.timeout = timeout
        self._api_key = api_key
        self._secrets = [*([api_key] if api_key else []), *url_secrets(base_url or "")]

    def __repr__(self) -> str:
        return f"LiteLLMProvider(model={self.model!r})"

    @property
    def endpoint(self) -> str | None:
        """The ``base_url`` without credentials, or None when LiteLLM picks the
        provider's own endpoint."""
        return scrub_url(self.base_url) if self.base_url else None

    @property
    def secrets(self) -> list[str]:
        """The credentials it was given: its key and the secrets written in its base
        URL (the keys LiteLLM reads from the environment itself are not known here)."""
        return list(self._secrets)

    def _error(self, exc: Exception) -> ModelError:
        return scrub_error(error_from_litellm(exc), self._secrets)

    async def complete(self, messages: list[ChatMessage], config: GenerateConfig) -> Generation:
        """One ``litellm.acompletion`` call, without LiteLLM's retries."""
        litellm = import_litellm()
        # Log probabilities are not read from LiteLLM's replies, so they are not asked
        # for either: a provider that does not support them would refuse the call.
        options = config.model_dump(exclude_none=True, exclude={"logprobs", "top_logprobs"})
        if "stop" in options:
            options["stop"] = list(options["stop"])
        started = time.perf_counter()
        try:
            response = await litellm.acompletion(
                model=self.model, messages=messages, **self._call_options(), **options
            )
        except Exception as exc:
            raise self._error(exc) from None
        return Generation(
            text=self._text(response),
            usage=_usage(response),
            model=str(_field(response, "model") or self.model),
            latency=time.perf_counter() - started,
        )

    async def embed(self, texts: list[str]) -> EmbeddingResult:
        """One ``litellm.aembedding`` call."""
        litellm = import_litellm()
        try:
            response = await litellm.aembedding(
                model=self.model, input=texts, **self._call_options()
            )
        except Exception as exc:
            raise self._error(exc) from None
        data = _field(response, "data") or []
        try:
            vectors = [[float(x) for x in _field(item, "embedding")] for item in data]
        except (TypeError, ValueError) as exc:
            raise ModelError(f"malformed embeddings response: {exc}", kind="bad_response") from exc
        if len(vectors) != len(texts):
            raise ModelError(
                f"embeddings response holds {len(vectors)} vectors for {len(texts)} texts",
                kind="bad_response",
            )
        return EmbeddingResult(vectors=vectors, usage=_usage(response), model=self.model)

    def _call_options(self) -> dict[str, Any]:
        options: dict[str, Any] = {"timeout": self.timeout, "num_retries": 0, "max_retries": 0}
        if self.base_url:
            options["api_base"] = self.base_url
        if self._api_key:
            options["api_key"] = self._api_key
        return options

    @staticmethod
    def _text(response: Any) -> str:
        choices = _field(response, "choices")
        if not choices:
            raise ModelError("response holds no choices", kind="bad_response")
        content = _field(_field(choices[0], "message"), "content")
        if not isinstance(content, str):
            raise ModelError("response holds no message content", kind="bad_response")
        return content
