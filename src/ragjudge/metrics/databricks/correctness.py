"""``response/llm_judged/correctness/rating``: is the response correct? A yes/no judge
of Databricks Agent Evaluation, against the row's expected facts or its
expected response.

With ``expected_facts`` every fact is checked on its own (one yes/no call per fact); the
rating is yes when the response holds them all, and the rationale names the missing
ones. With ``expected_response`` one call compares the response with it (with several
references, matching any one of them is correct).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ragjudge.metrics._base import Produced, Result, require_response
from ragjudge.metrics._judged import Judging, Verdict, ask_all, conversation
from ragjudge.metrics._registry import register_metric
from ragjudge.metrics._yesno import YES_NO, rating, yes_no_meaning
from ragjudge.metrics.databricks._shared import EXPECTED, RESPONSE, DatabricksJudge
from ragjudge.metrics.replies import YesNoVerdict
from ragjudge.schema import Output, Sample


@register_metric("correctness")
class Correctness(DatabricksJudge):
    """Yes when the response holds every expected fact (each checked on its own), or
    carries the information of the expected response."""

    pipeline_parts = ("end to end",)

    calls_per_sample = "1 against the expected response, or 1 per expected fact"

    requires: tuple[str, ...] = (RESPONSE, EXPECTED)
    fixed_score_name = "response/llm_judged/correctness/rating"
    meaning = yes_no_meaning("share of correct responses (expected facts or response)")

    async def judge(self, sample: Sample, output: Output, j: Judging) -> Produced:
        """One call per expected fact, or one call against the expected response."""
        response = require_response(output)
        expected = self.expected(sample)
        values = {**conversation(sample), "response": response}
        if not expected.facts:
            verdict = await j.ask(
                YES_NO, "correctness.jinja", references=list(expected.references), **values
            )
            return rating(verdict.value)
        verdicts = await ask_all(
            [
                j.ask(
                    YES_NO, "correctness_fact.jinja", purpose=f"{self.name}.fact", fact=f, **values
                )
                for f in expected.facts
            ]
        )
        return facts_rating(expected.facts, verdicts)


def facts_rating(facts: Sequence[str], verdicts: Sequence[Verdict[YesNoVerdict]]) -> Result:
    """Yes when every fact is present; the rationale names the missing facts and why,
    the details list every fact with its verdict."""
    checked = [
        {"fact": fact, "label": v.value.label, "rationale": v.value.rationale}
        for fact, v in zip(facts, verdicts, strict=True)
    ]
    missing = [c for c in checked if c["label"] == "no"]
    if missing:
        named = "; ".join(
            f"{c['fact']!r}" + (f" ({c['rationale']})" if c["rationale"] else "") for c in missing
        )
        rationale = f"{len(missing)} of {len(facts)} expected facts missing: {named}"
    else:
        rationale = f"all {len(facts)} expected facts are present"
    label = "no" if missing else "yes"
    details: dict[str, Any] = {
        "label": label,
        "facts": checked,
        "missing_facts": [c["fact"] for c in missing],
    }
    return Result(0.0 if missing else 1.0, rationale=rationale, details=details)
