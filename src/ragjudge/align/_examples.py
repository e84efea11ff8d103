"""Worked examples chosen from the samples where a judge and the people disagreed,
each with the inputs the judge reads, the people's verdict on the judge's scale and
their comment as the reason."""

from __future__ import annotations

import random
from collections.abc import Sequence

from ragjudge.align._labelled import LabelledSample
from ragjudge.metrics.custom._scale import Scale
from ragjudge.metrics.custom._spec import JudgeExample

__all__ = ["as_examples", "chosen_disagreements", "example_inputs", "people_verdict"]


def chosen_disagreements(
    learned: Sequence[LabelledSample], *, count: int, seed: int
) -> list[LabelledSample]:
    """Up to ``count`` examples from the disagreements among ``learned``, taken in
    turn from those the judge passed and the people failed and the other way round
    (seeded), so both directions are shown when both occur."""
    rng = random.Random(seed)
    lenient = [s for s in learned if s.disagrees and s.judge_pass]
    strict = [s for s in learned if s.disagrees and not s.judge_pass]
    rng.shuffle(lenient)
    rng.shuffle(strict)
    chosen: list[LabelledSample] = []
    while len(chosen) < count and (lenient or strict):
        for stream in (lenient, strict):
            if stream and len(chosen) < count:
                chosen.append(stream.pop())
    return chosen


def as_examples(
    chosen: Sequence[LabelledSample], inputs: Sequence[str], scale: Scale
) -> list[JudgeExample]:
    """The samples as worked examples: their inputs, the people's verdict, and the
    people's comment as the reason."""
    return [
        JudgeExample(
            inputs=example_inputs(s, inputs),
            verdict=_as_written(people_verdict(s, scale), scale),
            reason=_reason(s),
        )
        for s in chosen
        if example_inputs(s, inputs)
    ]


def example_inputs(labelled: LabelledSample, inputs: Sequence[str]) -> dict[str, str]:
    """The texts of the inputs the judge reads that the sample has, by name."""
    sample, output = labelled.sample, labelled.output
    texts = {
        "request": sample.request.query,
        "response": output.response,
        "expected_response": "\n".join(sample.references),
        "retrieved_context": "\n\n".join(c.content or "" for c in output.retrieved_context or ()),
        "expected_facts": "\n".join(sample.expected_facts or ()),
    }
    return {k: v for k, v in texts.items() if k in inputs and v}


def people_verdict(labelled: LabelledSample, scale: Scale) -> str:
    """The people's verdict as one of the scale's answers: yes/no by their pass, a
    number or label by the answer whose value lies closest to their label."""
    if scale.kind == "yes_no":
        return "yes" if labelled.human_pass else "no"
    value = labelled.human if scale.kind == "range" else _on_scale(labelled, scale)
    return min(scale.values, key=lambda answer: abs(scale.values[answer] - value))


def _as_written(answer: str, scale: Scale) -> str | int:
    """A number of a range as a number (``verdict: 4`` in the judge file)."""
    return int(answer) if scale.kind == "range" else answer


def _on_scale(labelled: LabelledSample, scale: Scale) -> float:
    """A label of the labels' kind: 1/0 (yes/no) read as the scale's top or bottom."""
    if labelled.human in (0.0, 1.0) and (scale.low, scale.high) != (0.0, 1.0):
        return scale.high if labelled.human == 1.0 else scale.low
    return labelled.human


def _reason(labelled: LabelledSample) -> str:
    said = "passes" if labelled.human_pass else "fails"
    why = " ".join(labelled.comments)
    return f"A person who checked this judged that it {said}" + (f": {why}" if why else ".")
