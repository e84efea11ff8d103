"""Setting up the judge model for a run: from the config to a
:class:`~ragjudge.models.JudgeModel` whose calls are stored with the run."""

from __future__ import annotations

import asyncio
import functools
import os
from collections.abc import Sequence
from pathlib import Path

from ragjudge.config import ConfigError, EvalConfig, JudgeConfig
from ragjudge.metrics import Metric
from ragjudge.models import (
    CacheError,
    CallRecorder,
    GenerateConfig,
    JudgeCallRecord,
    JudgeModel,
    LiteLLMProvider,
    ModelError,
    ModelSettings,
    OpenAIProvider,
    PermitSource,
    PriceTable,
    Provider,
    ResponseCache,
    get_model,
    make_provider,
)
from ragjudge.models._batching import BatchingProvider
from ragjudge.models._cache import provider_endpoint
from ragjudge.models._litellm import import_litellm
from ragjudge.models._openai import resolve_base_url
from ragjudge.models._recording import INTERRUPTED
from ragjudge.run._batch_judge import batch_model_settings, batching_provider, direct_provider
from ragjudge.run._ceiling import BatchSpending, call_recorded
from ragjudge.store._group_commit import GroupWriter
from ragjudge.store._store import Store


def check_judge(
    judge: JudgeConfig | None, metrics: Sequence[Metric], *, provider: Provider | None = None
) -> None:
    """Before any work: a judge metric without a usable judge, an unknown model spec
    (judge or agent) or an OpenAI model without a key is a clear error."""
    needing = list(dict.fromkeys(m.name for m in metrics if m.needs_judge))
    names = ", ".join(repr(n) for n in needing)
    if needing and provider is None:
        if judge is None:
            raise ConfigError(
                f"metric {names} needs a judge model; add e.g. 'judge: openai/<model>' to the "
                "config (any OpenAI-compatible server via OPENAI_BASE_URL, or OpenAI with "
                "OPENAI_API_KEY)"
            )
        _check_usable(judge, f"metric {names} needs the judge")
    for metric in metrics:
        for role, spec in metric.model_roles().items():
            who = f"metric {metric.name!r} needs the {role} model"
            _check_usable(agent_config(judge, spec), who)


def check_judges(
    config: EvalConfig, metrics: Sequence[Metric], *, provider: Provider | None = None
) -> None:
    """:func:`check_judge` for the run's judge, or for each of its named ``judges``."""
    check_judge(config.primary_judge, metrics, provider=provider)
    if not any(m.needs_judge for m in metrics):
        return
    for name, judge in list((config.judges or {}).items())[1:]:
        _check_usable(judge, f"the judge {name!r}")


def check_usable(judge: JudgeConfig, who: str) -> None:
    """:class:`ConfigError` naming ``who`` when ``judge`` has no endpoint it could call."""
    _check_usable(judge, who)


def _check_usable(judge: JudgeConfig, who: str) -> None:
    try:
        provider = make_provider(judge.model, base_url=judge.base_url, api_key=judge_api_key(judge))
    except ValueError as exc:
        raise ConfigError(f"{who}: {exc}") from exc
    if isinstance(provider, OpenAIProvider) and not provider.has_credentials:
        raise ConfigError(
            f"{who} {judge.model!r}, but no endpoint is configured: set OPENAI_BASE_URL to "
            "an OpenAI-compatible server (vLLM, Ollama, LM Studio …) or OPENAI_API_KEY for "
            "OpenAI, or 'base_url' under 'judge' in the config"
        )
    if isinstance(provider, LiteLLMProvider):
        try:
            import_litellm()
        except ImportError as exc:
            raise ConfigError(f"{who} {judge.model!r}: {exc}") from None


def judge_api_key(judge: JudgeConfig) -> str | None:
    if judge.api_key_env is None:
        return None
    key = os.environ.get(judge.api_key_env)
    if not key:
        raise ConfigError(f"judge.api_key_env names {judge.api_key_env}, which is not set")
    return key


