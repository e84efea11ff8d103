"""Setting up the judge model for a run: from the config to a
:class:`~ragjudge.models.JudgeModel` whose calls are stored with the run, and the
stand-in judge of a dry run."""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from typing import Any

from ragjudge.config import ConfigError, EvalConfig, JudgeConfig
from ragjudge.metrics import Metric
from ragjudge.models import (
    GenerateConfig,
    JudgeCallRecord,
    JudgeModel,
    ModelSettings,
    PriceTable,
    Provider,
    ResponseCache,
    get_model,
)
from ragjudge.models.scripted import ReplyScript, ScriptedProvider
from ragjudge.store import Store


def metrics_needing_judge(metrics: Sequence[Metric]) -> list[str]:
    return [m.name for m in metrics if m.needs_judge]


def check_judge(
    config: EvalConfig, metrics: Sequence[Metric], *, provider: Provider | None = None
) -> None:
    """Before any work: a judge metric without a usable judge is a clear error."""
    needing = metrics_needing_judge(metrics)
    if not needing or provider is not None:
        return
    names = ", ".join(repr(n) for n in needing)
    if config.judge is None:
        raise ConfigError(
            f"metric {names} needs a judge model; add e.g. 'judge: openai/<model>' to the config "
            "(any OpenAI-compatible server via OPENAI_BASE_URL, or OpenAI with OPENAI_API_KEY)"
        )
    spec = config.judge.model
    if spec.startswith("openai/"):
        base_url = config.judge.base_url or os.environ.get("OPENAI_BASE_URL")
        key = _api_key(config.judge) or os.environ.get("OPENAI_API_KEY")
        if not base_url and not key:
            raise ConfigError(
                f"metric {names} needs the judge {spec!r}, but no endpoint is configured: set "
                "OPENAI_BASE_URL to an OpenAI-compatible server (vLLM, Ollama, LM Studio …) "
                "or OPENAI_API_KEY for OpenAI, or 'base_url' under 'judge' in the config"
            )


def _api_key(judge: JudgeConfig) -> str | None:
    if judge.api_key_env is None:
        return None
    key = os.environ.get(judge.api_key_env)
    if not key:
        raise ConfigError(f"judge.api_key_env names {judge.api_key_env}, which is not set")
    return key


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


def build_judge(
    config: EvalConfig,
    store: Store,
    run_id: str,
    *,
    use_cache: bool = True,
    provider: Provider | None = None,
) -> JudgeModel | None:
    """The run's judge: calls are cached (unless disabled), limited, retried, and every
    call is stored with the run, its cost priced from the config. ``provider`` replaces
    the one the config's model spec names (a scripted model in tests)."""
    if config.judge is None:
        if provider is None:
            return None
        config = config.model_copy(
            update={"judge": JudgeConfig(model=f"scripted/{provider.model}")}
        )
    assert config.judge is not None
    judge = config.judge
    prices = PriceTable.from_dict(judge.prices) if judge.prices else None
    cache_path = config.cache_path if use_cache else None

    async def record(call: JudgeCallRecord) -> int:
        cost = None
        if prices is not None:
            cost = 0.0 if call.cached else prices.cost(call.model, call.usage)
        return store.save_judge_call(run_id, call, cost=cost)

    settings = model_settings(judge, cache=cache_path is not None)
    cache = ResponseCache(cache_path) if cache_path is not None else None
    if provider is not None:
        return JudgeModel(provider, settings=settings, cache=cache, recorder=record, prices=prices)
    return get_model(
        judge.model,
        base_url=judge.base_url,
        api_key=_api_key(judge),
        settings=settings,
        cache=cache,
        recorder=record,
        prices=prices,
    )


def build_agent_models(
    config: EvalConfig,
    metrics: Sequence[Metric],
    store: Store,
    run_id: str,
    *,
    use_cache: bool = True,
) -> dict[str, dict[str, JudgeModel]]:
    """Per metric, the models its agents use (``agent_models``), built like the judge:
    same limits, cache and call store, only the model spec differs."""
    built: dict[str, JudgeModel] = {}
    per_metric: dict[str, dict[str, JudgeModel]] = {}
    for metric in metrics:
        for role, spec in metric.agent_models.items():
            if spec not in built:
                base = config.judge or JudgeConfig(model=spec)
                agent_config = config.model_copy(
                    update={"judge": base.model_copy(update={"model": spec})}
                )
                model = build_judge(agent_config, store, run_id, use_cache=use_cache)
                assert model is not None
                built[spec] = model
            per_metric.setdefault(metric.name, {})[role] = built[spec]
    return per_metric


def dry_run_judge(metric: Metric, records: list[JudgeCallRecord]) -> JudgeModel:
    """A stand-in judge for a dry run: answers with the metric's ``dry_run_reply``
    and keeps every prompt in ``records`` instead of calling a model."""
    reply = metric.dry_run_reply
    script = ReplyScript(function=reply if callable(reply) else None, default=str(reply))

    async def record(call: JudgeCallRecord) -> int:
        records.append(call)
        return len(records)

    provider = ScriptedProvider(script, model="dry-run")
    return JudgeModel(provider, settings=ModelSettings(cache=False, reask_limit=0), recorder=record)


ReplyFunction = Callable[[list[dict[str, Any]]], str]
