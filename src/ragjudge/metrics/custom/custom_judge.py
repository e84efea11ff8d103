"""``custom_judge``: a judge of your own criteria and scale, written as data.

The judge is given inline in the metric's entry or in a YAML file (``spec:``) with the
same keys: ``criteria``, optional ``steps`` (or ``generate_steps``: the judge writes them
once per run from the criteria, as G-Eval does), ``scale`` (a range of whole numbers,
``yes/no``, or labels with scores), ``examples``, ``inputs`` and the score's meaning
(``direction``, ``threshold``, ``description``; the range follows from the scale).

One judge call per sample (plus the one call per run that writes the steps). Every
input is shown inside its delimiters; the reply is read by the kit's reader of the
scale's form (``[RESULT] n``, ``Answer: yes``, ``Final answer: <label>``), re-asked
on a reply it cannot read and then an explicit error. With ``score: weighted`` (the
default) the endpoint is asked for token log probabilities, and the stored value is
the verdict weighted by the probabilities of the scale's answers where the verdict is
written (details: ``distribution``, ``weighted``, ``argmax``); without them the verdict
written is stored, with a note.
"""

from __future__ import annotations

import asyncio
import dataclasses
import weakref
from pathlib import Path
from typing import Any, ClassVar

from ragjudge.metrics._base import (
    MetricContext,
    MetricFailure,
    Produced,
    Result,
    references,
    require_response,
)
from ragjudge.metrics._judged import JudgedMetric, JudgeFailed, Judging, Verdict, conversation
from ragjudge.metrics._prompts import Data, Instruction
from ragjudge.metrics._registry import register_metric
from ragjudge.metrics.custom._scale import Scale
from ragjudge.metrics.custom._spec import (
    DEFAULT_CRITERIA,
    CustomJudgeOptions,
    JudgeExample,
    check_judge_fields,
    read_judge_file,
)
from ragjudge.metrics.custom._steps import StepsReply
from ragjudge.metrics.custom._weighted import Weighed, weigh
from ragjudge.metrics.replies import ResultVerdict, YesNoVerdict
from ragjudge.schema import Output, Sample, ScoreMeaning

__all__ = ["CustomJudge"]

STEPS = StepsReply()
_LABELS = {
    "request": "Request",
    "response": "Response",
    "expected_response": "Reference answer",
    "retrieved_context": "Retrieved context",
    "expected_facts": "Expected facts",
    "guidelines": "Guidelines",
}