class JudgeUnavailable(ConfigError):
    """The judge or an agent model did not answer the pre-flight question."""


PREFLIGHT_PROMPT = "Reply with the single word OK."
PREFLIGHT_PURPOSE = "preflight"
_ANSWERED = ("rate_limit", "server")


async def preflight(models: Sequence[JudgeModel]) -> list[JudgeCallRecord]:
    """Ask each distinct model the pre-flight question (:func:`ask_preflight`) up
    front, one after the other; returns the calls made, for the run to record once it
    exists. A run whose judge calls are made in this process asks each model instead
    when its first request goes out (:mod:`ragjudge.run._preflights`)."""
    records: list[JudgeCallRecord] = []

    async def keep(record: JudgeCallRecord) -> int:
        records.append(record)
        return len(records)

    seen: set[int] = set()
    for model in models:
        if id(model) not in seen:
            seen.add(id(model))
            await ask_preflight(model, keep)
    return records


async def ask_preflight(model: JudgeModel, recorder: CallRecorder) -> None:
    """Ask ``model`` one short question with at most one retry and no cache, under
    its own limiter (the question takes a permit like any call); raise
    :class:`JudgeUnavailable` naming the model when it does not answer (unreachable,
    timed out, not an OpenAI-compatible reply) or refuses the request (a wrong model
    name or key), and why. A model that answers 429 or 5xx is there (the run's retries
    deal with those). Scripted models are not asked; the call goes to ``recorder``."""
    if model.provider.name == "scripted":
        return
    settings = model.settings.model_copy(
        update={"max_retries": 1, "timeout": min(model.settings.timeout, 30.0), "cache": False}
    )
    direct = direct_provider(model.provider)  # a batch's reply may take hours
    probe = JudgeModel(direct, settings=settings, recorder=recorder, prices=model.prices)
    probe.limiter = model.limiter
    try:
        await probe.generate(
            [{"role": "user", "content": PREFLIGHT_PROMPT}],
            GenerateConfig(max_tokens=8, temperature=0.0),
            purpose=PREFLIGHT_PURPOSE,
        )
    except ModelError as exc:
        if exc.kind in _ANSWERED:
            return
        raise JudgeUnavailable(
            f"the judge model {model.spec} does not answer ({exc.kind}): {exc}; "
            "the run stopped (set 'preflight: false' under 'judge' to skip this check)"
        ) from None


async def record_calls(
    store: Store,
    run_id: str,
    judge: JudgeConfig | None,
    records: Sequence[JudgeCallRecord],
    name: str | None = None,
) -> None:
    """Store calls made before the run existed (the pre-flight questions), priced;
    ``name``: the named judge that made them."""
    recorder = store_recorder(store, run_id, prices_of(judge), name)
    for record in records:
        await recorder(record)


def prices_of(judge: JudgeConfig | None) -> PriceTable:
    """The prices calls of ``judge`` are charged at: the config's, else the published
    ones of its model (unless it is served by a server that is not the provider's own
    API); a run and its dry run use the same."""
    if judge is None:
        return PriceTable(published=True)
    share = judge.batch_price_share if judge.mode == "batch" else 1.0
    return PriceTable(judge.prices, published=True, server=judge_server(judge), share=share)


def judge_server(judge: JudgeConfig) -> str | None:
    """The base URL ``judge``'s requests go to, when the config decides it (an
    OpenAI-compatible spec falls back to ``OPENAI_BASE_URL``, then OpenAI's)."""
    if judge.model.startswith("openai/"):
        return resolve_base_url(judge.base_url)
    return judge.base_url


def generate_config(judge: JudgeConfig | None) -> GenerateConfig:
    """The sampling settings every judge call of the run uses."""
    if judge is None:
        return GenerateConfig()
    return GenerateConfig(
        temperature=judge.temperature, max_tokens=judge.max_tokens, seed=judge.seed
    )


