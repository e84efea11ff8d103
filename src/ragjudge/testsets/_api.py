"""``generate`` / ``agenerate``: a test set from a knowledge base in one call, and the
evaluation-set file it is written to."""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from ragjudge.config import ConfigError, JudgeConfig
from ragjudge.knowledge import KnowledgeBase
from ragjudge.models import JudgeModel, Provider
from ragjudge.models._embeddings import Embedder, get_embedder
from ragjudge.run._judging import check_usable, generate_config, judge_model, open_cache
from ragjudge.store import Store
from ragjudge.testsets._dryrun import GenerationPlan, plan_generation
from ragjudge.testsets._generating import GeneratedSet, check_max_cost, generate_testset
from ragjudge.testsets._settings import GenerationSettings

__all__ = ["agenerate", "generate", "generation_settings", "plan", "write_rows"]

DEFAULT_STORE = Path(".ragjudge/runs.db")


def generation_settings(**given: Any) -> GenerationSettings:
    """:class:`GenerationSettings` from keyword settings; :class:`ConfigError` naming
    each bad one."""
    try:
        return GenerationSettings.model_validate(given)
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in error['loc']) or 'settings'}: {error['msg']}"
            for error in exc.errors()
        )
        raise ConfigError(f"generate: {problems}") from None


def _knowledge_base(
    kb: KnowledgeBase | str | Path, chunk_size: int, chunk_overlap: int
) -> KnowledgeBase:
    if isinstance(kb, KnowledgeBase):
        return kb
    try:
        return KnowledgeBase.load(kb, chunk_size=chunk_size, chunk_overlap=chunk_overlap)
    except (OSError, ValueError) as exc:
        raise ConfigError(f"--kb: {exc}") from None


def _judge(judge: str | JudgeConfig | None, provider: Provider | None) -> JudgeConfig:
    if isinstance(judge, JudgeConfig):
        return judge
    if judge is not None:
        return JudgeConfig(model=judge)
    if provider is not None:
        return JudgeConfig(model=f"scripted/{provider.model}")
    raise ConfigError(
        "generate needs a generator model: --judge openai/gpt-4o-mini (any "
        "OpenAI-compatible server via OPENAI_BASE_URL), or a config with a 'judge'"
    )


async def agenerate(
    kb: KnowledgeBase | str | Path,
    n: int = 20,
    *,
    judge: str | JudgeConfig | None = None,
    store: str | Path = DEFAULT_STORE,
    cache: bool | str | Path = True,
    output: str | Path | None = None,
    chunk_size: int = 800,
    chunk_overlap: int = 100,
    provider: Provider | None = None,
    embedder: Embedder | None = None,
    **settings: Any,
) -> GeneratedSet:
    """Generate ``n`` evaluation samples from the knowledge base ``kb`` (a folder, a
    ``.jsonl`` file or a :class:`KnowledgeBase`) with the ``judge`` model as the
    generator, and write them to ``output`` (JSON Lines) when given.

    ``settings`` are the fields of :class:`GenerationSettings` (``mix``, ``personas``,
    ``styles``, ``language``, ``seed``, ``attempts``, ``max_cost`` …). Progress is
    stored in ``store``: run again with the same settings, a generation checks only
    the candidates it had not checked. ``provider`` replaces the model's endpoint (a
    scripted model in tests)."""
    chosen = generation_settings(n=n, **settings)
    base = _knowledge_base(kb, chunk_size, chunk_overlap)
    config = _judge(judge, provider)
    if provider is None:
        check_usable(config, "generate needs the generator model")
    store_path = Path(store)
    store_path.parent.mkdir(parents=True, exist_ok=True)
    if chosen.max_cost is not None:
        estimate = await plan_generation(base, chosen, config)
        check_max_cost(estimate.cost_low, chosen.max_cost)
    cache_path = _cache_path(cache, store_path)
    model = judge_model(config, None, open_cache(cache_path), provider)
    try:
        found = await _generated(base, chosen, model, config, store_path, embedder)
    finally:
        await model.aclose()
    if output is not None:
        write_rows(found.rows, Path(output))
    return found


async def _generated(
    kb: KnowledgeBase,
    settings: GenerationSettings,
    model: JudgeModel,
    config: JudgeConfig,
    store_path: Path,
    embedder: Embedder | None,
) -> GeneratedSet:
    if embedder is None and settings.embedding is not None:
        embedder = get_embedder(settings.embedding)
    with Store(store_path, write=True) as store:
        return await generate_testset(
            kb,
            settings,
            model,
            store,
            generator=model.spec,
            prices=lambda reply: model.prices.cost(reply.model, reply.usage),
            sampling=generate_config(config),
            embedder=embedder,
        )


def _cache_path(cache: bool | str | Path, store_path: Path) -> Path | None:
    if cache is False:
        return None
    if cache is True:
        return store_path.parent / "cache.db"
    return Path(cache)


def generate(kb: KnowledgeBase | str | Path, n: int = 20, **options: Any) -> GeneratedSet:
    """:func:`agenerate`, waited for (not inside a running event loop)."""
    return asyncio.run(agenerate(kb, n, **options))


async def plan(
    kb: KnowledgeBase | str | Path,
    n: int = 20,
    *,
    judge: str | JudgeConfig | None = None,
    chunk_size: int = 800,
    chunk_overlap: int = 100,
    **settings: Any,
) -> GenerationPlan:
    """What generating ``n`` samples would call and cost; calls nothing."""
    chosen = generation_settings(n=n, **settings)
    base = _knowledge_base(kb, chunk_size, chunk_overlap)
    return await plan_generation(base, chosen, _judge(judge, None))


def write_rows(rows: list[dict[str, Any]], path: Path) -> None:
    """Write ``rows`` as JSON Lines to ``path`` (replaced whole, never half-written)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(path.name + ".partial")
    with partial.open("w", encoding="utf-8") as handle:
        for row in rows:
            handle.write(json.dumps(row, ensure_ascii=False) + "\n")
    os.replace(partial, path)
