"""Two responses graded against each other with a score rubric and a reference answer,
in both orders (``ragjudge battle --graded``).

The judge is shown the request, two responses (labelled A and B by their place in the
prompt), a reference answer and a score rubric; it writes feedback and ends with
``[RESULT] A`` or ``[RESULT] B`` — there is no tie. It is asked twice, run A's response
first and then run B's first, and the two verdicts are mapped back to the runs
("un-swapped"). Per sample it reports:

- ``NAME``: B's score, the share of the two verdicts that went to run B (1 B won both
  times, 0 A did, 0.5 the verdicts disagree) — the mean over samples is B's win rate,
  and 1 minus it A's;
- ``NAME/position_bias``: 1 when the two verdicts disagree once un-swapped, which with
  two choices means the judge picked the same place both times: its verdict followed
  the position, not the response;
- ``NAME/first_position``: the share of the two verdicts that picked the response shown
  first (0.5 when the judge has no preference for a place).

Each score's details hold the two verdicts (``winner_a_first``, ``winner_b_first``: the
run each verdict went to) and whether they ``agree``. The rubric is the row's own
(metadata ``score_rubric`` by default) or else the ``rubric`` option; the reference is
the row's ``expected_response``.

Like :class:`~ragjudge.metrics.classify.battle.Battle` it is not registered as a metric
of its own: it needs rows that carry two responses, which ``ragjudge battle`` builds
from two stored runs.
"""

from __future__ import annotations

import asyncio
from typing import Any

from ragjudge.metrics._base import (
    MetricFailure,
    MetricOptions,
    Produced,
    Result,
    references,
    require_response,
)
from ragjudge.metrics._judged import JudgedMetric, Judging, Verdict
from ragjudge.metrics.classify._slots import request_text
from ragjudge.metrics.classify.battle import BASELINE_KEY
from ragjudge.metrics.replies import ChoiceReply
from ragjudge.schema import Output, Sample, ScoreMeaning

__all__ = ["RUBRIC_KEY", "GradedBattle", "GradedBattleOptions", "RelativeVerdict"]

RUBRIC_KEY = "score_rubric"
"""The metadata key of a row's own score rubric."""

FIRST, SECOND = "A", "B"
"""The labels of the response shown first and of the one shown second."""


class RelativeVerdict(ChoiceReply):
    """``Feedback: … [RESULT] A`` or ``… [RESULT] B``: which of the two responses shown
    is the better one (the label of its place in the prompt)."""

    def __init__(self) -> None:
        super().__init__((FIRST, SECOND))

    def stand_in(self) -> str:
        """What a dry run's stand-in judge answers."""
        return "Feedback: (dry run) both responses weighed against the rubric.\n[RESULT] A"


class GradedBattleOptions(MetricOptions):
    """The score rubric and where the rows keep theirs and run A's response."""

    rubric: str | None = None
    """The score rubric for every row without one of its own."""
    rubric_key: str = RUBRIC_KEY
    """The metadata key of a row's own score rubric (it wins over ``rubric``)."""
    baseline: str = BASELINE_KEY
    """The metadata key holding the response B is compared with (run A's)."""


class GradedBattle(JudgedMetric):
    """B's response against the baseline's, graded with a rubric and a reference answer
    in both orders (see the module docstring)."""

    Options = GradedBattleOptions
    options: GradedBattleOptions
    template = "graded_battle.jinja"
    reply = RelativeVerdict()
    calls_per_sample = "2 (both orders)"
    pipeline_parts = ("end to end",)

    @property
    def requires(self) -> tuple[str, ...]:  # type: ignore[override]
        """The response (B's), the reference, the baseline (A's) in the metadata and,
        without a ``rubric`` option, the row's own rubric."""
        needed = ("response", "expected_response", f"metadata.{self.options.baseline}")
        if self.options.rubric is None:
            return (*needed, f"metadata.{self.options.rubric_key}")
        return needed

    def meanings(self) -> dict[str, ScoreMeaning]:
        """B's score, the position-bias flag and the first-position share."""
        return {
            self.name: ScoreMeaning(
                description="B's win rate over A, graded with the rubric and the reference "
                "in both orders (1 B better both times, 0.5 the verdicts disagree, 0 A "
                "better)"
            ),
            f"{self.name}/position_bias": ScoreMeaning(
                binary=True,
                direction="lower",
                description="share of samples whose two verdicts followed the position "
                "rather than the response (they disagree once mapped back to the runs)",
            ),
            f"{self.name}/first_position": ScoreMeaning(
                direction="lower",
                description="share of verdicts for the response shown first (0.5 = no "
                "preference for a place)",
            ),
        }

    async def judge(self, sample: Sample, output: Output, j: Judging) -> Produced:
        """Ask with A's response first, then with B's first; map both verdicts back to
        the runs and combine them."""
        b = require_response(output)
        a = sample.metadata.get(self.options.baseline)
        if not isinstance(a, str):
            raise MetricFailure(
                f"the row holds no baseline response (metadata {self.options.baseline!r})"
            )
        shown: dict[str, Any] = {
            "request": request_text(sample.request),
            "references": [text for _, text in references(sample)],
            "rubric": self._rubric(sample),
        }
        a_first, b_first = await asyncio.gather(
            j.ask(self.reply, self.template, purpose=self.name, first=a, second=b, **shown),
            j.ask(self.reply, self.template, purpose=self.name, first=b, second=a, **shown),
        )
        return graded_results(self.name, a_first, b_first)

    def _rubric(self, sample: Sample) -> str:
        own = sample.metadata.get(self.options.rubric_key)
        if isinstance(own, str) and own.strip():
            return own
        if self.options.rubric is not None and self.options.rubric.strip():
            return self.options.rubric
        raise MetricFailure(
            f"the row holds no score rubric (metadata {self.options.rubric_key!r}) and "
            "the metric has no 'rubric' option"
        )

    def score_name(self, base: str) -> str:
        """Scores are named in full by :meth:`meanings` and :func:`graded_results`."""
        return base


def graded_results(name: str, a_first: Verdict[str], b_first: Verdict[str]) -> dict[str, Result]:
    """The scores of one sample from the verdict with A's response shown first and the
    one with B's shown first (each ``A`` or ``B``: the place the judge picked)."""
    winner_a_first = "a" if a_first.value == FIRST else "b"
    winner_b_first = "b" if b_first.value == FIRST else "a"
    agree = winner_a_first == winner_b_first
    details: dict[str, Any] = {
        "winner_a_first": winner_a_first,
        "winner_b_first": winner_b_first,
        "agree": agree,
    }
    b_share = [winner_a_first, winner_b_first].count("b") / 2
    first_share = [a_first.value, b_first.value].count(FIRST) / 2
    rationale = (
        f"A's response shown first:\n{a_first.text or ''}\n\n"
        f"B's response shown first:\n{b_first.text or ''}"
    )
    return {
        name: Result(b_share, rationale=rationale, details=details),
        f"{name}/position_bias": Result(float(not agree), details=details),
        f"{name}/first_position": Result(first_share, details=details),
    }
