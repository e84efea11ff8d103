"""Judge models: providers and the layer around them (cache, limits, retries, parsing,
recording, usage and cost).

Typical use::

    from ragjudge.models import get_model, ModelSettings, ResponseCache

    judge = get_model("openai/gpt-4o-mini", settings=ModelSettings(rpm=500),
                      cache=ResponseCache(".ragjudge/cache.db"))
    reply = await judge.generate([{"role": "user", "content": "..."}])
"""

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