def model_settings(judge: JudgeConfig, *, cache: bool) -> ModelSettings:
    """The judge layer's settings from the judge config (its ModelSettings part)."""
    fields = judge.model_dump(include=set(ModelSettings.model_fields))
    return ModelSettings.model_validate({**fields, "cache": cache})


def agent_config(judge: JudgeConfig | None, spec: str) -> JudgeConfig:
    """An agent model's config: the judge's (endpoint, limits, prices) with its own spec."""
    return (judge or JudgeConfig(model=spec)).model_copy(update={"model": spec})


class StoreRecorder:
    """Stores each judge call with run ``run_id``, priced from ``prices`` (cache hits
    cost nothing; no table, no cost). A call is stored before its request goes out and
    completed when it ends, so one in flight when the process ends stays on record.

    The writes of calls that arrive in one turn of the event loop share a transaction
    (:class:`~ragjudge.store._group_commit.GroupWriter`); each still returns only once
    committed, so a request goes out only after its record is on disk."""

    def __init__(
        self,
        store: Store,
        run_id: str,
        prices: PriceTable | None = None,
        judge: str | None = None,
    ) -> None:
        self.store = store
        self.run_id = run_id
        self.prices = prices
        self.judge = judge
        """The named judge of a judge matrix whose calls these are, stored with each."""
        self.writer = GroupWriter(store, run_id, prices, judge=judge, delay=0)

    async def __call__(self, call: JudgeCallRecord) -> int:
        """Store a finished call."""
        call_id = await self.writer.save(call)
        call_recorded(self.run_id)
        return call_id

    async def begin(self, call: JudgeCallRecord) -> int:
        """Store a call whose request is about to go out. A caller cancelled while the
        write commits sends nothing: its record is then completed as interrupted."""
        stored = self.writer.begin(call)
        try:
            return await asyncio.shield(stored)
        except asyncio.CancelledError:
            stored.add_done_callback(functools.partial(self._interrupted, call))
            raise

    async def end(self, call_id: int, call: JudgeCallRecord) -> None:
        """Complete a call stored by :meth:`begin` (a caller cancelled while waiting
        leaves the write queued: it is committed all the same)."""
        await self.writer.end(call_id, call)
        call_recorded(self.run_id)

    def _interrupted(self, call: JudgeCallRecord, stored: asyncio.Future[int]) -> None:
        if not stored.cancelled() and stored.exception() is None:
            ended = call.model_copy(update={"error": INTERRUPTED})
            self.writer.end(stored.result(), ended)


def store_recorder(
    store: Store, run_id: str, prices: PriceTable | None = None, judge: str | None = None
) -> StoreRecorder:
    """A :class:`StoreRecorder` for run ``run_id`` (the calls of the named ``judge``)."""
    return StoreRecorder(store, run_id, prices, judge)


def open_cache(path: Path | None) -> ResponseCache | None:
    """The run's response cache (judge replies and embeddings) at ``path``, checked;
    None when caching is off (no path)."""
    if path is None:
        return None
    cache = ResponseCache(path)
    try:
        cache.check(write=True)
    except CacheError as exc:
        raise ConfigError(
            f"cache: {exc} (set 'cache' to another file, or run with --no-cache)"
        ) from None
    return cache


def build_judge(
    judge: JudgeConfig | None,
    store: Store,
    run_id: str,
    *,
    cache_path: Path | None = None,
    provider: Provider | None = None,
    limiters: dict[str, PermitSource] | None = None,
    name: str | None = None,
) -> JudgeModel | None:
    """The run's judge: calls are cached (unless disabled), limited, retried, and every
    call is stored with the run, its cost priced from the config. ``provider`` replaces
    the one the config's model spec names (a scripted model in tests). Models of one
    run on one endpoint share a limiter through ``limiters``. Replies are cached in the
    file at ``cache_path`` (None: not cached). ``name``: the judge's name in a judge
    matrix, stored with each of its calls."""
    if judge is None:
        if provider is None:
            return None
        judge = JudgeConfig(model=f"scripted/{provider.model}")
    model = _judge_model(judge, store, run_id, open_cache(cache_path), provider, name)
    return share_limiter(model, limiters)


