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

from ragjudge._util.lazy import lazy_names

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
    "TokenLogprob": "ragjudge.models._types",
    "TopLogprob": "ragjudge.models._types",
    "CacheError": "ragjudge.models._cache",
    "CacheStats": "ragjudge.models._cache",
    "ResponseCache": "ragjudge.models._cache",
    "cache_key": "ragjudge.models._cache",
    "default_cache_path": "ragjudge.models._cache",
    "Limiter": "ragjudge.models._limits",
    "LimiterStats": "ragjudge.models._limits",
    "PermitSource": "ragjudge.models._limits",
    "RateLimits": "ragjudge.models._limits",
    "LiteLLMProvider": "ragjudge.models._litellm",
    "REASK_MESSAGE": "ragjudge.models._conversation",
    "JudgeCallError": "ragjudge.models._model",
    "JudgeModel": "ragjudge.models._model",
    "Judge": "ragjudge.models._results",
    "ModelSettings": "ragjudge.models._model",
    "Parsed": "ragjudge.models._model",
    "get_model": "ragjudge.models._model",
    "make_provider": "ragjudge.models._model",
    "OpenAIProvider": "ragjudge.models._openai",
    "ModelPrice": "ragjudge.models._pricing",
    "PriceTable": "ragjudge.models._pricing",
    "UsageTotals": "ragjudge.models._pricing",
    "UsageTracker": "ragjudge.models._pricing",
    "estimate_messages_tokens": "ragjudge.models._tokens",
    "estimate_tokens": "ragjudge.models._tokens",
}

if TYPE_CHECKING:
    from ragjudge.models._cache import (
        CacheError,
        CacheStats,
        ResponseCache,
        cache_key,
        default_cache_path,
    )
    from ragjudge.models._conversation import REASK_MESSAGE
    from ragjudge.models._limits import Limiter, LimiterStats, PermitSource, RateLimits
    from ragjudge.models._litellm import LiteLLMProvider
    from ragjudge.models._model import (
        JudgeCallError,
        JudgeModel,
        ModelSettings,
        Parsed,
        get_model,
        make_provider,
    )
    from ragjudge.models._openai import OpenAIProvider
    from ragjudge.models._pricing import ModelPrice, PriceTable, UsageTotals, UsageTracker
    from ragjudge.models._results import Judge
    from ragjudge.models._tokens import estimate_messages_tokens, estimate_tokens
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
        TokenLogprob,
        TopLogprob,
    )

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
    "Judge",
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
    "TokenLogprob",
    "TopLogprob",
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
