"""``ragjudge prompts``: the judge prompts one metric would send for one sample, built
by the dry run's stand-in judge (:func:`ragjudge.run._dryrun.sample_prompts`), so what
is shown is what a run sends, with the evaluated text inside its delimiters."""

from __future__ import annotations

from dataclasses import dataclass, field

from ragjudge._util.known_secrets import register_secrets
from ragjudge.config import ConfigError, EvalConfig
from ragjudge.config._presets import entry_name
from ragjudge.config._secrets import config_secrets
from ragjudge.models import JudgeCallRecord
from ragjudge.run._dryrun import sample_prompts
from ragjudge.run._models import close_all
from ragjudge.run._preparation import prepare
from ragjudge.schema import Sample

__all__ = ["SamplePrompts", "metric_prompts", "only_metric"]


@dataclass
class SamplePrompts:
    """The judge calls one metric makes for one sample."""

    metric: str
    request_id: str
    needs_judge: bool
    calls: list[JudgeCallRecord] = field(default_factory=list)
    not_applicable: str | None = None
    """Why the sample lacks the metric's inputs (then no call is made)."""
    stand_in_response: bool = False
    """The target was not called: its response is stood in for by the reference answer
    (or the query), as in a dry run."""


def only_metric(config: EvalConfig, metric: str) -> EvalConfig:
    """``config`` evaluating ``metric`` alone, with the config's options for it when its
    metrics list it, and every row (the sample is chosen afterwards)."""
    entries = [e for e in config.metrics if entry_name(e) == metric]
    entry = entries[0] if entries else metric
    return config.model_copy(
        update={"metrics": [entry], "limit": None, "sample": None, "trials": 1}
    )


async def metric_prompts(
    config: EvalConfig, *, row: int | None = None, request_id: str | None = None
) -> SamplePrompts:
    """The judge calls of ``config``'s one metric for the sample at ``row`` (counted
    from 1) or with ``request_id`` (the first row when neither is given)."""
    register_secrets(config_secrets(config))
    setup = prepare(config)
    try:
        (metric,) = setup.metrics
        sample = _chosen_sample(setup.samples, row, request_id, config)
        found = SamplePrompts(metric.name, sample.request_id, metric.needs_judge)
        found.not_applicable = metric.rows_not_applicable.get(sample.request_id)
        found.stand_in_response = setup.target.supplies_response
        if metric.needs_judge and found.not_applicable is None:
            found.calls = await sample_prompts(
                config,
                sample,
                metric,
                supplies_response=setup.target.supplies_response,
                retriever=setup.retriever,
            )
        return found
    finally:
        await close_all(setup.target, setup.retriever)


def _chosen_sample(
    samples: list[Sample], row: int | None, request_id: str | None, config: EvalConfig
) -> Sample:
    if not samples:
        raise ConfigError(f"{config.where('data')}: the evaluation set has no rows")
    if request_id is not None:
        for sample in samples:
            if sample.request_id == request_id:
                return sample
        raise ConfigError(f"{config.where('data')}: no row has the id {request_id!r}")
    number = row or 1
    if not 1 <= number <= len(samples):
        raise ConfigError(
            f"{config.where('data')}: row {number} does not exist (the set has "
            f"{len(samples)} rows, counted from 1)"
        )
    return samples[number - 1]
