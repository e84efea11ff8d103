"""``conversation_relevancy``: is each assistant turn relevant to what the user asked
in it, read in the light of the turns just before it (option ``window``: how many
earlier turns count as its context)? The score is the share of relevant turns. One
judge call per dialogue, returning a verdict per turn."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field

from ragjudge.metrics._base import MetricOptions
from ragjudge.metrics._prompts import Instruction
from ragjudge.metrics._registry import register_metric
from ragjudge.metrics.dialogues._turns import Dialogue
from ragjudge.metrics.dialogues._verdicts import TurnsJudge
from ragjudge.schema import ScoreMeaning


class RelevancyOptions(MetricOptions):
    window: Annotated[int, Field(ge=0)] = 3
    """How many turns before a turn the judge reads as its context (0: the turn alone)."""


@register_metric("conversation_relevancy")
class ConversationRelevancy(TurnsJudge):
    """Share of assistant turns relevant to the user's message they answer, in the
    context of the turns just before it."""

    Options = RelevancyOptions
    options: RelevancyOptions
    meaning = ScoreMeaning(
        description="share of assistant turns relevant to the user's message in its context"
    )
    template = "conversation_relevancy.jinja"
    yes_label = "relevant"
    no_label = "irrelevant"
    said_yes = "relevant"

    def dialogue_values(self, dialogue: Dialogue) -> dict[str, Any]:
        """The window, as an instruction."""
        window = self.options.window
        if window == 0:
            return {"window": Instruction("Read each turn on its own: ignore the turns before it.")}
        return {
            "window": Instruction(
                f"Read each turn in the light of the {window} turn(s) just before it, and "
                "nothing earlier."
            )
        }
