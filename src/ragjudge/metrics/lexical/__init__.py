"""Lexical metrics: compare the response with the reference answers word by word (see
:mod:`ragjudge.metrics.lexical._reference` for the rules they share).

A lexical metric is a :class:`ReferenceMetric` that compares the response with one
reference (:meth:`ReferenceMetric.compare_forms`, on the texts' shared
:class:`TextForms`); the base class picks the best reference, reports its position
and shares each text's forms with the sample's other lexical metrics.
"""

from ragjudge.metrics.lexical._reference import (
    Comparison,
    NormalizeOptions,
    ReferenceMetric,
    TextForms,
    as_score,
    overlap,
)

__all__ = [
    "Comparison",
    "NormalizeOptions",
    "ReferenceMetric",
    "TextForms",
    "as_score",
    "overlap",
]
