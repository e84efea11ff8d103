"""Judge models: providers and the layer around them (cache, limits, retries, parsing,
recording, usage and cost).

Typical use::

    from ragjudge.models import get_model, ModelSettings, ResponseCache

    judge = get_model("openai/gpt-4o-mini", settings=ModelSettings(rpm=500),
                      cache=ResponseCache(".ragjudge/cache.db"))
    reply = await judge.generate([{"role": "user", "content": "..."}])
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ragjudge._lazy import lazy_names

# Each public name and the module that defines it, imported on first use: the store
# (which reads `models._types`) and the cache commands do not load the HTTP providers.
_EXPORTS = {
    "CallRecorder": "ragjudge.models._types",
    "ChatMessage": "ragjudge.models._types",
    "EmbeddingResult": "ragjudge.models._types",
    "ErrorKind": "ragjudge.models._types",
    "GenerateConfig": "ragjudge.models._types",
    "Generation": "ragjudge.models._types",
    "JudgeCallRecord": "ragjudge.models._types",
    "ModelError": "ragjudge.models._types",
    "Provider": "ragjudge.models._types",
    "CacheError": "ragjudge.models.cache",
    "CacheStats": "ragjudge.models.cache",
    "ResponseCache": "ragjudge.models.cache",
    "cache_key": "ragjudge.models.cache",
    "default_cache_path": "ragjudge.models.cache",
    "Limiter": "ragjudge.models.limits",
    "LimiterStats": "ragjudge.models.limits",
    "PermitSource": "ragjudge.models.limits",
    "RateLimits": "ragjudge.models.limits",
    "LiteLLMProvider": "ragjudge.models.litellm_provider",
    "REASK_MESSAGE": "ragjudge.models.model",
    "JudgeCallError": "ragjudge.models.model",
    "JudgeModel": "ragjudge.models.model",
    "ModelSettings": "ragjudge.models.model",
    "Parsed": "ragjudge.models.model",
    "get_model": "ragjudge.models.model",
    "make_provider": "ragjudge.models.model",
    "OpenAIProvider": "ragjudge.models.openai_provider",
    "ModelPrice": "ragjudge.models.pricing",
    "PriceTable": "ragjudge.models.pricing",
    "UsageTotals": "ragjudge.models.pricing",
    "UsageTracker": "ragjudge.models.pricing",
    "estimate_messages_tokens": "ragjudge.models.tokens",
    "estimate_tokens": "ragjudge.models.tokens",
}

if TYPE_CHECKING:
    from ragjudge.models._types import (
        CallRecorder,
        ChatMessage,
        EmbeddingResult,
        ErrorKind,
        GenerateConfig,
        Generation,
        JudgeCallRecord,
        ModelError,
        Provider,
    )
    from ragjudge.models.cache import (
        CacheError,
        CacheStats,
        ResponseCache,
        cache_key,
        default_cache_path,
    )
    from ragjudge.models.limits import Limiter, LimiterStats, PermitSource, RateLimits
    from ragjudge.models.litellm_provider import LiteLLMProvider
    from ragjudge.models.model import (
        REASK_MESSAGE,
        JudgeCallError,
        JudgeModel,
        ModelSettings,
        Parsed,
        get_model,
        make_provider,
    )
    from ragjudge.models.openai_provider import OpenAIProvider
    from ragjudge.models.pricing import ModelPrice, PriceTable, UsageTotals, UsageTracker
    from ragjudge.models.tokens import estimate_messages_tokens, estimate_tokens

__all__ = [
    "REASK_MESSAGE",
    "CacheError",
    "CacheStats",
    "CallRecorder",
    "ChatMessage",
    "EmbeddingResult",
    "ErrorKind",
    "GenerateConfig",
    "Generation",
    "JudgeCallError",
    "JudgeCallRecord",
    "JudgeModel",
    "Limiter",
    "LimiterStats",
    "LiteLLMProvider",
    "ModelError",
    "ModelPrice",
    "ModelSettings",
    "OpenAIProvider",
    "Parsed",
    "PermitSource",
    "PriceTable",
    "Provider",
    "RateLimits",
    "ResponseCache",
    "UsageTotals",
    "UsageTracker",
    "cache_key",
    "default_cache_path",
    "estimate_messages_tokens",
    "estimate_tokens",
    "get_model",
    "make_provider",
]

__getattr__ = lazy_names(__name__, _EXPORTS, globals())
