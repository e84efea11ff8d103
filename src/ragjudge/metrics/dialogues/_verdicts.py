"""What the judged dialogue metrics share: the judge's verdicts, one per assistant turn
in one JSON reply (a missing, repeated or extra turn is re-asked, then an error), and
the metric that asks for them once per dialogue."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

from pydantic import BaseModel, Field

from ragjudge.metrics._base import Produced, Result
from ragjudge.metrics._judged import JudgedMetric, Judging
from ragjudge.metrics.dialogues._turns import Dialogue, dialogue_of
from ragjudge.metrics.replies import JsonReply, ParseError, Reply, YesNoWord
from ragjudge.schema import Output, Sample

__all__ = ["TurnVerdict", "TurnVerdicts", "TurnsJudge", "turns_result"]


class TurnVerdict(BaseModel):
    """The judge's verdict on one assistant turn: its number, the reason, then yes/no."""

    turn: int = Field(ge=1)
    reason: str
    verdict: YesNoWord


class _Verdicts(BaseModel):
    verdicts: list[TurnVerdict]


class TurnVerdicts(Reply[list[TurnVerdict]]):
    """Exactly one verdict for each of ``count`` turns, numbered 1 to ``count``; they are
    returned in turn order. A missing, repeated or unknown turn is a parse error (the
    judge is asked again, then the score is an error)."""

    def __init__(self, count: int) -> None:
        self.count = count
        self._json = JsonReply(_Verdicts)

    def parse(self, text: str, *, evaluated: Sequence[str] = ()) -> list[TurnVerdict]:
        """The verdicts in turn order."""
        found = self._json.parse(text, evaluated=evaluated).verdicts
        turns = [v.turn for v in found]
        wanted = list(range(1, self.count + 1))
        if sorted(turns) != wanted:
            missing = sorted(set(wanted) - set(turns))
            raise ParseError(
                f"expected one verdict for each turn 1 to {self.count}, got turns "
                f"{turns}" + (f" (missing {missing})" if missing else "")
            )
        return sorted(found, key=lambda v: v.turn)

    def reply_schema(self) -> dict[str, Any]:
        """The verdicts' JSON schema, with exactly ``count`` of them."""
        schema = self._json.reply_schema()
        verdicts = {**schema["properties"]["verdicts"], "minItems": self.count}
        verdicts["maxItems"] = self.count
        return {**schema, "properties": {**schema["properties"], "verdicts": verdicts}}

    def stand_in(self) -> str:
        """A yes verdict for every turn."""
        one = '{{"turn": {}, "reason": "(dry run)", "verdict": "yes"}}'
        return '{"verdicts": [' + ", ".join(one.format(i) for i in range(1, self.count + 1)) + "]}"


def turns_result(verdicts: Sequence[TurnVerdict], *, yes: str, no: str, said_yes: str) -> Result:
    """The share of turns judged yes, with each turn's value (1/0), verdict (``yes``/
    ``no`` labels) and reason in ``details["turns"]``; ``turn`` counts the dialogue's
    assistant turns from 0, the shape the report shows beside each turn."""
    kept = sum(v.verdict == "yes" for v in verdicts)
    return Result(
        kept / len(verdicts),
        rationale=f"{kept} of {len(verdicts)} turns {said_yes}",
        details={
            "turns": [
                {
                    "turn": v.turn - 1,
                    "value": 1.0 if v.verdict == "yes" else 0.0,
                    "verdict": yes if v.verdict == "yes" else no,
                    "reason": v.reason,
                }
                for v in verdicts
            ]
        },
    )


class TurnsJudge(JudgedMetric):
    """A judge of every assistant turn of a recorded dialogue, in one call that returns
    one verdict per turn. A subclass declares ``template``, the labels of its verdicts
    and what it shows besides the turns (:meth:`dialogue_values`)."""

    pipeline_parts = ("conversation",)
    calls_per_sample = "1 per dialogue"
    yes_label: ClassVar[str] = "yes"
    no_label: ClassVar[str] = "no"
    said_yes: ClassVar[str] = "judged yes"

    async def judge(self, sample: Sample, output: Output, j: Judging) -> Produced:
        """One call over every turn; the share of turns judged yes."""
        dialogue = dialogue_of(sample, output)
        values = self.dialogue_values(dialogue)
        verdicts = (
            await j.ask(
                TurnVerdicts(len(dialogue.turns)), self.template, turns=_shown(dialogue), **values
            )
        ).value
        return turns_result(verdicts, yes=self.yes_label, no=self.no_label, said_yes=self.said_yes)

    def dialogue_values(self, dialogue: Dialogue) -> dict[str, Any]:
        """What the template shows besides ``turns`` (default: nothing)."""
        return {}


def _shown(dialogue: Dialogue) -> list[dict[str, str]]:
    """The turns as the templates show them (``user``, ``assistant``)."""
    return [{"user": t.user, "assistant": t.assistant} for t in dialogue.turns]