@register_metric("custom_judge")
class CustomJudge(JudgedMetric):
    """A judge of your own criteria and scale (inline, or a YAML file named by
    ``spec``); give each one a ``name``, the name its score is stored under."""

    Options = CustomJudgeOptions
    options: CustomJudgeOptions
    template = "custom_judge.jinja"
    steps_template: ClassVar[str] = "custom_judge_steps.jinja"
    calls_per_sample = "1 (and 1 per run to write the steps, with generate_steps)"
    pipeline_parts = ("end to end",)
    meaning = ScoreMeaning(low=1.0, high=5.0, description="your criteria, on your scale")

    def __init__(self, *, name: str | None = None, **options: Any) -> None:
        super().__init__(name=name, **options)
        spec = self.options.spec
        if spec is not None:
            merged = {**read_judge_file(Path(spec)), **options}
            check_judge_fields({k: v for k, v in merged.items() if k != "spec"}, spec)
            self.options = CustomJudgeOptions.model_validate(merged)
        self.scale: Scale = self.options.judge_scale()
        self.threshold = self.options.threshold
        self.requires = tuple(i for i in self.options.inputs if i != "request")
        self._steps: weakref.WeakKeyDictionary[Any, asyncio.Future[list[str]]]
        self._steps = weakref.WeakKeyDictionary()
        self._refusals: weakref.WeakKeyDictionary[Any, str] = weakref.WeakKeyDictionary()
        """Per judge: why its endpoint refused token log probabilities."""

    def __getstate__(self) -> dict[str, Any]:
        """Picklable (a Ray worker gets a copy): the steps written and the refusals met
        in this process stay here (the copy's judges are its own)."""
        return {k: v for k, v in self.__dict__.items() if k not in ("_steps", "_refusals")}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._steps = weakref.WeakKeyDictionary()
        self._refusals = weakref.WeakKeyDictionary()

    def meanings(self) -> dict[str, ScoreMeaning]:
        """One score, its range from the scale."""
        binary = self.scale.kind == "yes_no" and self.options.score == "argmax"
        meaning = ScoreMeaning(
            direction=self.options.direction,
            low=self.scale.low,
            high=self.scale.high,
            binary=binary,
            description=self.options.description or _description(self.options.criteria),
            threshold=self.options.threshold,
        )
        return {self.name: meaning}

    # the judge call -------------------------------------------------------------

    async def judge(self, sample: Sample, output: Output, j: Judging) -> Produced:
        """The steps (given, written once per run, or none), then one verdict."""
        values = await self.prompt_values(sample, output, j.ctx)
        steps = await self._steps_for(j)
        values["steps"] = [Instruction(s) for s in steps or ()]
        if self.options.score == "argmax":
            return self.value_of(await j.ask(self.scale.reader(), self.template, **values), steps)
        verdict, refusal = await self._weighable_verdict(j, values)
        return self.value_of(verdict, steps, refusal)

    async def _weighable_verdict(
        self, j: Judging, values: dict[str, Any]
    ) -> tuple[Verdict[Any], str | None]:
        """The verdict, asked with token log probabilities unless the endpoint refused
        them (then asked again without, once per run and judge), and the refusal."""
        judge = j.ctx.model_for("judge")
        refusal = self._refusals.get(judge)
        if refusal is None:
            try:
                top = self.options.top_logprobs
                ask = j.ask(self.scale.reader(), self.template, top_logprobs=top, **values)
                return await ask, None
            except JudgeFailed as exc:
                if not _refuses_logprobs(exc.message):
                    raise
                refusal = self._refusals[judge] = exc.message
        return await j.ask(self.scale.reader(), self.template, **values), refusal

    async def prompt_values(
        self, sample: Sample, output: Output, ctx: MetricContext
    ) -> dict[str, Any]:
        """The criteria, scale and examples (instructions) and the declared inputs
        (evaluated text; None for an input the judge does not read)."""
        shown = set(self.options.inputs)
        return {
            **self._instructions(),
            **(conversation(sample) if "request" in shown else {"request": None}),
            "response": require_response(output) if "response" in shown else None,
            "references": _references(sample) if "expected_response" in shown else None,
            "facts": _facts(sample) if "expected_facts" in shown else None,
            "guidelines": _guidelines(sample) if "guidelines" in shown else None,
            "contexts": _contexts(output) if "retrieved_context" in shown else None,
        }

    def _instructions(self) -> dict[str, Any]:
        return {
            "criteria": Instruction(self.options.criteria.strip()),
            "scale_text": Instruction(_scale_text(self.scale)),
            "verdict_form": Instruction(_verdict_form(self.scale)),
            "examples": [
                _example(e, self.scale, n) for n, e in enumerate(self.options.examples, 1)
            ],
        }

    # the steps, once per run and judge ---------------------------------------------

    async def _steps_for(self, j: Judging) -> list[str] | None:
        if self.options.steps is not None:
            return list(self.options.steps)
        if not self.options.generate_steps:
            return None
        judge = j.ctx.model_for("judge")
        found = self._steps.get(judge)
        if found is None or found.get_loop() is not asyncio.get_running_loop():
            # The first sample writes them (its score lists the call); trial 0, so
            # every trial and a re-run (through the reply cache) use the same steps.
            writer = Judging(self, dataclasses.replace(j.ctx, trial=0), j.call_ids)
            found = asyncio.ensure_future(self._write_steps(writer))
            self._steps[judge] = found
        return list(await asyncio.shield(found))

    async def _write_steps(self, j: Judging) -> list[str]:
        verdict = await j.ask(
            STEPS,
            self.steps_template,
            purpose=f"{self.name} (steps)",
            criteria=Instruction(self.options.criteria.strip()),
            scale_text=Instruction(_scale_text(self.scale)),
        )
        return verdict.value

    # the value --------------------------------------------------------------------

    def value_of(
        self, verdict: Verdict[Any], steps: list[str] | None, refusal: str | None = None
    ) -> Result:
        """The stored value (weighted or as written), the rationale and the details:
        the verdict, its value, the distribution, the steps, the threshold.
        ``refusal``: why the endpoint gave no log probabilities when it refused them."""
        answer, rationale = _answer_and_rationale(verdict.value, verdict.text)
        argmax = self.scale.values[answer]
        details: dict[str, Any] = {"verdict": answer, "argmax": argmax}
        value = argmax
        if self.options.score == "weighted":
            weighed = (
                f"the judge endpoint refused token log probabilities ({refusal})"
                if refusal is not None
                else weigh(verdict.logprobs, self.scale.values, answer)
            )
            if isinstance(weighed, Weighed):
                details["distribution"] = weighed.distribution
                details["weighted"] = value = weighed.weighted
            else:
                details["note"] = f"{weighed}: the verdict as written is stored"
        if steps:
            details["steps"] = steps
        if self.options.threshold is not None:
            details["threshold"] = self.options.threshold
            details["passed"] = _passes(value, self.options.threshold, self.options.direction)
        return Result(value, rationale=rationale, details=details)


