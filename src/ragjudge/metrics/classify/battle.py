"""Two responses head to head, judged in both orders (``ragjudge battle``).

A head-to-head spec (``battle``: "is response 1 better than response 2?") has two
``input_outputs`` pairs and choice scores from 0 to 1 that say how much better the
first response is. This metric shows the judge run A's response (the row's metadata
``response_a``) and run B's (the row's response) once in each order, both times for the
same request, and reports:

- ``NAME``: B's score, the mean of B's score over the two orders (1 − the first-is-better
  score when A is shown first, the score when B is): 1 B wins both times, 0 A does,
  0.5 a split — the mean over samples is B's win rate, free of the judge's position
  bias;
- ``NAME/position_bias``: 1 when the judge preferred the same position in both orders
  (so its preference followed the position, not the response);
- ``NAME/first_position``: the share of the two judgements that preferred whichever
  response came first (0.5 when the judge has no position preference).

The class is not registered as a metric of its own: it needs rows that carry two
responses, which ``ragjudge battle`` builds from two stored runs.
"""

from __future__ import annotations

import asyncio
from typing import Any, ClassVar

from ragjudge.metrics._base import MetricFailure, Produced, Result, require_response
from ragjudge.metrics._judged import Judging, Verdict
from ragjudge.metrics.classify._slots import SlotFiller, request_text
from ragjudge.metrics.classify._spec import SpecError
from ragjudge.metrics.classify.classify import Classify, ClassifyOptions
from ragjudge.metrics.replies import INVALID_CHOICE
from ragjudge.schema import Output, Sample, ScoreMeaning

__all__ = ["BASELINE_KEY", "Battle", "BattleOptions"]

BASELINE_KEY = "response_a"
"""The metadata key of run A's response in the rows of a battle."""


class BattleOptions(ClassifyOptions):
    """A head-to-head spec (default ``battle``) and where run A's response is."""

    spec: str | dict[str, Any] = "battle"
    baseline: str = BASELINE_KEY
    """The metadata key holding the response B is compared with (run A's)."""
    counts: bool = False


class Battle(Classify):
    """B's response against the baseline's, in both orders (see the module docstring)."""

    calls_per_sample = "2 per arg set (both orders)"

    Options = BattleOptions
    options: BattleOptions
    parts: ClassVar[tuple[str, ...]] = ("position_bias", "first_position")

    def check_spec(self) -> None:
        """A head-to-head spec: two input/completion pairs, choice scores from 0 to 1."""
        pairs = list(self.spec.input_outputs.items())
        if len(pairs) < 2:
            raise SpecError(f"{self.spec.where}: a battle needs two input_outputs pairs")
        scores = self.choice_scores
        if not scores or not all(0.0 <= v <= 1.0 for v in scores.values()):
            raise SpecError(
                f"{self.spec.where}: a battle needs choice_scores from 0 to 1 (how much "
                "better the first response is)"
            )
        self.first_pair, self.second_pair = pairs[0], pairs[1]

    @property
    def requires(self) -> tuple[str, ...]:  # type: ignore[override]
        """The response (B's) and the baseline (A's) in the metadata."""
        return ("response", f"metadata.{self.options.baseline}")

    def meanings(self) -> dict[str, ScoreMeaning]:
        """B's score, the position-bias flag and the first-position share."""
        return {
            self.name: ScoreMeaning(
                description=f"{self.spec.name}: B's win rate over A, asked in both orders "
                "(1 B better both times, 0.5 split, 0 A better)"
            ),
            f"{self.name}/position_bias": ScoreMeaning(
                binary=True,
                direction="lower",
                description="share of samples where the judge preferred the same position "
                "in both orders",
            ),
            f"{self.name}/first_position": ScoreMeaning(
                direction="lower",
                description="share of judgements preferring the response shown first "
                "(0.5 = no position preference)",
            ),
        }

    async def judge(self, sample: Sample, output: Output, j: Judging) -> Produced:
        """Ask with A first, then with B first; combine the two verdicts."""
        b = require_response(output)
        a = sample.metadata.get(self.options.baseline)
        if not isinstance(a, str):
            raise MetricFailure(
                f"the row holds no baseline response (metadata {self.options.baseline!r})"
            )
        a_first, b_first = await asyncio.gather(
            self._ask(sample, output, j, first=a, second=b),
            self._ask(sample, output, j, first=b, second=a),
        )
        return self._combined(a_first, b_first)

    async def _ask(
        self, sample: Sample, output: Output, j: Judging, *, first: str, second: str
    ) -> Verdict[str]:
        (in1, out1), (in2, out2) = self.first_pair, self.second_pair
        request = request_text(sample.request)
        given = {in1: request, in2: request, out1: first, out2: second}
        filler = await SlotFiller.of(
            self.spec, sample, output, j.ctx, arg_slots=self.arg_slots, given=given
        )
        args = next(iter(self.arg_sets.values()))
        chat = self.chat(lambda prompt: filler.items(prompt, args))
        return await self.ask_choice(j, chat, purpose=self.name)

    def _first_score(self, choice: str) -> float:
        scores = self.choice_scores or {}
        return min(scores.values()) if choice == INVALID_CHOICE else scores[choice]

    def _combined(self, a_first: Verdict[str], b_first: Verdict[str]) -> dict[str, Result]:
        ab, ba = self._first_score(a_first.value), self._first_score(b_first.value)
        biased = (ab > 0.5 and ba > 0.5) or (ab < 0.5 and ba < 0.5)
        details = {
            "spec": self.spec.name,
            "choice_a_first": a_first.value,
            "choice_b_first": b_first.value,
        }
        rationale = f"A shown first:\n{a_first.text or ''}\n\nB shown first:\n{b_first.text or ''}"
        return {
            self.name: Result((ba + (1.0 - ab)) / 2, rationale=rationale, details=details),
            f"{self.name}/position_bias": Result(float(biased), details=details),
            f"{self.name}/first_position": Result((ab + ba) / 2, details=details),
        }

    def score_name(self, base: str) -> str:
        """Scores are named in full by :meth:`meanings` and :meth:`_combined`."""
        return base
