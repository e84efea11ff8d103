"""The judge settings of a config: one judge model (``judge:``) or several by name
(``judges:``), how each may be written, and the endpoint a judge talks to."""

from __future__ import annotations

import re
from typing import Any, Literal

from pydantic import Field

from ragjudge._util.redact import scrub_url
from ragjudge.models._cache import provider_endpoint
from ragjudge.models._model import ModelSettings, make_provider

JUDGE_NAME = re.compile(r"[A-Za-z0-9_-]+")
"""What a judge of ``judges`` may be called: the end of its scores' names."""


class JudgeConfig(ModelSettings):
    """The judge model and its limits.

    ``model`` is a spec string: ``openai/<model>`` (any OpenAI-compatible server; the
    base URL and key come from here or from ``OPENAI_BASE_URL`` / ``OPENAI_API_KEY``),
    ``litellm/<provider>/<model>`` or ``scripted``. ``prices`` maps model names to
    dollars per million tokens (``{input: 0.15, output: 0.6}``). The limits, retries
    and timeouts are those of :class:`~ragjudge.models.ModelSettings` (``rpm``, ``tpm``,
    ``max_concurrency``, ``max_retries``, ``timeout`` …)."""

    model: str
    base_url: str | None = None
    api_key_env: str | None = None
    temperature: float | None = 0.0
    max_tokens: int | None = Field(default=None, gt=0)
    seed: int | None = None
    prices: dict[str, dict[str, float] | list[float]] = Field(default_factory=dict)
    preflight: bool = True
    """Ask the judge (and every agent model) one short question when its first request
    goes out, beside that request, so an unreachable or misconfigured endpoint stops
    the run at once; a run whose every call is cached never asks it."""
    mode: Literal["direct", "batch"] = "direct"
    """``direct`` sends each judge call as it comes; ``batch`` gathers them and sends
    them through OpenAI's Batch API (``openai/`` models only): replies take minutes to
    hours, at the batch price (``batch_price_share`` of the normal one). A stopped run
    resumed with ``--resume`` waits for the batches it already sent."""
    batch_size: int = Field(default=1000, ge=1, le=50_000)
    """``mode: batch``: judge calls in one batch at most (only the calls of the samples
    in flight wait together: with ``concurrency`` unset, a run keeps this many samples
    in flight, at most 1,000)."""
    batch_wait: float = Field(default=5.0, ge=0)
    """``mode: batch``: seconds the first waiting call waits for others before its
    batch is sent."""
    batch_poll: float = Field(default=10.0, gt=0)
    """``mode: batch``: seconds before a batch is first looked at; the pause doubles
    each time, up to five minutes."""
    batch_price_share: float = Field(default=0.5, gt=0, le=1)
    """``mode: batch``: the share of the normal price a batch call costs (OpenAI's and
    Anthropic's batch APIs charge half)."""


def judge_from_spec(value: Any) -> Any:
    """A judge written as its model spec (``openai/gpt-4o-mini``) as the mapping of
    its settings; any other value as given."""
    return {"model": value} if isinstance(value, str) else value


def judges_from_specs(value: Any) -> Any:
    """The named judges with each one written as its model spec made a mapping."""
    if not isinstance(value, dict):
        return value
    return {name: judge_from_spec(judge) for name, judge in value.items()}


def checked_judge_names(
    value: dict[str, JudgeConfig] | None,
) -> dict[str, JudgeConfig] | None:
    """The named judges, refused (``ValueError``) when there is none or a name could
    not end a score's name."""
    if value is None:
        return None
    if not value:
        raise ValueError("name at least one judge (or give 'judge' for one)")
    bad = [name for name in value if not JUDGE_NAME.fullmatch(name)]
    if bad:
        raise ValueError(
            f"judge name(s) {', '.join(repr(b) for b in bad)}: a judge's name has "
            "letters, digits, '-' and '_' only (it ends its scores' names: NAME@JUDGE)"
        )
    return value


def check_judge_settings(
    judge: JudgeConfig | None, judges: dict[str, JudgeConfig] | None, executor: str
) -> None:
    """Refuse (``ValueError``) ``judge`` and ``judges`` together, several judges on
    Ray workers, and batch mode where it cannot work."""
    for name, each in [("judge", judge), *((f"judges.{n}", j) for n, j in (judges or {}).items())]:
        if each is not None:
            check_batch_mode(each, executor, name)
    if judge is not None and judges is not None:
        raise ValueError("give 'judge' (one judge model) or 'judges' (several, by name), not both")
    if judges is not None and executor == "ray":
        raise ValueError(
            "judges: several judges run with 'executor: local'; Ray workers take one judge"
        )


def judge_endpoint(judge: JudgeConfig) -> str | None:
    """The base URL the judge's provider talks to, without credentials; None for a
    model that has no server."""
    try:
        provider = make_provider(judge.model, base_url=judge.base_url)
    except ValueError:
        return scrub_url(judge.base_url) if judge.base_url else None
    return provider_endpoint(provider)


def check_batch_mode(judge: JudgeConfig, executor: str, key: str = "judge") -> None:
    """Refuse (``ValueError``) ``mode: batch`` for a model that has no batch API here
    or on Ray workers (each worker would send and watch batches of its own)."""
    if judge.mode != "batch":
        return
    if not judge.model.startswith(("openai/", "anthropic/")):
        raise ValueError(
            f"{key}.mode: batch sends calls through OpenAI's Batch API or Anthropic's "
            f"Message Batches, so it needs an 'openai/<model>' or 'anthropic/<model>' "
            f"judge, not {judge.model!r}"
        )
    if executor == "ray":
        raise ValueError(f"{key}.mode: batch runs with 'executor: local'")
