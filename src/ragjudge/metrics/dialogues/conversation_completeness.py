"""``conversation_completeness``: were the user's needs over the whole dialogue met? In
one call the judge lists what the user wanted (their intentions) and says for each
whether the assistant met it by the end; the score is the share met, each intention
with its verdict and reason in the details. A reply listing no intention is re-asked,
then an error."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel, Field

from ragjudge.metrics._base import Produced, Result
from ragjudge.metrics._judged import JudgedMetric, Judging
from ragjudge.metrics._registry import register_metric
from ragjudge.metrics.dialogues._turns import dialogue_of
from ragjudge.metrics.replies import JsonReply, ParseError, Reply, YesNoWord
from ragjudge.schema import Output, Sample, ScoreMeaning


class Intention(BaseModel):
    """One thing the user wanted, whether the assistant met it, and why."""

    intention: str = Field(examples=["(dry run) an intention of the user"])
    reason: str
    met: YesNoWord


class Intentions(BaseModel):
    intentions: list[Intention] = Field(min_length=1)


class IntentionsReply(Reply[list[Intention]]):
    """At least one intention, each with its verdict."""

    def __init__(self) -> None:
        self._json = JsonReply(Intentions)

    def parse(self, text: str, *, evaluated: Sequence[str] = ()) -> list[Intention]:
        """The intentions in the judge's order."""
        found = self._json.parse(text, evaluated=evaluated).intentions
        if not any(i.intention.strip() for i in found):
            raise ParseError("every intention is blank; name what the user wanted")
        return found

    def reply_schema(self) -> dict[str, Any]:
        """The intentions' JSON schema."""
        return self._json.reply_schema()

    def stand_in(self) -> str:
        """One intention, met."""
        return self._json.stand_in()


@register_metric("conversation_completeness")
class ConversationCompleteness(JudgedMetric):
    """Share of the user's intentions over the dialogue that the assistant met."""

    pipeline_parts = ("conversation",)
    calls_per_sample = "1 per dialogue"
    meaning = ScoreMeaning(description="share of the user's needs in the dialogue that were met")
    template = "conversation_completeness.jinja"

    async def judge(self, sample: Sample, output: Output, j: Judging) -> Produced:
        """One call listing the intentions and whether each was met."""
        dialogue = dialogue_of(sample, output)
        turns = [{"user": t.user, "assistant": t.assistant} for t in dialogue.turns]
        found = (await j.ask(IntentionsReply(), self.template, turns=turns)).value
        met = sum(i.met == "yes" for i in found)
        return Result(
            met / len(found),
            rationale=f"{met} of {len(found)} of the user's intentions met",
            details={
                "intentions": [
                    {"intention": i.intention, "met": i.met == "yes", "reason": i.reason}
                    for i in found
                ]
            },
        )
