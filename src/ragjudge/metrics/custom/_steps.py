"""The evaluation steps a judge writes from a custom judge's criteria (G-Eval's first
call): a numbered list, read line by line."""

from __future__ import annotations

import re
from collections.abc import Sequence

from ragjudge.metrics.replies import ParseError, Reply

__all__ = ["MAX_STEPS", "StepsReply"]

MAX_STEPS = 20
_STEP = re.compile(r"^\s*(?:\*\*)?(\d{1,2})\s*[.)．）:]\s*(?:\*\*)?\s*(\S.*)$")


class StepsReply(Reply[list[str]]):
    """The numbered steps of the reply (``1. …``, ``2) …``), in order; a reply with none,
    or with more than :data:`MAX_STEPS`, is a :class:`ParseError`."""

    def parse(self, text: str, *, evaluated: Sequence[str] = ()) -> list[str]:
        """The steps, without their numbers."""
        steps = [found[2].strip() for line in text.splitlines() if (found := _STEP.match(line))]
        if not steps:
            raise ParseError("no numbered steps: write each step on its own line as '1. …'")
        if len(steps) > MAX_STEPS:
            raise ParseError(f"{len(steps)} steps: write at most {MAX_STEPS}")
        return steps

    def stand_in(self) -> str:
        """Two placeholder steps."""
        return "1. (dry run) Read what is shown.\n2. (dry run) Weigh it against the criteria."
