"""A run's models from the pre-flight question to the last reply: the judge, the
agents' models (by metric and role), the embedders and the reply cache they share, each
endpoint's rate limit counting every request to it."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from rich.console import Console

from ragjudge.config import ConfigError, EvalConfig
from ragjudge.metrics import Metric, MetricContext
from ragjudge.models import JudgeCallRecord, JudgeModel, PermitSource, Provider, ResponseCache
from ragjudge.models._embeddings import RemoteEmbedder
from ragjudge.run._embedders import build_embedders
from ragjudge.run._judging import (
    build_agent_models,
    build_judge,
    build_named_judges,
    generate_config,
    open_cache,
    preflight,
    prices_of,
    store_recorder,
)
from ragjudge.run._preflights import Preflights
from ragjudge.run._reply_schemas import schema_notes, share_reply_schemas
from ragjudge.store import Store

__all__ = ["RunModels", "close_all"]


@dataclass
class RunModels:
    """The models one run uses (see :meth:`open`); :meth:`close` once it ends."""

    judge: JudgeModel | None
    agents: dict[str, dict[str, JudgeModel]]
    """Per metric name, its models by role."""
    named: dict[str, JudgeModel] = field(default_factory=dict)
    """The named judges of a judge matrix (``judges``), the first being :attr:`judge`."""
    embedders: dict[str, Any] = field(default_factory=dict)
    cache: ResponseCache | None = None
    """The reply cache of the run: the judge's, or one opened for the embedders alone."""
    asked: list[JudgeCallRecord] = field(default_factory=list)
    """The pre-flight calls, to be stored with the run."""
    asked_by_judge: dict[str, list[JudgeCallRecord]] = field(default_factory=dict)
    """The pre-flight calls of the named judges, each stored under its judge at its
    prices."""
    preflights: Preflights = field(default_factory=Preflights)
    """The pre-flight questions asked at each model's first request (when not asked
    up front)."""
    _own_cache: ResponseCache | None = None

    @classmethod
    async def open(
        cls,
        config: EvalConfig,
        metrics: Sequence[Metric],
        store: Store,
        run_id: str,
        *,
        use_cache: bool,
        provider: Provider | None,
        preflight_up_front: bool = False,
    ) -> RunModels:
        """Build the models; each is asked the pre-flight question when its first
        request goes out (:mod:`ragjudge.run._preflights`), or, with
        ``preflight_up_front``, now. A model that cannot be built or does not answer
        now is a :class:`ConfigError` and nothing stays open."""
        limiters: dict[str, PermitSource] = {}  # one per endpoint
        cache_path = config.cache_path if use_cache else None
        if config.judges and provider is not None:
            raise ConfigError("give a judge model object as 'judge' or name 'judges', not both")
        names = config.judge_names
        try:
            judge = build_judge(
                config.primary_judge,
                store,
                run_id,
                cache_path=cache_path,
                provider=provider,
                limiters=limiters,
                name=names[0] if names else None,
            )
            named = build_named_judges(config.judges or {}, judge, store, run_id, limiters=limiters)
            agents = build_agent_models(
                config.primary_judge,
                metrics,
                store,
                run_id,
                cache_path=cache_path,
                cache=judge.cache if judge is not None else None,
                limiters=limiters,
            )
        except ValueError as exc:
            raise ConfigError(str(exc)) from exc
        models = cls(judge, agents, named, cache=judge.cache if judge is not None else None)
        share_reply_schemas(models.all)
        try:
            if models.cache is None and any(m.embedding_specs() for m in metrics):
                models.cache = models._own_cache = open_cache(cache_path)
            primary = config.primary_judge
            recorder = store_recorder(store, run_id, prices_of(primary))
            models.embedders = build_embedders(primary, metrics, models.cache, limiters, recorder)
            if preflight_up_front:
                await models._ask_up_front(config)
            else:
                models._ask_at_first_requests(config, store, run_id)
        except BaseException:
            await models.close()
            raise
        return models

    async def _ask_up_front(self, config: EvalConfig) -> None:
        """Ask every model the pre-flight question now; the calls are kept in
        :attr:`asked` and :attr:`asked_by_judge` until the run is stored."""
        judges = list(self.named.values())
        primary = config.primary_judge
        if primary is None or primary.preflight:
            self.asked = await preflight([m for m in self.all if m not in judges])
        for name, model in self.named.items():
            if (config.judges or {})[name].preflight:
                self.asked_by_judge[name] = await preflight([model])

    def _ask_at_first_requests(self, config: EvalConfig, store: Store, run_id: str) -> None:
        """Have every model asked the pre-flight question when its first request goes
        out, the call recorded with the run (under its named judge, at its prices)."""
        judges = config.judges or {}
        primary = config.primary_judge
        if primary is None or primary.preflight:
            recorder = store_recorder(store, run_id, prices_of(primary))
            for model in self.all:
                if model not in self.named.values():
                    self.preflights.ask_at_first_request(model, recorder)
        for name, model in self.named.items():
            if judges[name].preflight:
                named = store_recorder(store, run_id, prices_of(judges[name]), name)
                self.preflights.ask_at_first_request(model, named)

    @property
    def all(self) -> list[JudgeModel]:
        """The judge and every agent's model."""
        agents = [m for roles in self.agents.values() for m in roles.values()]
        named = [m for m in self.named.values() if m is not self.judge]
        return [m for m in (self.judge, *named, *agents) if m is not None]

    def notes(self) -> list[str]:
        """What the run's notes should say about its models (an endpoint that refused
        reply schemas, so its judges were asked for text replies)."""
        return schema_notes(self.all)

    def context(self, config: EvalConfig, retriever: Any, target: Any) -> MetricContext:
        """What every metric of the run receives (trial and roles are set per call)."""
        judges = config.judges or {}
        return MetricContext(
            retriever=retriever,
            judge=self.judge,
            generate_config=generate_config(config.primary_judge),
            target=target,
            embedders=self.embedders,
            judges={
                name: MetricContext(judge=model, generate_config=generate_config(judges[name]))
                for name, model in self.named.items()
            },
        )

    @property
    def _layered(self) -> list[JudgeModel]:
        """Every model of the run behind the judge layer: :attr:`all` and the models of
        the embedders that call an endpoint."""
        embedders = [getattr(e, "inner", e) for e in self.embedders.values()]
        return [*self.all, *(e.model for e in embedders if isinstance(e, RemoteEmbedder))]

    async def close(self) -> None:
        """Close the models; replies to requests already sent when the run was
        interrupted are awaited first (each model's ``in_flight_grace``), cached and
        recorded. A cache opened for the embedders alone is committed and closed."""
        await self.preflights.cancel()
        models = self._layered
        waiting = sum(m.in_flight for m in models)
        if waiting:
            grace = max(m.settings.in_flight_grace for m in models)
            Console(stderr=True).print(
                f"waiting up to {grace:g} s for {waiting} judge "
                f"repl{'y' if waiting == 1 else 'ies'} already sent (they are paid for; "
                "a second Ctrl-C or stop signal abandons them)",
                highlight=False,
            )
        try:
            await close_all(*models)
        finally:
            if self._own_cache is not None:
                self._own_cache.close()


async def close_all(*resources: Any) -> None:
    """Close the HTTP clients that targets, retrievers and models keep open across calls."""
    for resource in resources:
        close = getattr(resource, "aclose", None)
        if close is not None:
            await close()
