"""The reply of the tool-use judge: one verdict per step, read strictly.

The judge writes one JSON document ``{"steps": [{"step": 1, "reason": "…",
"appropriate": "yes"}, …]}``. It must hold exactly one verdict for every step shown,
each step once: a missing, repeated or unknown step is a parse error that tells the
judge what to write (the kit asks again, then records an explicit error)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel, Field

from ragjudge.metrics.replies import JsonReply, ParseError, Reply, YesNoWord

__all__ = ["StepVerdict", "StepVerdicts", "StepsReply"]


class StepVerdict(BaseModel):
    """The judge's verdict on one step."""

    step: int = Field(ge=1, description="the step's number, as shown")
    reason: str = Field(description="why the tool and its arguments fit this step or not")
    appropriate: YesNoWord


class StepVerdicts(BaseModel):
    """Every step's verdict."""

    steps: list[StepVerdict]


class StepsReply(Reply[list[StepVerdict]]):
    """Exactly one verdict for each of ``count`` steps, returned in step order."""

    def __init__(self, count: int) -> None:
        self.count = count
        self._json = JsonReply(StepVerdicts)

    def parse(self, text: str, *, evaluated: Sequence[str] = ()) -> list[StepVerdict]:
        """The verdicts, one per step, in step order."""
        found = self._json.parse(text, evaluated=evaluated).steps
        numbers = [v.step for v in found]
        wanted = set(range(1, self.count + 1))
        missing = sorted(wanted - set(numbers))
        unknown = sorted(set(numbers) - wanted)
        repeated = sorted({n for n in numbers if numbers.count(n) > 1})
        if missing or unknown or repeated or len(found) != self.count:
            raise ParseError(self._problem(missing, unknown, repeated))
        return sorted(found, key=lambda v: v.step)

    def _problem(self, missing: list[int], unknown: list[int], repeated: list[int]) -> str:
        said = []
        if missing:
            said.append(f"no verdict for step(s) {_listed(missing)}")
        if unknown:
            said.append(f"step(s) {_listed(unknown)} do not exist")
        if repeated:
            said.append(f"step(s) {_listed(repeated)} judged more than once")
        return (
            f"expected exactly one verdict for each of the {self.count} steps, numbered 1 "
            f"to {self.count}: " + "; ".join(said or ["wrong number of verdicts"])
        )

    def reply_schema(self) -> dict[str, Any]:
        """The verdicts' JSON schema, with exactly ``count`` of them."""
        schema = self._json.reply_schema()
        steps = {**schema["properties"]["steps"], "minItems": self.count, "maxItems": self.count}
        return {**schema, "properties": {**schema["properties"], "steps": steps}}

    def stand_in(self) -> str:
        """Every step appropriate."""
        return StepVerdicts(
            steps=[
                StepVerdict(step=n, reason="(dry run)", appropriate="yes")
                for n in range(1, self.count + 1)
            ]
        ).model_dump_json()


def _listed(numbers: list[int]) -> str:
    return ", ".join(str(n) for n in numbers)
