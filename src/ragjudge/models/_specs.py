"""The provider a judge-model spec string names."""

from __future__ import annotations

from ragjudge.models._anthropic import AnthropicProvider
from ragjudge.models._litellm import LiteLLMProvider
from ragjudge.models._openai import OpenAIProvider
from ragjudge.models._settings import DEFAULT_MAX_REPLY_BYTES
from ragjudge.models._types import Provider
from ragjudge.models.scripted import ReplyScript, ScriptedProvider

SPEC_FORMS = "'openai/<model>', 'anthropic/<model>', 'litellm/<provider>/<model>', 'scripted' or 'scripted/<name>'"


def make_provider(
    spec: str,
    *,
    base_url: str | None = None,
    api_key: str | None = None,
    timeout: float = 60.0,
    max_reply_bytes: int = DEFAULT_MAX_REPLY_BYTES,
) -> Provider:
    """The raw provider a spec string names (see :func:`get_model`)."""
    kind, _, name = spec.strip().partition("/")
    if kind == "openai" and name:
        return OpenAIProvider(
            name,
            base_url=base_url,
            api_key=api_key,
            timeout=timeout,
            max_reply_bytes=max_reply_bytes,
        )
    if kind == "anthropic" and name:
        return AnthropicProvider(
            name,
            base_url=base_url,
            api_key=api_key,
            timeout=timeout,
            max_reply_bytes=max_reply_bytes,
        )
    if kind == "litellm" and "/" in name:
        return LiteLLMProvider(name, base_url=base_url, api_key=api_key, timeout=timeout)
    if kind == "scripted":
        return ScriptedProvider(ReplyScript(), model=name or "scripted")
    hint = f" (did you mean 'openai/{spec}'?)" if "/" not in spec and spec else ""
    raise ValueError(f"unknown judge model {spec!r}{hint}; use {SPEC_FORMS}")
