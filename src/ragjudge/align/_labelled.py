"""The labelled samples of one score of a stored run: each sample with its output, the
people's label (the mean over annotators), whether they pass it, whether the judge's
stored verdict passes it, and the people's comments."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from ragjudge._util.suggest import did_you_mean
from ragjudge.errors import ConfigError
from ragjudge.schema import Output, Sample, ScoreMeaning
from ragjudge.store import Store
from ragjudge.store._labels import Label

__all__ = ["LabelledSample", "check_pass_line", "labelled_samples", "score_meaning"]


@dataclass(frozen=True)
class LabelledSample:
    """One sample the people labelled, with what the judge said of it in the run."""

    sample: Sample
    output: Output
    human: float
    """The label as a number, the mean over the people who gave one."""
    human_pass: bool
    judge_pass: bool
    """Whether the judge's stored value (the mean over trials) passes."""
    comments: tuple[str, ...] = ()
    judge_value: float | None = None
    """The judge's stored value (the mean over trials)."""
    on_scale: bool = False
    """Whether every label is a number on a scale (then the values are compared too)."""

    @property
    def request_id(self) -> str:
        """The sample's id."""
        return self.sample.request_id

    @property
    def disagrees(self) -> bool:
        """Whether the judge's pass differs from the people's."""
        return self.judge_pass != self.human_pass


def score_meaning(store: Store, run_id: str, metric: str) -> ScoreMeaning:
    """The stored meaning of score ``metric``; :class:`ConfigError` for a score the run
    does not have."""
    meanings = store.run(run_id).meanings or {}
    if metric not in meanings:
        hint = did_you_mean(metric, list(meanings))
        known = ", ".join(sorted(meanings)) or "none"
        raise ConfigError(f"--metric: run {run_id} has no score {metric!r}; {hint}scores: {known}")
    return meanings[metric]


def check_pass_line(meaning: ScoreMeaning, metric: str) -> None:
    """:class:`ConfigError` for a score without a pass (nothing to agree on)."""
    if meaning.passed(meaning.high) is None:
        raise ConfigError(
            f"--metric: {metric} has no pass line (no threshold and not yes/no), so a "
            "judge's verdict cannot be held against a person's; give it a threshold"
        )


def labelled_samples(
    store: Store, run_id: str, metric: str, meaning: ScoreMeaning
) -> list[LabelledSample]:
    """The samples of ``run_id`` that carry a numeric label of ``metric`` (or of the
    sample as a whole) and a stored value of the judge, in the run's order."""
    numbers = _label_numbers(store.labels(run_id, metric=metric))
    if not numbers:
        numbers = _label_numbers(store.labels(run_id, metric=""))
    if not numbers:
        raise ConfigError(
            f"--metric: run {run_id} has no labels of {metric} (give some in the viewer "
            "or import them first)"
        )
    judged = store.sample_means(run_id, metric)
    outputs = store.outputs(run_id)
    found = []
    for sample in store.samples(run_id):
        rid = sample.request_id
        if rid in numbers and rid in judged and rid in outputs:
            values, comments, kinds = numbers[rid]
            human = sum(values) / len(values)
            found.append(
                LabelledSample(
                    sample,
                    outputs[rid],
                    human,
                    _passes(meaning, human, kinds == {"yesno"}),
                    bool(meaning.passed(judged[rid])),
                    tuple(comments),
                    judged[rid],
                    kinds == {"scale"},
                )
            )
    return found


def _passes(meaning: ScoreMeaning, human: float, yes_no: bool) -> bool:
    """Yes/no labels pass on a majority; a scale's mean passes as the score would."""
    return human >= 0.5 if yes_no else bool(meaning.passed(human))


_Numbers = tuple[list[float], list[str], set[str]]
"""A sample's label values, comments and label kinds."""


def _label_numbers(labels: list[Label]) -> dict[str, _Numbers]:
    found: dict[str, _Numbers] = defaultdict(lambda: ([], [], set()))
    for label in labels:
        number = label.number()
        if number is None:
            continue
        values, comments, kinds = found[label.request_id]
        values.append(number)
        kinds.add(label.kind)
        if label.comment and label.comment.strip():
            comments.append(label.comment.strip())
    return dict(found)
