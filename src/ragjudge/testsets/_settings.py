"""How a test set is generated (:class:`GenerationSettings`), how many samples of each
kind it holds (:func:`kind_quotas`) and the fingerprint that finds an interrupted
generation again (:func:`generation_fingerprint`)."""

from __future__ import annotations

import hashlib
import json
import math
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from ragjudge.knowledge import KnowledgeBase
from ragjudge.testsets._sources import Sources
from ragjudge.testsets._types import DEFAULT_MIX, KINDS, Kind, Style

__all__ = ["GenerationSettings", "generation_fingerprint", "kind_quotas", "sources_for"]


class GenerationSettings(BaseModel):
    """Everything that decides what a generation makes."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    n: int = Field(default=20, ge=1)
    """Samples wanted."""
    mix: dict[Kind, float] = Field(default_factory=lambda: dict(DEFAULT_MIX))
    """The share of each kind (normalised; a kind left out gets none)."""
    personas: tuple[str, ...] = ()
    """Who asks, drawn per candidate (none: no persona)."""
    styles: tuple[Style, ...] = ("plain",)
    """How questions are worded, drawn per candidate."""
    language: Literal["auto", "en", "ja"] = "auto"
    """``auto``: the language of each candidate's chunks."""
    seed: int = 0
    attempts: float = Field(default=3.0, ge=1.0)
    """At most this many candidates are checked per sample wanted of a kind."""
    concurrency: int = Field(default=8, ge=1)
    """Candidates checked at once."""
    duplicate_threshold: float | None = Field(default=None, gt=0.0, le=1.0)
    """Similarity from which a candidate is a near-duplicate (None: the filter's default)."""
    embedding: str | None = None
    """An embedding model (``local``, ``openai/text-embedding-3-small``) for the
    duplicate filter; None compares words."""
    min_chunk_chars: int | None = Field(default=None, ge=1)
    """Chunks shorter than this are not written from (None: a default per language)."""
    reference: Literal["answer", "facts"] = "answer"
    """What the rows hold as their reference: the reference answer
    (``expected_response``) or the expected facts (``expected_facts``); the other is
    kept in ``metadata``."""
    max_cost: float | None = Field(default=None, ge=0.0)
    """Dollars the generation may spend: refused when its lowest estimate is above, and
    no more candidates are sent once the next ones would pass it (each counted at the
    most a candidate has cost so far)."""

    @field_validator("mix")
    @classmethod
    def _mix_has_a_kind(cls, mix: dict[Kind, float]) -> dict[Kind, float]:
        if any(not math.isfinite(share) or share < 0 for share in mix.values()):
            raise ValueError("each kind's share is a number of 0 or more")
        if sum(mix.values()) <= 0:
            raise ValueError("at least one kind needs a share above 0")
        return mix

    @field_validator("styles")
    @classmethod
    def _styles_given(cls, styles: tuple[Style, ...]) -> tuple[Style, ...]:
        if not styles:
            raise ValueError("give at least one style")
        return styles

    def fingerprint_fields(self) -> dict[str, Any]:
        """What decides each candidate (not how many are wanted, how fast or at what
        cost): a generation asked again with more samples continues the same one."""
        return self.model_dump(
            mode="json", exclude={"n", "concurrency", "max_cost", "attempts", "reference"}
        )


def kind_quotas(n: int, mix: dict[Kind, float]) -> dict[Kind, int]:
    """How many samples of each kind make ``n``: shares rounded by largest remainder
    (ties to the kind listed first), so the counts add up to ``n``."""
    total = sum(mix.get(kind, 0.0) for kind in KINDS)
    exact = {kind: n * mix.get(kind, 0.0) / total for kind in KINDS}
    quotas = {kind: math.floor(value) for kind, value in exact.items()}
    left = n - sum(quotas.values())
    by_remainder = sorted(
        KINDS, key=lambda kind: (-(exact[kind] - quotas[kind]), KINDS.index(kind))
    )
    for kind in by_remainder[:left]:
        quotas[kind] += 1
    return {kind: count for kind, count in quotas.items() if count > 0}


def generation_fingerprint(
    kb: KnowledgeBase, settings: GenerationSettings, generator: str, prompt_version: str
) -> str:
    """Hash of the knowledge base's chunks, the settings that decide each candidate,
    the generator model and the prompts' version."""
    digest = hashlib.sha256()
    for chunk in kb.chunks:
        digest.update(chunk.chunk_id.encode("utf-8", "surrogatepass") + b"\x00")
        digest.update(chunk.content.encode("utf-8", "surrogatepass") + b"\x01")
    head = {
        "settings": settings.fingerprint_fields(),
        "generator": generator,
        "prompt_version": prompt_version,
        "chunks": digest.hexdigest(),
    }
    return hashlib.sha256(json.dumps(head, sort_keys=True).encode()).hexdigest()


def sources_for(kb: KnowledgeBase, settings: GenerationSettings) -> Sources:
    """The source chunks of every candidate of a generation with ``settings``."""
    return Sources(
        kb,
        seed=settings.seed,
        personas=settings.personas,
        styles=settings.styles,
        language=settings.language,
        min_chars=settings.min_chunk_chars,
    )
