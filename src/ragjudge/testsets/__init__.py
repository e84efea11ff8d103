"""Test sets generated from a knowledge base: questions, reference answers and expected
facts of several kinds, each checked before it is kept, with its source chunks and
provenance."""

from __future__ import annotations

from ragjudge.testsets._types import (
    CHECKS,
    DEFAULT_MIX,
    KINDS,
    STYLES,
    CheckName,
    CheckVerdict,
    Difficulty,
    Draft,
    Kind,
    Language,
    SourcePlan,
    Style,
    Turn,
)

__all__ = [
    "CHECKS",
    "DEFAULT_MIX",
    "KINDS",
    "STYLES",
    "CheckName",
    "CheckVerdict",
    "Difficulty",
    "Draft",
    "Kind",
    "Language",
    "SourcePlan",
    "Style",
    "Turn",
]
