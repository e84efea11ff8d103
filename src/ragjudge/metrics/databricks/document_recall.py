"""``retrieval/ground_truth/document_recall``: the share of the expected documents
(``expected_retrieved_context``'s ``doc_uri``s) among the retrieved ones. Deterministic,
no judge (Databricks Agent Evaluation). ``doc_uri``s are compared exactly
(after trimming spaces); each expected document counts once. Contexts given as plain
text have no document names (their ``doc_uri`` is derived): the input is missing."""

from __future__ import annotations

from ragjudge.metrics._base import MetricContext, Produced, Result
from ragjudge.metrics._registry import register_metric
from ragjudge.metrics.databricks._shared import CONTEXTS, DatabricksMetric
from ragjudge.metrics.retrieval._documents import derived_uri_problem, document_id
from ragjudge.schema import ContextChunk, Output, Sample, ScoreMeaning


@register_metric("document_recall")
class DocumentRecall(DatabricksMetric):
    """Expected documents retrieved / expected documents; needs the retrieved context
    (or a trace) and ``expected_retrieved_context``. An empty retrieval is 0."""

    pipeline_parts = ("retrieval",)

    requires: tuple[str, ...] = (CONTEXTS, "expected_retrieved_context")
    fixed_score_name = "retrieval/ground_truth/document_recall"
    meaning = ScoreMeaning(description="share of the expected documents that were retrieved")

    async def compute(self, sample: Sample, output: Output, ctx: MetricContext) -> Produced:
        """The recall, with the expected, found and missing documents in the details."""
        if not sample.expected_retrieved_context:
            raise self.missing("no expected_retrieved_context")
        retrieved = self.contexts(output)
        for name, chunks in (
            ("expected_retrieved_context", sample.expected_retrieved_context),
            ("retrieved context", retrieved),
        ):
            if (problem := derived_uri_problem(name, chunks)) is not None:
                raise self.missing(problem)
        return document_recall(retrieved, sample.expected_retrieved_context)


def document_recall(retrieved: list[ContextChunk], expected: list[ContextChunk]) -> Result:
    """The share of ``expected``'s documents found among ``retrieved``'s."""
    wanted = list(dict.fromkeys(document_id(c) for c in expected))
    got = {document_id(c) for c in retrieved}
    found = [uri for uri in wanted if uri in got]
    missing = [uri for uri in wanted if uri not in got]
    rationale = f"{len(found)} of {len(wanted)} expected documents retrieved"
    if missing:
        rationale += "; missing: " + ", ".join(missing)
    return Result(
        len(found) / len(wanted),
        rationale=rationale,
        details={"expected": wanted, "found": found, "missing": missing},
    )
