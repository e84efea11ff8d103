"""``role_adherence``: does the assistant stay in the role it was given? The role is
the option ``role``, else the dialogue's system message(s); for every assistant turn the
judge says whether the reply stays in that role. The score is the share of turns in
role. One judge call per dialogue, returning a verdict per turn."""

from __future__ import annotations

from types import MappingProxyType
from typing import Any

from ragjudge.metrics._base import MetricFailure, MetricOptions
from ragjudge.metrics._registry import register_metric
from ragjudge.metrics.dialogues._turns import Dialogue
from ragjudge.metrics.dialogues._verdicts import TurnsJudge
from ragjudge.schema import ScoreMeaning


class RoleOptions(MetricOptions):
    role: str | None = None
    """The assistant's role; when unset, the dialogue's system message(s) give it."""


@register_metric("role_adherence")
class RoleAdherence(TurnsJudge):
    """Share of assistant turns that stay in the role the system message (or the
    ``role`` option) gives."""

    Options = RoleOptions
    options: RoleOptions
    meaning = ScoreMeaning(description="share of assistant turns that stay in the given role")
    template = "role_adherence.jinja"
    yes_label = "in role"
    no_label = "out of role"
    said_yes = "stay in role"
    example_options = MappingProxyType({"role": "a polite support agent of a bank"})

    def dialogue_values(self, dialogue: Dialogue) -> dict[str, Any]:
        """The role: the option, else the system messages."""
        role = self.options.role or dialogue.role
        if not role:
            raise MetricFailure(
                "no role to hold the assistant to: the dialogue has no system message and "
                "the metric's 'role' option is not set"
            )
        return {"assistant_role": role}
