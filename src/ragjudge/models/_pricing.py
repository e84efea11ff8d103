"""Token prices and the usage/cost accounting of a judge model.

A configuration may give prices::

    prices = PriceTable.from_dict({"gpt-4o-mini": {"input": 0.15, "output": 0.60}})

and with ``published=True`` a model the config does not price is priced from the
published price list (:mod:`ragjudge.models._published_prices`). Amounts are US
dollars per one million tokens.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import asdict, dataclass, field
from typing import Any

from ragjudge.models import _published_prices as published_list
from ragjudge.schema import Usage

DEFAULT_PURPOSE = "default"
"""The purpose label of calls made without one."""


@dataclass(frozen=True)
class ModelPrice:
    """Price of one model in dollars per one million input and output tokens."""

    input: float
    output: float

    def cost(self, usage: Usage) -> float:
        """Dollars that ``usage`` costs at this price."""
        return (usage.input_tokens * self.input + usage.output_tokens * self.output) / 1e6


PriceSpec = ModelPrice | tuple[float, float] | list[float] | Mapping[str, float]
"""A price as a config gives it: ``(input, output)`` or ``{"input": .., "output": ..}``."""


def _to_price(model: str, spec: PriceSpec) -> ModelPrice:
    if isinstance(spec, ModelPrice):
        return spec
    if isinstance(spec, Mapping):
        try:
            return ModelPrice(input=float(spec["input"]), output=float(spec["output"]))
        except KeyError as exc:
            raise ValueError(f"price of {model!r} lacks the {exc.args[0]!r} key") from exc
    if len(spec) != 2:
        raise ValueError(f"price of {model!r} must be (input, output), got {spec!r}")
    return ModelPrice(input=float(spec[0]), output=float(spec[1]))


class PriceTable(Mapping[str, ModelPrice]):
    """Model name → price. A name is looked up as given, then without a provider
    prefix (``openai/gpt-4o-mini`` → ``gpt-4o-mini``), then as a dated variant of a
    listed name (``gpt-4o-mini-2024-07-18`` → ``gpt-4o-mini``; the longest match wins)."""

    CONFIG_SOURCE = "the config"

    def __init__(
        self,
        prices: Mapping[str, PriceSpec] | None = None,
        *,
        published: bool = False,
        server: str | None = None,
        share: float = 1.0,
    ) -> None:
        """``prices`` from a config; with ``published``, models it lacks are priced from
        the published list, unless ``server`` (the endpoint's base URL) is not a
        provider's own API the list knows (a local Ollama or vLLM server). Every price
        is charged at ``share`` of itself (``0.5`` for calls sent through a batch API)."""
        self._prices = {name: _to_price(name, spec) for name, spec in (prices or {}).items()}
        self._published = published
        self._server = server
        self.share = share
        """The share of the listed price a call is charged (1 unless batched)."""

    @classmethod
    def from_dict(cls, data: Mapping[str, PriceSpec]) -> PriceTable:
        """Build a table from a config mapping of model name to price."""
        return cls(data)

    def __getitem__(self, model: str) -> ModelPrice:
        return self._prices[model]

    def __iter__(self) -> Iterator[str]:
        return iter(self._prices)

    def __len__(self) -> int:
        return len(self._prices)

    def price(self, model: str) -> ModelPrice | None:
        """The price of ``model``: the config's, else the published one (when the
        table takes published prices); ``None`` when neither has it."""
        given = self._given_price(model)
        if given is None and self._uses_published_list():
            rates = published_list.published_rates(model)
            given = None if rates is None else ModelPrice(*rates)
        if given is None or self.share == 1.0:
            return given
        return ModelPrice(input=given.input * self.share, output=given.output * self.share)

    def source(self, model: str) -> str | None:
        """Where the price of ``model`` comes from (``the config`` or the published
        list with its version and date); ``None`` when it has no price."""
        if self._given_price(model) is not None:
            source = self.CONFIG_SOURCE
        elif self.price(model) is not None:
            source = published_list.price_list_label()
        else:
            return None
        return source if self.share == 1.0 else f"{source}, at the batch price ({self.share:.0%})"

    def missing_reason(self, model: str) -> str:
        """Why ``model`` has no price, and how to give one."""
        name = model.rsplit("/", 1)[-1]
        how = (
            f"give it under judge.prices, e.g. prices: {{{name}: {{input: 2.5, output: 10}}}} "
            "(dollars per million tokens)"
        )
        if not self._published:
            return f"no price for {model}: {how}"
        if not published_list.available():
            return (
                f"no price for {model}: the published price list is not installed "
                f"(pip install {published_list.PACKAGE}); or {how}"
            )
        if not self._uses_published_list():
            return (
                f"no price for {model}: its server ({self._server}) is not a provider "
                f"the published price list knows; {how}"
            )
        return (
            f"no price for {model}: the published price list "
            f"({published_list.price_list_label()}) does not know it; {how}"
        )

    def _uses_published_list(self) -> bool:
        if not self._published:
            return False
        return self._server is None or published_list.serves_published_prices(self._server)

    def _given_price(self, model: str) -> ModelPrice | None:
        for name in (model, model.split("/", 1)[-1], model.rsplit("/", 1)[-1]):
            if name in self._prices:
                return self._prices[name]
        base = model.rsplit("/", 1)[-1]
        variants = [name for name in self._prices if base.startswith(name + "-")]
        return self._prices[max(variants, key=len)] if variants else None

    def cost(self, model: str, usage: Usage) -> float | None:
        """Dollars ``usage`` costs on ``model``; ``None`` when the model has no price."""
        price = self.price(model)
        return None if price is None else price.cost(usage)


@dataclass
class UsageTotals:
    """Counters of judge calls. Tokens and cost count only what a provider was paid
    for; calls answered from the cache are counted in ``cached_calls`` and their
    tokens in ``cached_*_tokens``."""

    calls: int = 0
    """Finished calls: provider successes, cache hits and final failures."""
    cached_calls: int = 0
    failed_calls: int = 0
    attempts: int = 0
    """Provider attempts (retries included; cache hits make none)."""
    retries: int = 0
    rate_limited: int = 0
    """Attempts the provider answered with a rate-limit error (HTTP 429)."""
    errors_by_kind: dict[str, int] = field(default_factory=dict)
    """Failed attempts per :class:`~ragjudge.models.ModelError` kind."""
    reasks: int = 0
    """Calls re-asked because the output could not be parsed."""
    parse_failures: int = 0
    """Parsed calls that still had no readable output after every re-ask."""
    input_tokens: int = 0
    output_tokens: int = 0
    cached_input_tokens: int = 0
    cached_output_tokens: int = 0
    priced_cost: float = 0.0
    priced_calls: int = 0
    unpriced_calls: int = 0
    """Paid calls whose model has no price in the table."""
    latency: float = 0.0
    """Summed wall time of finished calls, in seconds."""

    @property
    def total_tokens(self) -> int:
        """Input plus output tokens paid for."""
        return self.input_tokens + self.output_tokens

    @property
    def cost(self) -> float | None:
        """Dollars spent on priced calls; ``None`` when calls were made and none of
        them had a price. ``unpriced_calls`` says whether the sum is partial."""
        if self.priced_calls == 0 and self.unpriced_calls > 0:
            return None
        return self.priced_cost

    def as_dict(self) -> dict[str, Any]:
        """JSON-able view including the derived ``total_tokens`` and ``cost``."""
        data = asdict(self)
        data["total_tokens"] = self.total_tokens
        data["cost"] = self.cost
        return data


@dataclass(frozen=True)
class CallOutcome:
    """What one finished call adds to the counters."""

    usage: Usage = field(default_factory=Usage)
    cost: float | None = None
    cached: bool = False
    failed: bool = False
    attempts: int = 0
    error_kinds: tuple[str, ...] = ()
    """The kind of every failed attempt, in order."""
    latency: float = 0.0


class UsageTracker:
    """Sums calls, retries, tokens and cost per purpose and in total. Thread-safe."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._by_purpose: dict[str, UsageTotals] = {}

    def add_call(self, purpose: str | None, outcome: CallOutcome) -> None:
        """Count one finished call under ``purpose``."""
        with self._lock:
            _apply(self._totals_for(purpose), outcome)

    def add_reask(self, purpose: str | None) -> None:
        """Count one re-ask after an unreadable output."""
        with self._lock:
            self._totals_for(purpose).reasks += 1

    def add_parse_failure(self, purpose: str | None) -> None:
        """Count one parsed call that ended without a readable output."""
        with self._lock:
            self._totals_for(purpose).parse_failures += 1

    def by_purpose(self) -> dict[str, UsageTotals]:
        """A copy of the counters per purpose."""
        with self._lock:
            return {name: _copy(t) for name, t in self._by_purpose.items()}

    def total(self) -> UsageTotals:
        """The counters summed over every purpose."""
        with self._lock:
            return _sum_totals(self._by_purpose.values())

    def snapshot(self) -> dict[str, Any]:
        """JSON-able ``{"total": {...}, "by_purpose": {name: {...}}}``."""
        return {
            "total": self.total().as_dict(),
            "by_purpose": {name: t.as_dict() for name, t in self.by_purpose().items()},
        }

    def take(self) -> dict[str, UsageTotals]:
        """The counters per purpose, forgotten here (what happened since the last take)."""
        with self._lock:
            taken, self._by_purpose = self._by_purpose, {}
            return taken

    def merge(self, by_purpose: Mapping[str, UsageTotals]) -> None:
        """Add counters per purpose made elsewhere (another process's model)."""
        with self._lock:
            for name, totals in by_purpose.items():
                self._by_purpose[name] = _sum_totals([self._totals_for(name), totals])

    def reset(self) -> None:
        """Forget every count."""
        with self._lock:
            self._by_purpose.clear()

    def _totals_for(self, purpose: str | None) -> UsageTotals:
        key = purpose or DEFAULT_PURPOSE
        if key not in self._by_purpose:
            self._by_purpose[key] = UsageTotals()
        return self._by_purpose[key]


