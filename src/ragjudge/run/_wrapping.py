"""A metric's copy that also takes a mixin's behaviour (scoring under a named judge,
reducing its trials), shared by the wrappers of the run."""

from __future__ import annotations

import copy
from typing import Any

from ragjudge.metrics import Metric

__all__ = ["wrapped_copy"]

_CLASSES: dict[tuple[type, type[Metric]], type[Metric]] = {}


def wrapped_copy(metric: Metric, mixin: type, **attributes: Any) -> Metric:
    """A shallow copy of ``metric`` whose class is ``mixin`` over the metric's own (one
    class per pair, kept under the metric's class name and module so the copy pickles
    and reads as the metric), with ``attributes`` set on it."""
    cls = type(metric)
    wrapped_cls = _CLASSES.get((mixin, cls))
    if wrapped_cls is None:
        wrapped_cls = type(cls.__name__, (mixin, cls), {"__module__": cls.__module__})
        _CLASSES[(mixin, cls)] = wrapped_cls
    wrapped = copy.copy(metric)
    wrapped.__class__ = wrapped_cls
    for name, value in attributes.items():
        setattr(wrapped, name, value)
    return wrapped
