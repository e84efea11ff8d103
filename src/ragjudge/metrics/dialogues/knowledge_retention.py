"""``knowledge_retention``: does the assistant keep what the user told it? For every
assistant turn of a recorded dialogue the judge says whether the reply keeps the facts
the user gave up to that turn (a name, a constraint, a preference) or contradicts or
forgets one; the score is the share of turns that keep them. One judge call per
dialogue, returning a verdict per turn."""

from __future__ import annotations

from ragjudge.metrics._registry import register_metric
from ragjudge.metrics.dialogues._verdicts import TurnsJudge
from ragjudge.schema import ScoreMeaning


@register_metric("knowledge_retention")
class KnowledgeRetention(TurnsJudge):
    """Share of assistant turns that keep what the user said earlier in the dialogue."""

    meaning = ScoreMeaning(
        description="share of assistant turns that keep what the user said earlier"
    )
    template = "knowledge_retention.jinja"
    yes_label = "retains"
    no_label = "forgets"
    said_yes = "keep what the user said"