def _apply(totals: UsageTotals, outcome: CallOutcome) -> None:
    totals.calls += 1
    totals.attempts += outcome.attempts
    totals.retries += max(0, outcome.attempts - 1)
    totals.latency += outcome.latency
    for kind in outcome.error_kinds:
        totals.errors_by_kind[kind] = totals.errors_by_kind.get(kind, 0) + 1
        if kind == "rate_limit":
            totals.rate_limited += 1
    if outcome.failed:
        totals.failed_calls += 1
    if outcome.cached:
        totals.cached_calls += 1
        totals.cached_input_tokens += outcome.usage.input_tokens
        totals.cached_output_tokens += outcome.usage.output_tokens
        return
    totals.input_tokens += outcome.usage.input_tokens
    totals.output_tokens += outcome.usage.output_tokens
    if outcome.cost is None:
        if not outcome.failed:
            totals.unpriced_calls += 1
    else:
        totals.priced_calls += 1
        totals.priced_cost += outcome.cost


def _copy(totals: UsageTotals) -> UsageTotals:
    return _sum_totals([totals])


def _sum_totals(parts: Iterable[UsageTotals]) -> UsageTotals:
    out = UsageTotals()
    for part in parts:
        for name, value in asdict(part).items():
            if name == "errors_by_kind":
                for kind, count in value.items():
                    out.errors_by_kind[kind] = out.errors_by_kind.get(kind, 0) + count
            else:
                setattr(out, name, getattr(out, name) + value)
    return out
