"""How often a model-graded classification chose each choice (``ragjudge counts RUN``),
``__invalid__`` included: openai-evals' ``counts/A``, from the stored scores.

Every score of a ``classify`` call carries its classification (the score name of its
arg set) and the choice in its details; a reply that named no choice after the
re-asks carries ``__invalid__`` (and error scores). Calls that failed for other reasons
(the judge unreachable) are counted as ``(failed)``.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from ragjudge.schema import INVALID_CHOICE
from ragjudge.store._store import Store

__all__ = ["FAILED", "ChoiceCount", "choice_counts"]

FAILED = "(failed)"


@dataclass(frozen=True)
class ChoiceCount:
    """How many judged (sample, trial) pairs of one classification gave one choice."""

    classification: str
    choice: str
    count: int
    share: float

    def to_dict(self) -> dict[str, object]:
        """JSON-able form."""
        return dict(vars(self))


def choice_counts(store: Store, run_id: str) -> list[ChoiceCount]:
    """Per classification of the run, the count and share of every choice, in the
    spec's order, then ``__invalid__`` (always) and failed calls (when there are)."""
    run = store.run(run_id)
    chosen: dict[str, dict[tuple[str, int], str]] = {}
    for request_id, trial, score in store.scores(run.run_id):
        base = score.details.get("classification")
        if not isinstance(base, str):
            continue
        choice = score.details.get("choice")
        found = choice if isinstance(choice, str) else FAILED
        chosen.setdefault(base, {})[(request_id, trial)] = found
    declared = list(run.meanings or {})
    counts: list[ChoiceCount] = []
    for base, answers in chosen.items():
        tally = Counter(answers.values())
        order = [name.removeprefix(f"{base}/") for name in declared if name.startswith(f"{base}/")]
        order += [INVALID_CHOICE, FAILED]
        order += sorted(c for c in tally if c not in order)
        total = sum(tally.values())
        counts += [
            ChoiceCount(base, choice, tally[choice], tally[choice] / total)
            for choice in dict.fromkeys(order)
            if tally[choice] or choice != FAILED
        ]
    return counts