def _answer_and_rationale(value: object, text: str | None) -> tuple[str, str | None]:
    if isinstance(value, ResultVerdict):
        return str(value.score), value.feedback or None
    if isinstance(value, YesNoVerdict):
        return value.label, value.rationale or None
    if isinstance(value, str):
        lines = [line for line in (text or "").strip().splitlines() if line.strip()]
        return value, "\n".join(lines[:-1]).strip() or None
    raise MetricFailure(f"unexpected verdict {value!r}")


def _refuses_logprobs(message: str) -> bool:
    """Whether a failed call's message is an endpoint refusing the request for log
    probabilities (a client error naming them), not a failure of the judge."""
    return "[client]" in message and "logprob" in message.lower()


def _passes(value: float, threshold: float, direction: str) -> bool:
    return value >= threshold if direction == "higher" else value <= threshold


def _description(criteria: str) -> str:
    if criteria == DEFAULT_CRITERIA:
        return "a judge of your own criteria and scale (until given criteria: overall quality)"
    return "custom judge: " + _first_line(criteria)


def _first_line(text: str) -> str:
    line = text.strip().splitlines()[0] if text.strip() else ""
    return line if len(line) <= 80 else line[:79] + "…"


def _scale_text(scale: Scale) -> str:
    if scale.kind == "range":
        low, high = int(scale.low), int(scale.high)
        return (
            f"A whole number from {low} to {high}: {high} when what is shown has the quality "
            f"the criteria describe to the full, {low} when it has none of it."
        )
    if scale.kind == "yes_no":
        return "yes when the criteria are met, no when they are not."
    return "One of these labels: " + ", ".join(f'"{a}"' for a in scale.answers) + "."


def _verdict_form(scale: Scale) -> str:
    if scale.kind == "range":
        low, high = int(scale.low), int(scale.high)
        return (
            "Write your reasoning in a few sentences, then end with a line that holds only "
            f"your score:\n[RESULT] n\nwhere n is a whole number from {low} to {high}."
        )
    if scale.kind == "yes_no":
        return (
            "Write your reasoning in one or two sentences, then end with a line that holds "
            "only your verdict:\nRationale: <your reasoning>\nAnswer: yes or no"
        )
    return (
        "Write your reasoning in a few sentences, then end with a line that holds only "
        "your verdict:\nFinal answer: <one of the labels>"
    )


def _example(example: JudgeExample, scale: Scale, number: int) -> dict[str, Any]:
    """An example's inputs as data inside delimiters (they may be evaluated texts a
    person labelled) and its reason (a person's comment) as data inside delimiters, its
    verdict as an instruction."""
    return {
        "inputs": [
            {
                "label": Instruction(_LABELS[key]),
                "block": Instruction(f"EXAMPLE {number} {key.upper()}"),
                "text": Data(text),
            }
            for key, text in example.inputs.items()
        ],
        "reason": Data(example.reason) if example.reason else None,
        "reason_block": Instruction(f"EXAMPLE {number} REASONING"),
        "verdict": Instruction(_written_verdict(scale, scale.answer_of(example.verdict))),
    }


def _written_verdict(scale: Scale, answer: str) -> str:
    """An example's verdict in the form the judge is asked to write its own."""
    if scale.kind == "range":
        return f"[RESULT] {answer}"
    if scale.kind == "yes_no":
        return f"Answer: {answer}"
    return f"Final answer: {answer}"


def _references(sample: Sample) -> list[str]:
    return [text for _, text in references(sample)]


def _facts(sample: Sample) -> list[str]:
    facts = [f for f in sample.expected_facts or () if f.strip()]
    if not facts:
        raise MetricFailure("no expected facts")
    return facts


def _guidelines(sample: Sample) -> list[str]:
    found = [g for items in sample.all_guidelines.values() for g in items if g.strip()]
    if not found:
        raise MetricFailure("no guidelines")
    return found


def _contexts(output: Output) -> list[Any]:
    if output.retrieved_context is None:
        raise MetricFailure("no retrieved context")
    return list(output.retrieved_context)
