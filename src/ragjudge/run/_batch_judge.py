"""The judge of ``mode: batch``: its provider, reaching the endpoint through the Batch
API, and the judge layer's settings for calls that wait for a batch."""

from __future__ import annotations

from ragjudge.config import ConfigError, EvalConfig, JudgeConfig
from ragjudge.config._eval import MAX_CONCURRENCY
from ragjudge.models import ModelSettings, OpenAIProvider, Provider, make_provider
from ragjudge.models._anthropic import AnthropicProvider
from ragjudge.models._batch_anthropic import AnthropicBatches
from ragjudge.models._batch_openai import OpenAIBatches
from ragjudge.models._batching import (
    Admission,
    BatchingProvider,
    BatchLedger,
    BatchService,
    BatchSettings,
)

BATCH_TIMEOUT = 26 * 3600.0
"""Seconds a batched call may wait for its reply: a batch's 24-hour window and the
time it waits to be sent and read."""

BATCHED_CALLS_AT_ONCE = 1_000_000
"""Batched calls that may wait at once: a call waiting in a batch holds no connection,
and the samples in flight already bound how many wait, so the judge's cap never holds
a batch back (a cap of ``batch_size`` would keep a second batch from forming while a
first one, filled by one metric, is out)."""


def batching_provider(
    judge: JudgeConfig,
    ledger: BatchLedger,
    api_key: str | None,
    admit: Admission | None = None,
) -> BatchingProvider:
    """The provider of a ``mode: batch`` judge: an ``openai/`` model's endpoint reached
    through OpenAI's Batch API, an ``anthropic/`` model's through Anthropic's Message
    Batches; its batches kept in ``ledger``; ``api_key``: the key the config names, if
    any; ``admit``: the check each batch passes before it is created (the cost ceiling)."""
    inner = make_provider(
        judge.model,
        base_url=judge.base_url,
        api_key=api_key,
        timeout=judge.timeout,
        max_reply_bytes=judge.max_reply_bytes,
    )
    service: BatchService
    if isinstance(inner, OpenAIProvider):
        service = OpenAIBatches(inner)
    elif isinstance(inner, AnthropicProvider):
        service = AnthropicBatches(inner, find_pause=judge.batch_poll)
    else:
        raise ConfigError(
            "judge.mode: batch needs an 'openai/<model>' or 'anthropic/<model>' judge, "
            f"not {judge.model!r}"
        )
    settings = BatchSettings(
        batch_size=judge.batch_size, batch_wait=judge.batch_wait, poll_interval=judge.batch_poll
    )
    return BatchingProvider(inner, service, ledger=ledger, settings=settings, admit=admit)


def batch_model_settings(settings: ModelSettings, judge: JudgeConfig) -> ModelSettings:
    """The judge layer's settings for batched calls: a call waits as long as its batch
    may take, as many calls may wait as the samples in flight make (the limits of
    direct calls do not apply to a batch queue), and a stopped run does not wait for its batches (they
    go on at the provider; the resumed run collects them)."""
    return settings.model_copy(
        update={
            "timeout": BATCH_TIMEOUT,
            "max_concurrency": max(settings.fixed_concurrency or 1, BATCHED_CALLS_AT_ONCE),
            "rpm": None,
            "tpm": None,
            "burst": None,
            "in_flight_grace": 0.0,
        }
    )


def direct_provider(provider: Provider) -> Provider:
    """The provider that answers at once: a batched judge's endpoint asked directly
    (for the pre-flight question), any other provider as it is."""
    return provider.inner if isinstance(provider, BatchingProvider) else provider


def batched_samples_in_flight(config: EvalConfig) -> int | None:
    """The samples a run keeps in flight for its batched judges when ``concurrency`` is
    not set: enough for each judge's calls to fill a batch (one call per sample at
    least), ``batch_size`` of the largest, at most the 1,000 the config allows. None
    when no judge is batched."""
    sizes = [judge.batch_size for judge in _judges_of(config) if judge.mode == "batch"]
    return min(MAX_CONCURRENCY, max(sizes)) if sizes else None


def with_batch_concurrency(config: EvalConfig) -> tuple[EvalConfig, str | None]:
    """``config`` with the samples in flight a batched run keeps when ``concurrency``
    is not set (see :func:`batched_samples_in_flight`), and the run's note saying what
    was chosen; an explicit ``concurrency`` is kept (it bounds the target's calls and
    a batch alike). The note is None when no judge is batched."""
    chosen = batched_samples_in_flight(config)
    if chosen is None:
        return config, None
    if "concurrency" in config.model_fields_set:
        note = f"batch mode: up to {config.concurrency} samples in flight (concurrency set)"
        return config, note
    note = f"batch mode: up to {chosen} samples in flight (concurrency not set)"
    return config.model_copy(update={"concurrency": chosen}), note


def _judges_of(config: EvalConfig) -> list[JudgeConfig]:
    named = list((config.judges or {}).values())
    return [config.judge, *named] if config.judge is not None else named