def build_named_judges(
    judges: dict[str, JudgeConfig],
    first: JudgeModel | None,
    store: Store,
    run_id: str,
    *,
    limiters: dict[str, PermitSource] | None = None,
) -> dict[str, JudgeModel]:
    """The models of a judge matrix by name: ``first`` (built by :func:`build_judge`)
    for the first judge, the others built alike, sharing its reply cache (keyed by
    endpoint and model) and, per endpoint, the limiter. Each records its calls under
    its name."""
    if not judges or first is None:
        return {}
    names = list(judges)
    built = {names[0]: first}
    for name in names[1:]:
        model = _judge_model(judges[name], store, run_id, first.cache, None, name)
        built[name] = share_limiter(model, limiters)
    return built


def build_agent_models(
    judge: JudgeConfig | None,
    metrics: Sequence[Metric],
    store: Store,
    run_id: str,
    *,
    cache_path: Path | None = None,
    cache: ResponseCache | None = None,
    limiters: dict[str, PermitSource] | None = None,
) -> dict[str, dict[str, JudgeModel]]:
    """Per metric, the models its agents use (:meth:`~ragjudge.metrics.Metric.model_roles`), built like the judge:
    same limits, cache and call store, only the model spec differs. ``cache`` is the
    judge's, to share; without it one cache is opened at ``cache_path`` for all the
    agents. A spec two metrics name is one model."""
    if cache is None and any(m.model_roles() for m in metrics):
        cache = open_cache(cache_path)
    built: dict[str, JudgeModel] = {}
    per_metric: dict[str, dict[str, JudgeModel]] = {}
    for metric in metrics:
        for role, spec in metric.model_roles().items():
            if spec not in built:
                model = _judge_model(agent_config(judge, spec), store, run_id, cache)
                built[spec] = share_limiter(model, limiters)
            per_metric.setdefault(metric.name, {})[role] = built[spec]
    return per_metric


def share_limiter(model: JudgeModel, limiters: dict[str, PermitSource] | None) -> JudgeModel:
    """Give ``model`` the limiter of an earlier model of the run on the same endpoint:
    a provider's requests-per-minute limit counts every request sent to it — judge,
    agents and embeddings alike — so they must be paced together."""
    endpoint = provider_endpoint(model.provider)
    if limiters is None or endpoint is None:
        return model
    if endpoint in limiters:
        model.limiter = limiters[endpoint]
    else:
        limiters[endpoint] = model.limiter
    return model


def _judge_model(
    judge: JudgeConfig,
    store: Store,
    run_id: str,
    cache: ResponseCache | None,
    provider: Provider | None = None,
    name: str | None = None,
) -> JudgeModel:
    recorder = store_recorder(store, run_id, prices_of(judge), name)
    if provider is None and judge.mode == "batch":
        spending = BatchSpending(store, run_id, prices_of(judge))
        ledger = store.batch_ledger(run_id)
        provider = batching_provider(judge, ledger, judge_api_key(judge), spending)
    return judge_model(judge, recorder, cache, provider)


def judge_model(
    judge: JudgeConfig,
    recorder: CallRecorder | None,
    cache: ResponseCache | None,
    provider: Provider | None = None,
) -> JudgeModel:
    """A judge-layer model from ``judge`` whose calls go to ``recorder`` (a run's store,
    or a collector on a worker that cannot write it)."""
    prices = prices_of(judge)
    settings = model_settings(judge, cache=cache is not None)
    if isinstance(provider, BatchingProvider):
        settings = batch_model_settings(settings, judge)
    if provider is not None:
        return JudgeModel(
            provider, settings=settings, cache=cache, recorder=recorder, prices=prices
        )
    return get_model(
        judge.model,
        base_url=judge.base_url,
        api_key=judge_api_key(judge),
        settings=settings,
        cache=cache,
        recorder=recorder,
        prices=prices,
    )
