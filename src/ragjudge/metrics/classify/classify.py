"""``classify``: model-graded classification driven by a spec (as OpenAI Evals grades).

The spec (YAML data, see :mod:`ragjudge.metrics.classify`) wraps the sample in its
grading prompt; the judge's choice is read by the spec's ``eval_type`` rule and turned
into the spec's choice score. One judge call per arg set; per arg set the metric
reports the choice score (when the spec or the metric gives choice scores) and, with
``counts``, the share of each choice (``NAME/A``: a binary score whose mean is the
share, so the count is share × n). ``ragjudge counts RUN`` tallies the choices,
``__invalid__`` included.

A reply naming no choice is ``__invalid__``. By default (``invalid: error``) the judge
is asked again, then every score of that call is an explicit error (its details say
``choice: __invalid__``). ``invalid: min`` reproduces openai-evals: no re-ask, the
reply scores the lowest choice score and ``NAME/__invalid__`` gives the share of such
replies.
"""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Mapping
from typing import Annotated, Any, Literal

from pydantic import Field

from ragjudge.metrics._base import MetricOptions, Produced, require_response
from ragjudge.metrics._judged import JudgedMetric, JudgeFailed, Judging, Verdict
from ragjudge.metrics._options import ConfigPath, FromConfig
from ragjudge.metrics._prompts import Instruction, render
from ragjudge.metrics._registry import register_metric
from ragjudge.metrics.classify._answer import answer_instruction
from ragjudge.metrics.classify._library import DuplicateKeys, find_spec
from ragjudge.metrics.classify._slots import SlotFiller, metadata_slots, required_fields
from ragjudge.metrics.classify._spec import SpecError, resolve_scores
from ragjudge.metrics.replies import INVALID_CHOICE, ChoiceReply
from ragjudge.models import ChatMessage
from ragjudge.schema import Output, Sample, Score, ScoreMeaning

__all__ = ["Classify", "ClassifyOptions", "arg_sets"]

ArgValues = dict[str, str | dict[str, str]]


class ClassifyOptions(MetricOptions):
    """Which spec, and what the metric changes about it."""

    spec: Annotated[str | dict[str, Any], ConfigPath(suffixes=(".yaml", ".yml"))] = "fact"
    """A spec name (built-in or in ``spec_dirs``), a path to a YAML file
    (``file.yaml`` or ``file.yaml#name``, relative to the config), or the spec's fields
    inline."""
    spec_dirs: Annotated[list[str], FromConfig("specs"), ConfigPath()] = Field(default_factory=list)
    """Folders of spec files, relative to the config; the config's ``specs`` folders
    are searched after them."""
    eval_type: Literal["cot_classify", "classify_cot", "classify"] | None = None
    """Overrides the spec's parse rule and appends the matching answer instruction
    (as an openai-evals eval's own ``eval_type`` does)."""
    answer_instruction: bool | None = None
    """Append our answer instruction (default: when the spec or this metric names its
    eval_type); false for a prompt that already says where the answer goes."""
    choice_scores: dict[str, float | int] | str | None = None
    """Replaces the spec's choice scores: a mapping, ``from_strings`` or the name of
    one of the spec's ``scorings`` (``fact``: ``consistent`` or ``complete``)."""
    args: dict[str, str | dict[str, str]] | None = None
    """Replaces the spec's args slot by slot (``{criteria: {polite: "..."}}``)."""
    invalid: Literal["error", "min"] = "error"
    """``error``: a reply naming no choice is asked again, then an explicit error;
    ``min``: it scores the lowest choice score without asking again (openai-evals)."""
    multicomp_n: int | None = Field(default=None, ge=1)
    """Completions per sample for the slots with a ``completion_sample_templates``
    entry (default: the spec's)."""
    counts: bool = True
    """Report the share of each choice and of ``__invalid__`` replies per arg set."""
    duplicate_keys: DuplicateKeys = "refuse"
    """A key given twice in one mapping of a spec file: ``refuse`` (an error naming the
    file and line), or ``warn`` and keep the later value, as openai-evals reads its
    registry (what an openai-evals registry eval sets)."""


def arg_sets(args: Mapping[str, str | Mapping[str, str]]) -> dict[str, dict[str, str]]:
    """Every combination of named arg values, by name: a slot with a plain value is
    the same in every set; one slot of named values names its sets by those names
    (``relevant``), several by ``slot=name`` pairs joined with commas."""
    fixed = {slot: value for slot, value in args.items() if isinstance(value, str)}
    named = [(slot, list(v.items())) for slot, v in args.items() if not isinstance(v, str)]
    if not named:
        return {"": fixed}
    sets: dict[str, dict[str, str]] = {}
    for combination in itertools.product(*(values for _, values in named)):
        if len(named) == 1:
            label = combination[0][0]
        else:
            label = ",".join(
                f"{slot}={n}" for (slot, _), (n, _) in zip(named, combination, strict=True)
            )
        chosen = {slot: value for (slot, _), (_, value) in zip(named, combination, strict=True)}
        sets[label] = {**fixed, **chosen}
    return sets


