"""Metrics, registered by name, and the kit they are built on.

A metric is one small module in a family folder (``metrics/lexical/``,
``metrics/accuracy/`` …) with its prompt template beside it. Modules under this package
are discovered on first use of the registry, so a new metric needs no import list::

    @register_metric("conciseness")
    class Conciseness(JudgedMetric):
        template = "conciseness.jinja"
        reply = YesNo()
        meaning = ScoreMeaning(binary=True)

        async def prompt_values(self, sample, output, ctx):
            return {"question": sample.request.query, "response": require_response(output)}

        def value(self, reply):
            return Result(1.0 if reply.yes else 0.0, rationale=reply.rationale)

A metric class outside the package is named by its import path in a config
(``{metric: my_pkg.my_metrics:Conciseness}``).
"""

from ragjudge.metrics._base import (
    Metric,
    MetricContext,
    MetricFailure,
    MetricOptions,
    NotApplicable,
    Produced,
    Result,
    references,
    require_response,
)
from ragjudge.metrics._contexts import (
    CONTEXT_SOURCES,
    ContextOptions,
    ContextSource,
    evaluation_contexts,
    evaluation_query,
)
from ragjudge.metrics._judged import JudgedMetric, JudgeFailed, Judging, Verdict
from ragjudge.metrics._prompts import DATA_NOTICE, Instruction, delimit
from ragjudge.metrics._registry import (
    available_metrics,
    create_metric,
    metric_class,
    register_metric,
)
from ragjudge.schema import ScoreMeaning

__all__ = [
    "CONTEXT_SOURCES",
    "DATA_NOTICE",
    "ContextOptions",
    "ContextSource",
    "Instruction",
    "JudgeFailed",
    "JudgedMetric",
    "Judging",
    "Metric",
    "MetricContext",
    "MetricFailure",
    "MetricOptions",
    "NotApplicable",
    "Produced",
    "Result",
    "ScoreMeaning",
    "Verdict",
    "available_metrics",
    "create_metric",
    "delimit",
    "evaluation_contexts",
    "evaluation_query",
    "metric_class",
    "references",
    "register_metric",
    "require_response",
]
