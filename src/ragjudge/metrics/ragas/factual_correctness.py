"""``factual_correctness`` (RAGAS): how far the response's claims and the reference's
agree, as precision, recall or an F-score.

The claims are the statements ``faithfulness`` and ``answer_correctness`` extract (the
same calls, shared when they run too). Precision checks each claim of the response
against the reference answer; recall checks each claim of the reference against the
response; each check is one call for all claims. ``mode: f1`` (the default) is the
F-score of the two with ``beta`` (1: the harmonic mean; above 1 recall weighs more).

Rules: a response with no claim has an undefined precision (an error in ``precision``
mode) and covers nothing (recall 0, so F 0); a reference with no claim is an error in
``recall`` and ``f1`` modes (precision checks against the reference's text and needs no
reference claims); several references: the first non-blank one; a verdict count that
differs from the claim count is re-asked, then an error.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from ragjudge.metrics._base import (
    MetricFailure,
    MetricOptions,
    Produced,
    Result,
    references,
    require_response,
)
from ragjudge.metrics._judged import JudgedMetric, Judging
from ragjudge.metrics._prompts import Instruction
from ragjudge.metrics._registry import register_metric
from ragjudge.metrics.ragas._claims import REFERENCE, supported_verdicts
from ragjudge.metrics.ragas._common import ItemVerdict, statements_of
from ragjudge.schema import Output, Sample, ScoreMeaning

RESPONSE = Instruction("an answer to the question")
"""How the prompt names the response as the source of the recall check."""


class FactualCorrectnessOptions(MetricOptions):
    mode: Literal["precision", "recall", "f1"] = "f1"
    """What is scored: the share of the response's claims the reference supports
    (precision), the share of the reference's claims the response supports (recall), or
    their F-score (f1)."""
    beta: float = Field(default=1.0, gt=0)
    """The F-score's weight of recall against precision (f1 mode): 1 weighs them alike."""


def f_beta(precision: float, recall: float, beta: float) -> float:
    """``(1 + β²)·P·R / (β²·P + R)``; 0 when both are 0."""
    weight = beta * beta
    denominator = weight * precision + recall
    return (1 + weight) * precision * recall / denominator if denominator else 0.0


@register_metric("factual_correctness")
class FactualCorrectness(JudgedMetric):
    """Claim-level precision, recall or F-score of the response against the reference."""

    pipeline_parts = ("end to end",)

    calls_per_sample = (
        "precision: 1 (the claim check; the response's claims are shared with faithfulness); "
        "recall: 2 (the reference's claims, shared with answer_correctness; the claim check); "
        "f1: both"
    )

    Options = FactualCorrectnessOptions
    options: FactualCorrectnessOptions
    requires: tuple[str, ...] = ("response", "expected_response")
    meaning = ScoreMeaning(description="agreement of the response's and the reference's claims")

    async def judge(self, sample: Sample, output: Output, j: Judging) -> Produced:
        """The claims each side needs, then one check per direction the mode needs."""
        question, response = sample.request.query, require_response(output)
        reference = references(sample)[0][1]
        mode = self.options.mode
        details: dict[str, Any] = {"mode": mode}
        if mode == "precision":
            value = await self._precision(j, question, response, reference, details)
        elif mode == "recall":
            value = await self._recall(j, question, response, reference, details)
        else:
            precision = await self._precision(j, question, response, reference, details)
            recall = await self._recall(j, question, response, reference, details)
            details.update(precision=precision, recall=recall, beta=self.options.beta)
            value = f_beta(precision, recall, self.options.beta)
        return Result(value, rationale=_rationale(details), details=details)

    async def _precision(
        self, j: Judging, question: str, response: str, reference: str, details: dict[str, Any]
    ) -> float:
        """The share of the response's claims the reference supports."""
        claims = await statements_of(j, question, response)
        if not claims:
            if self.options.mode == "precision":
                raise MetricFailure("the response makes no claim (precision undefined)")
            details["response_claims"] = []
            return 0.0
        verdicts = await supported_verdicts(j, claims, reference, REFERENCE)
        details["response_claims"] = _listed(claims, verdicts)
        return _share(verdicts)

    async def _recall(
        self, j: Judging, question: str, response: str, reference: str, details: dict[str, Any]
    ) -> float:
        """The share of the reference's claims the response supports."""
        claims = await statements_of(j, question, reference)
        if not claims:
            raise MetricFailure("the reference makes no claim to compare with")
        if not response.strip():
            details["reference_claims"] = [
                {"claim": c, "supported": False, "reason": "empty response"} for c in claims
            ]
            return 0.0
        verdicts = await supported_verdicts(j, claims, response, RESPONSE)
        details["reference_claims"] = _listed(claims, verdicts)
        return _share(verdicts)


def _share(verdicts: list[ItemVerdict]) -> float:
    return sum(v.verdict == "yes" for v in verdicts) / len(verdicts)


def _listed(claims: list[str], verdicts: list[ItemVerdict]) -> list[dict[str, Any]]:
    """Each claim with whether it is supported and the judge's reason."""
    return [
        {"claim": c, "supported": v.verdict == "yes", "reason": v.reason}
        for c, v in zip(claims, verdicts, strict=True)
    ]


def _rationale(details: dict[str, Any]) -> str:
    """ "a of b response claims supported by the reference; c of d reference claims …"."""
    parts = []
    for key, said in (
        ("response_claims", "response claims supported by the reference"),
        ("reference_claims", "reference claims supported by the response"),
    ):
        if key in details:
            found = details[key]
            parts.append(f"{sum(c['supported'] for c in found)} of {len(found)} {said}")
    return "; ".join(parts)