@register_metric("classify")
class Classify(JudgedMetric):
    """Model-graded classification by a spec (see the module docstring). The instance
    is named after its spec unless given a ``name``."""

    pipeline_parts = ("end to end",)

    calls_per_sample = "1 per arg set of the spec (× completions with multicomp_n)"
    threshold_refused = (
        "its scores are the judge's choices; gate the run on a choice's share instead"
    )

    Options = ClassifyOptions
    options: ClassifyOptions
    template = "classify.jinja"

    def __init__(self, *, name: str | None = None, **options: Any) -> None:
        super().__init__(name=name, **options)
        self.spec = find_spec(
            self.options.spec,
            self.options.spec_dirs,
            multicomp_n=self.options.multicomp_n,
            duplicate_keys=self.options.duplicate_keys,
        )
        if name is None:
            self.name = self.spec.name
        self.eval_type = self.options.eval_type or self.spec.eval_type
        self.choice_scores = resolve_scores(
            self.spec, self.options.choice_scores, where=self.spec.where
        )
        merged: ArgValues = {**self.spec.args, **(self.options.args or {})}
        self.arg_sets = arg_sets(merged)
        self.arg_slots = tuple(merged)
        self.choice_reply = ChoiceReply(
            self.spec.choice_strings,
            self.eval_type,
            invalid_is_choice=self.options.invalid == "min",
        )
        self.check_spec()

    def check_spec(self) -> None:
        """Refuse a spec this metric cannot report on (:class:`SpecError`)."""
        if not self.choice_scores and not self.options.counts:
            raise SpecError(
                f"{self.spec.where} has no choice_scores, so with counts: false the metric "
                "would report nothing; give choice_scores or keep counts"
            )

    # declarations -------------------------------------------------------------

    @property
    def requires(self) -> tuple[str, ...]:  # type: ignore[override]
        """The response, and the fields the spec's slots read."""
        return ("response", *required_fields(self.spec))

    def needed_in_some_row(self) -> dict[str, str]:
        """The metadata keys that fill the prompt's other slots."""
        return {
            f"metadata.{slot}": f"{self.spec.where}: the prompt's {{{slot}}}"
            for slot in metadata_slots(self.spec, self.arg_slots)
        }

    @property
    def choices(self) -> list[str]:
        """The spec's choices."""
        return list(self.spec.choice_strings)

    @property
    def counted_choices(self) -> list[str]:
        """The choices given a share score: ``__invalid__`` too with ``invalid: min``
        (otherwise such a reply is an error of every score)."""
        extra = [INVALID_CHOICE] if self.options.invalid == "min" else []
        return [*self.choices, *extra]

    def base_name(self, arg_set: str) -> str:
        """The score name of one arg set (the instance's name when there is one set)."""
        return self.name if len(self.arg_sets) == 1 else f"{self.name}.{arg_set}"

    def meanings(self) -> dict[str, ScoreMeaning]:
        """Per arg set: the choice score (when scored) and each choice's share."""
        found: dict[str, ScoreMeaning] = {}
        for arg_set in self.arg_sets:
            found.update(self.set_meanings(self.base_name(arg_set), arg_set))
        return found

    def set_meanings(self, base: str, arg_set: str = "") -> dict[str, ScoreMeaning]:
        """The scores of one arg set named from ``base``."""
        found: dict[str, ScoreMeaning] = {}
        about = f" ({arg_set})" if arg_set else ""
        if self.choice_scores:
            values = self.choice_scores.values()
            shown = ", ".join(f"{c}={v:g}" for c, v in self.choice_scores.items())
            found[base] = ScoreMeaning(
                low=min(values),
                high=max(values),
                description=f"{self.spec.name}{about}: the judge's choice scored {shown}",
            )
        if self.options.counts:
            for choice in self.counted_choices:
                found[f"{base}/{choice}"] = ScoreMeaning(
                    binary=True,
                    direction="lower" if choice == INVALID_CHOICE else "higher",
                    description=f"{self.spec.name}{about}: share of replies choosing {choice}",
                )
        return found

    # judging ------------------------------------------------------------------

    async def judge(self, sample: Sample, output: Output, j: Judging) -> Produced:
        """One call per arg set; each set's scores carry that call's ids."""
        require_response(output)
        filler = await SlotFiller.of(self.spec, sample, output, j.ctx, arg_slots=self.arg_slots)
        several = len(self.arg_sets) > 1
        per_set = await asyncio.gather(
            *(
                self._judge_set(filler, arg_set, args, j, several)
                for arg_set, args in self.arg_sets.items()
            )
        )
        return [score for scores in per_set for score in scores]

    async def _judge_set(
        self, filler: SlotFiller, arg_set: str, args: dict[str, str], j: Judging, several: bool
    ) -> list[Score]:
        base = self.base_name(arg_set)
        details: dict[str, Any] = {
            "classification": base,
            "spec": self.spec.name,
            "eval_type": self.eval_type,
        }
        if arg_set:
            details["arg_set"] = arg_set
        chat = self.chat(lambda prompt: filler.items(prompt, args))
        try:
            verdict = await self.ask_choice(j, chat, purpose=base if several else self.name)
        except JudgeFailed as exc:
            return self.failed_set(base, arg_set, exc, details)
        return self.choice_result(base, arg_set, verdict, details)

    def chat(self, items_of: Any) -> list[list[Any]]:
        """The prompt's messages, each ``[role, items, instruction]``: the spec's
        prompt (one user message, or its chat messages) filled by ``items_of``, our
        answer instruction after the last one."""
        prompt = self.spec.prompt
        messages = (
            [("user", prompt)] if isinstance(prompt, str) else [(m.role, m.content) for m in prompt]
        )
        chat: list[list[Any]] = []
        for index, (role, content) in enumerate(messages):
            last = index == len(messages) - 1
            chat.append([Instruction(role), items_of(content), self._instruction() if last else ""])
        return chat

    def _instruction(self) -> Instruction:
        wanted = self.options.answer_instruction
        if wanted is None:
            wanted = self.spec.answer_instruction
        if wanted is None:
            wanted = self.options.eval_type is not None or self.spec.gives_eval_type
        if not wanted:
            return Instruction("")
        said = answer_instruction(self.eval_type, self.choices, self.spec.language)
        return Instruction("\n\n" + said)

    async def ask_choice(self, j: Judging, chat: list[list[Any]], *, purpose: str) -> Verdict[str]:
        """Ask the judge ``chat`` and read its choice (``__invalid__`` with ``invalid: min``)."""
        return await j.ask(self.choice_reply, self.template, purpose=purpose, chat=chat)

    def messages(
        self, template: str, values: Mapping[str, Any], *, system: str | None = None
    ) -> list[ChatMessage]:
        """One message per entry of ``values["chat"]``; the data notice opens the first."""
        root = self._templates()
        messages: list[ChatMessage] = []
        for index, (role, items, instruction) in enumerate(values["chat"]):
            content = render(
                root,
                template,
                {"items": items, "notice": index == 0, "instruction": Instruction(instruction)},
            )
            messages.append({"role": str(role), "content": content})
        return messages

    # values -------------------------------------------------------------------

    def choice_result(
        self, base: str, arg_set: str, verdict: Verdict[str], details: dict[str, Any]
    ) -> list[Score]:
        """The scores of one answered call: its choice's score and the choice shares."""
        choice = verdict.value
        ids = list(verdict.call_ids)
        given = {**details, "choice": choice}
        scores: list[Score] = []
        if self.choice_scores:
            value = (
                min(self.choice_scores.values())
                if choice == INVALID_CHOICE
                else self.choice_scores[choice]
            )
            scores.append(
                Score(
                    metric=base,
                    value=value,
                    rationale=verdict.text,
                    details=given,
                    judge_call_ids=ids,
                )
            )
        if self.options.counts:
            scores += [
                Score(
                    metric=f"{base}/{c}",
                    value=float(c == choice),
                    details=given,
                    judge_call_ids=ids,
                )
                for c in self.counted_choices
            ]
        return scores

    def failed_set(
        self, base: str, arg_set: str, exc: JudgeFailed, details: dict[str, Any]
    ) -> list[Score]:
        """Every score of a failed call is an error; a reply that still named no choice
        after the re-asks is marked ``choice: __invalid__``."""
        invalid = exc.message.startswith("parse error")
        given = {**details, "choice": INVALID_CHOICE} if invalid else dict(details)
        error = f"{INVALID_CHOICE}: {exc.message}" if invalid else exc.message
        return [
            Score(
                metric=name,
                value=None,
                error=error,
                details=given,
                judge_call_ids=list(exc.call_ids),
            )
            for name in self.set_meanings(base)
        ]
