"""Metrics, registered by name. Importing this package registers the built-in ones."""

from ragjudge.metrics import answer_accuracy as answer_accuracy
from ragjudge.metrics import bert_score as bert_score
from ragjudge.metrics import lexical as lexical
from ragjudge.metrics import multiturn as multiturn
from ragjudge.metrics._base import (
    Metric,
    MetricContext,
    available_metrics,
    create_metric,
    register_metric,
)

__all__ = ["Metric", "MetricContext", "available_metrics", "create_metric", "register_metric"]
