"""The embedders a run's metrics name: local models on this machine, other specs through
the judge layer with the judge's endpoint, limits and prices."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ragjudge.config import JudgeConfig
from ragjudge.errors import ConfigError
from ragjudge.metrics import Metric
from ragjudge.models import CallRecorder, PermitSource, ResponseCache, get_model
from ragjudge.models._embeddings import CachedEmbedder, RemoteEmbedder, get_embedder
from ragjudge.run._judging import (
    agent_config,
    judge_api_key,
    model_settings,
    prices_of,
    share_limiter,
)

__all__ = ["build_embedders"]


def build_embedders(
    judge: JudgeConfig | None,
    metrics: Sequence[Metric],
    cache: ResponseCache | None,
    limiters: dict[str, PermitSource] | None = None,
    recorder: CallRecorder | None = None,
) -> dict[str, Any]:
    """The embedders the metrics name (:meth:`~ragjudge.metrics.Metric.embedding_specs`):
    ``local`` models on this machine, other specs through the judge layer with the
    judge's endpoint, limits and prices, each request handed to ``recorder`` as judge
    calls are; each text's vector is kept in ``cache``. A spec that cannot be served is
    a :class:`ConfigError` before any work."""
    specs = sorted({spec for metric in metrics for spec in metric.embedding_specs()})
    built: dict[str, Any] = {}
    for spec in specs:
        try:
            embedder = _embedder(judge, spec, limiters, recorder)
        except (ImportError, ValueError) as exc:
            raise ConfigError(f"embedding {spec!r}: {exc}") from None
        built[spec] = embedder if cache is None else CachedEmbedder(embedder, cache)
    return built


def _embedder(
    judge: JudgeConfig | None,
    spec: str,
    limiters: dict[str, PermitSource] | None,
    recorder: CallRecorder | None,
) -> Any:
    if spec == "local" or spec.startswith("local/"):
        return get_embedder(spec)
    settings = agent_config(judge, spec)
    model = get_model(
        spec,
        base_url=settings.base_url,
        api_key=judge_api_key(settings),
        settings=model_settings(settings, cache=False),
        recorder=recorder,
        prices=prices_of(settings),
    )
    return RemoteEmbedder(share_limiter(model, limiters))
