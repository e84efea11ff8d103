"""Metrics, registered by name, and the kit they are built on.

A metric is one small module in a family folder (``metrics/lexical/``,
``metrics/accuracy/`` …) with its prompt template beside it. Modules under this package
are discovered on first use of the registry, so a new metric needs no import list. A
yes/no judge is a :class:`YesNoMetric` and a template that extends the kit's
``kit/yes_no.jinja``::

    @register_metric("conciseness")
    class Conciseness(YesNoMetric):
        requires = ("response",)
        meaning = yes_no_meaning("share of responses with nothing the request did not need")
        template = "conciseness.jinja"

A metric class outside the package is named by its import path in a config
(``{metric: my_pkg.my_metrics:Conciseness}``). ``docs/metrics-kit.md`` says how to add
one.
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
from ragjudge.metrics._judged import (
    JudgedMetric,
    JudgeFailed,
    Judging,
    Verdict,
    ask_all,
    conversation,
)
from ragjudge.metrics._options import ConfigPath, ConfigSettings, FromConfig
from ragjudge.metrics._prompts import (
    DATA_NOTICE,
    Instruction,
    delimit,
    delimit_contexts,
    delimit_each,
)
from ragjudge.metrics._registry import (
    available_metrics,
    create_metric,
    metric_class,
    register_metric,
)
from ragjudge.metrics._yesno import YES_NO, YesNoMetric, rating, yes_no_meaning
from ragjudge.schema import ScoreMeaning

__all__ = [
    "CONTEXT_SOURCES",
    "DATA_NOTICE",
    "YES_NO",
    "ConfigPath",
    "ConfigSettings",
    "ContextOptions",
    "ContextSource",
    "FromConfig",
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
    "YesNoMetric",
    "ask_all",
    "available_metrics",
    "conversation",
    "create_metric",
    "delimit",
    "delimit_contexts",
    "delimit_each",
    "evaluation_contexts",
    "evaluation_query",
    "metric_class",
    "rating",
    "references",
    "register_metric",
    "require_response",
    "yes_no_meaning",
]
