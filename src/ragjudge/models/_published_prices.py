"""Published token prices of well-known models, from the maintained ``genai-prices``
package (MIT): a run and its dry run price calls without hand-entered prices.

A price found here is the provider's standard rate for a short request (no batch or
priority tier, no long-context surcharge), in dollars per one million tokens. Prices
in a config always win over these (see :class:`~ragjudge.models.PriceTable`).
"""

from __future__ import annotations

import re
from datetime import UTC, datetime
from decimal import Decimal
from functools import cache
from pathlib import Path
from typing import Any

PACKAGE = "genai-prices"
_PER_MILLION = 1_000_000
_PROBE_TOKENS = 1_000
"""Tokens the rate is read at: small enough to stay below any long-prompt tier."""


@cache
def _library() -> Any | None:
    try:
        import genai_prices
    except ImportError:
        return None
    return genai_prices


def available() -> bool:
    """Whether the published price list is installed."""
    return _library() is not None


@cache
def price_list_label() -> str:
    """Which published list prices come from and from when: the package's version and
    the day it was installed (upgrading the package brings newer prices)."""
    library = _library()
    if library is None:
        return f"{PACKAGE} (not installed)"
    installed = datetime.fromtimestamp(Path(library.__file__).stat().st_mtime, tz=UTC)
    return f"{PACKAGE} {library.__version__}, installed {installed:%Y-%m-%d}"


def _lookup_name(model: str) -> str:
    """The model name the list is searched with: without ragjudge's provider prefix
    (``openai/gpt-4o`` → ``gpt-4o``; ``litellm/anthropic/claude-…`` → ``anthropic/claude-…``,
    whose provider part the list reads)."""
    for prefix in ("litellm/", "openai/"):
        if model.startswith(prefix):
            return model[len(prefix) :]
    return model


def _rate(library: Any, model: str, **tokens: int) -> Decimal:
    usage = library.Usage(**tokens)
    return Decimal(library.calc_price(usage, model, provider_id="litellm").total_price)


@cache
def published_rates(model: str) -> tuple[float, float] | None:
    """The published ``(input, output)`` dollars per million tokens of ``model`` (a
    ragjudge model spec or a provider's model name), or ``None`` when the list is not installed or does not know the model."""
    library = _library()
    if library is None or not model.strip():
        return None
    name = _lookup_name(model)
    try:
        per_input = _rate(library, name, input_tokens=_PROBE_TOKENS)
        per_output = _rate(library, name, output_tokens=_PROBE_TOKENS)
    except LookupError:
        return None
    scale = Decimal(_PER_MILLION) / _PROBE_TOKENS
    return float(per_input * scale), float(per_output * scale)


@cache
def serves_published_prices(base_url: str) -> bool:
    """Whether ``base_url`` is a provider's own API the list knows (``api.openai.com``
    …). A model behind any other server (Ollama, vLLM, a proxy) is not priced from the
    list: its name says nothing about what that server charges."""
    library = _library()
    if library is None:
        return False
    from genai_prices.data_snapshot import get_snapshot

    return any(re.match(p.api_pattern, base_url) for p in get_snapshot().providers)
