"""Test sets generated from a knowledge base: questions, reference answers and expected
facts of several kinds, each checked before it is kept, with its source chunks and
provenance."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ragjudge._util.lazy import lazy_names
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
    "GeneratedSet",
    "GenerationSettings",
    "Kind",
    "Language",
    "SourcePlan",
    "Style",
    "Turn",
]

# The generation itself loads the store and the judge layer: taken on first use.
_EXPORTS = {
    "GeneratedSet": "ragjudge.testsets._generating",
    "GenerationSettings": "ragjudge.testsets._settings",
}

if TYPE_CHECKING:
    from ragjudge.testsets._generating import GeneratedSet
    from ragjudge.testsets._settings import GenerationSettings

__getattr__ = lazy_names(__name__, _EXPORTS, globals())
