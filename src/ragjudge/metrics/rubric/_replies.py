"""The JSON replies of the ``likert`` and ``rubric`` judges and the stated rules for reading them.

- ``rating``: a whole number from 1 to 5; a JSON number (``4`` or ``4.0``) or a string
  holding one (``"4"``). Anything else — ``4.5``, ``6``, ``true``, ``"four"`` — is a parse
  error: the judge is asked again, then the score is an explicit error.
- ``criteria_met``: a JSON boolean, or the string ``"true"`` / ``"false"`` (any case,
  surrounding spaces ignored). ``"yes"``, ``1`` or ``null`` are parse errors.
- ``explanation``: a string, in any language (the prompt asks for the prompt's own).
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator

from ragjudge.metrics.replies import JsonReply

__all__ = ["LIKERT_REPLY", "RUBRIC_REPLY", "LikertVerdict", "RubricVerdict"]

LOWEST, HIGHEST = 1, 5


class LikertVerdict(BaseModel):
    """``{"explanation": …, "rating": 1–5}``."""

    model_config = ConfigDict(extra="ignore")

    explanation: str = Field(examples=["(dry run)"])
    rating: int = Field(ge=LOWEST, le=HIGHEST, examples=[3])

    @field_validator("rating", mode="before")
    @classmethod
    def _whole_number(cls, value: Any) -> Any:
        return whole_number(value)


class RubricVerdict(BaseModel):
    """``{"explanation": …, "criteria_met": true|false}``."""

    model_config = ConfigDict(extra="ignore")

    explanation: str = Field(examples=["(dry run)"])
    criteria_met: bool = Field(examples=[True])

    @field_validator("criteria_met", mode="before")
    @classmethod
    def _true_or_false(cls, value: Any) -> bool:
        return true_or_false(value)


def whole_number(value: Any) -> int:
    """A rating as an int: a whole JSON number or a string holding one."""
    if isinstance(value, bool):
        raise ValueError("rating must be a whole number from 1 to 5, not a boolean")
    if isinstance(value, str):
        text = value.strip()
        try:
            value = float(text) if "." in text else int(text)
        except ValueError:
            raise ValueError(f"rating must be a whole number from 1 to 5, got {value!r}") from None
    if isinstance(value, float):
        if not value.is_integer():
            raise ValueError(f"rating must be a whole number from 1 to 5, got {value}")
        return int(value)
    if isinstance(value, int):
        return value
    raise ValueError(f"rating must be a whole number from 1 to 5, got {value!r}")


def true_or_false(value: Any) -> bool:
    """``criteria_met`` as a bool: a JSON boolean or the string "true"/"false"."""
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lower() in ("true", "false"):
        return value.strip().lower() == "true"
    raise ValueError(f"criteria_met must be true or false, got {value!r}")


LIKERT_REPLY = JsonReply(LikertVerdict)
RUBRIC_REPLY = JsonReply(RubricVerdict)
