"""What the Databricks judges share: the option that says what a row without one of a
judge's inputs gives, and the readers of those inputs. The yes/no question, its rating
and the asking of several at once come from the kit (:mod:`ragjudge.metrics._yesno`).

A judge named on its own checks its inputs before the run (``requires``) and treats an
input missing at scoring time (a target that returned no contexts) as an error; under
``databricks`` every judge runs with ``if_missing: skip``, so a row that lacks an input
gets that judge's scores as not applicable — as Databricks' input schema says.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Literal

from ragjudge.metrics._base import Metric, MetricFailure, MetricOptions, NotApplicable
from ragjudge.metrics._yesno import YesNoMetric, YesNoOptions
from ragjudge.schema import ContextChunk, Output, Sample

__all__ = [
    "CONTEXTS",
    "EXPECTED",
    "RESPONSE",
    "DatabricksJudge",
    "DatabricksJudgeOptions",
    "DatabricksMetric",
    "DatabricksOptions",
    "Expected",
]

RESPONSE = "response|trace"
"""The response, or a trace that holds one."""
CONTEXTS = "retrieved_context|trace"
"""The retrieved context, or a trace whose last retriever span holds it."""
EXPECTED = "expected_facts|expected_response"


class DatabricksOptions(MetricOptions):
    """The options every Databricks judge takes."""

    if_missing: Literal["error", "skip"] = "error"
    """What a row without one of the judge's inputs gives: an explicit error (the rows
    are checked before the run), or ``skip``: the judge does not apply to the row
    (stored as not applicable). ``databricks`` runs its judges with ``skip``."""


class DatabricksMetric(Metric):
    """A Databricks metric: reads its inputs, and says what a missing one gives."""

    Options: ClassVar[type[MetricOptions]] = DatabricksOptions
    options: DatabricksOptions

    def __init__(self, *, name: str | None = None, **options: Any) -> None:
        super().__init__(name=name, **options)
        if self.options.if_missing == "skip":
            # only the response is needed up front; a row without the rest is skipped
            self.requires = tuple(r for r in type(self).requires if r == RESPONSE)

    def missing(self, reason: str) -> Exception:
        """What a missing input raises: not applicable under ``skip``, else an error."""
        if self.options.if_missing == "skip":
            return NotApplicable(reason)
        return MetricFailure(reason)

    def contexts(self, output: Output) -> list[ContextChunk]:
        """The retrieved context (an empty retrieval is a value: the retriever found
        nothing); a row or target without any is a missing input."""
        if output.retrieved_context is None:
            raise self.missing("no retrieved context (nor a trace with a retriever span)")
        return list(output.retrieved_context)

    def expected(self, sample: Sample) -> Expected:
        """The expected facts or the expected response(s)."""
        if sample.expected_facts:
            facts = [f for f in sample.expected_facts if f.strip()]
            if facts:
                return Expected(facts=facts)
        references = [r for r in sample.references if r.strip()]
        if references:
            return Expected(references=references)
        raise self.missing("no expected_facts or expected_response")


class DatabricksJudgeOptions(DatabricksOptions, YesNoOptions):
    """The options every Databricks LLM judge takes: ``if_missing`` and the yes/no
    kit's ``examples``."""


class DatabricksJudge(DatabricksMetric, YesNoMetric):
    """A Databricks LLM judge: by default one yes/no question whose answer is the rating
    (1 for yes, 0 for no, with the rationale); several questions override ``judge``."""

    Options: ClassVar[type[MetricOptions]] = DatabricksJudgeOptions
    options: DatabricksJudgeOptions


@dataclass(frozen=True)
class Expected:
    """What a correct response holds: a list of facts, or reference responses."""

    facts: Sequence[str] = ()
    references: Sequence[str] = ()

    @property
    def template_values(self) -> dict[str, Any]:
        """The facts and references a template shows."""
        return {"facts": list(self.facts), "references": list(self.references)}
