"""How a metric's trials are reduced to one value per sample, as the config says: per
metric (``{metric: X, reduce: pass_at_k, reduce_k: 3, pass_threshold: 0.5}``) or for
every metric (the ``trials_reduce`` settings). The choice is checked when the metrics
are built and stored in the meanings of the metric's scores, where the summary reads
it (:mod:`ragjudge.stats._reducers` computes it)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, get_args

from ragjudge.metrics import Metric
from ragjudge.run._wrapping import wrapped_copy
from ragjudge.schema import Sample, ScoreMeaning, TrialsReduce, TrialsReduceMethod

__all__ = ["REDUCE_KEYS", "check_reduce", "reduce_choice", "with_trials_reduce"]

REDUCE_KEYS = ("reduce", "reduce_k", "pass_threshold")
"""A metric entry's keys that choose its reducer (not options of the metric; ``k`` and
``threshold`` are left to metrics that take them)."""

_METHODS: tuple[str, ...] = get_args(TrialsReduceMethod)
_COUNTING = ("pass_at_k", "at_least_k")


def reduce_choice(spec: Any, where: str) -> tuple[Any, TrialsReduce | None]:
    """The spec without its reducer keys, and the reducer they name (None: the
    config-wide one); a malformed value is a ``ValueError`` naming the metric and key."""
    if not isinstance(spec, dict) or not (set(REDUCE_KEYS) & spec.keys()):
        return spec, None
    rest = dict(spec)
    method = rest.pop("reduce", "mean")
    k = rest.pop("reduce_k", None)
    threshold = rest.pop("pass_threshold", None)
    if method not in _METHODS:
        raise ValueError(f"{where}: 'reduce' must be one of {', '.join(_METHODS)}, not {method!r}")
    if k is not None and (isinstance(k, bool) or not isinstance(k, int) or k < 1):
        raise ValueError(f"{where}: 'reduce_k' must be a whole number of at least 1, not {k!r}")
    if threshold is not None and (
        isinstance(threshold, bool) or not isinstance(threshold, int | float)
    ):
        raise ValueError(f"{where}: 'pass_threshold' must be a number, not {threshold!r}")
    if method not in _COUNTING and (k is not None or threshold is not None):
        raise ValueError(
            f"{where}: 'reduce_k' and 'pass_threshold' apply to 'reduce: pass_at_k' or "
            f"'reduce: at_least_k', not {method!r}"
        )
    found = None if threshold is None else float(threshold)
    return rest, TrialsReduce(method=method, k=k, threshold=found)


def check_reduce(metric: Metric, reduce: TrialsReduce, trials: int | None, where: str) -> None:
    """Refuse (``ValueError`` naming the metric) a counting reducer without ``k``, with
    ``k`` above the run's trials, or without a threshold for a score that is not yes/no."""
    if reduce.method not in _COUNTING:
        return
    if reduce.k is None:
        raise ValueError(
            f"{where}: 'reduce: {reduce.method}' needs 'reduce_k' (a number of trials)"
        )
    if trials is not None and reduce.k > trials:
        raise ValueError(
            f"{where}: 'reduce_k' is {reduce.k} but the run has {trials} trial"
            f"{'s' if trials != 1 else ''}; set trials to at least {reduce.k}"
        )
    graded = [n for n, m in metric.meanings().items() if not _passes_by_itself(m)]
    if reduce.threshold is None and graded:
        raise ValueError(
            f"{where}: 'reduce: {reduce.method}' needs 'pass_threshold' (the value a passing "
            f"trial reaches) for {', '.join(graded)}, which is not a yes/no score"
        )


def _passes_by_itself(meaning: ScoreMeaning) -> bool:
    """Whether a trial of this score passes without a ``pass_threshold``: a yes/no score
    (on yes) or one whose per-sample threshold a higher value reaches."""
    return meaning.binary or (meaning.threshold is not None and not meaning.lower_is_better)


class _Reducing(Metric):
    """Mixed into a copy of a metric's class: the meanings of its scores carry how
    their trials are reduced."""

    trials_reduce: TrialsReduce

    def _reduced(self, meanings: Mapping[str, ScoreMeaning]) -> dict[str, ScoreMeaning]:
        return {name: self._meaning(m) for name, m in meanings.items()}

    def _meaning(self, meaning: ScoreMeaning) -> ScoreMeaning:
        reduce = self.trials_reduce
        if reduce.method in _COUNTING and reduce.threshold is None:
            # only a score that passes by itself gets here (check_reduce): at its
            # per-sample threshold, else a yes/no score's yes
            found = 1.0 if meaning.threshold is None else meaning.threshold
            reduce = reduce.model_copy(update={"threshold": found})
        return meaning.model_copy(update={"trials_reduce": reduce})

    def meanings(self) -> dict[str, ScoreMeaning]:
        return self._reduced(super().meanings())

    def meanings_for(self, samples: Sequence[Sample]) -> dict[str, ScoreMeaning]:
        return self._reduced(super().meanings_for(samples))


def with_trials_reduce(metric: Metric, reduce: TrialsReduce) -> Metric:
    """A copy of ``metric`` whose scores' meanings say how their trials are reduced;
    ``metric`` itself when they are averaged (the default)."""
    if reduce.method == "mean":
        return metric
    return wrapped_copy(metric, _Reducing, trials_reduce=reduce)
