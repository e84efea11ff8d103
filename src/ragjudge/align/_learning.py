"""Learning a candidate judge from labelled samples: worked examples chosen from the
disagreements, criteria rewritten by the judge model, or both (a built-in yes/no metric
learns worked examples only). A candidate learns only from the samples it is given, and
says which of them it was shown."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from ragjudge.align._examples import as_examples, chosen_disagreements
from ragjudge.align._judges import JudgeEntry
from ragjudge.align._labelled import LabelledSample
from ragjudge.align._result import Candidate
from ragjudge.align._rewrite import rewrite_criteria
from ragjudge.errors import ConfigError
from ragjudge.metrics import Metric, create_metric
from ragjudge.metrics._yesno import YesNoMetric
from ragjudge.metrics.custom._scale import parse_scale
from ragjudge.metrics.custom._spec import CustomJudgeOptions, JudgeExample
from ragjudge.models import GenerateConfig, JudgeModel

__all__ = ["MAX_CASES", "Learned", "Learner"]

MAX_CASES = 12
"""At most this many disagreements are shown to the judge when it rewrites criteria."""


@dataclass(frozen=True)
class Learned:
    """A candidate judge's options and the samples whose labels it was shown."""

    options: dict[str, Any]
    shown: tuple[str, ...]


@dataclass
class Learner:
    """Learns candidates of one judge (``entry``: its metrics entry) whose score is
    ``score``."""

    entry: JudgeEntry
    model: JudgeModel
    sampling: GenerateConfig
    examples: int = 4
    seed: int = 0
    score: str = ""
    _criteria: dict[tuple[str, ...], str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        judge = build_judge(self.entry.options)
        if isinstance(judge, YesNoMetric):
            self.inputs: tuple[str, ...] = judge.example_inputs()
            self.known: list[JudgeExample] = [
                JudgeExample.model_validate(e.model_dump()) for e in judge.options.examples
            ]
            return
        options = judge.options
        assert isinstance(options, CustomJudgeOptions)  # build_judge makes a custom judge
        self.base = options
        self.inputs = tuple(options.inputs)
        self.known = list(options.examples)

    async def learn(self, candidate: Candidate, learned: Sequence[LabelledSample]) -> Learned:
        """The candidate's options learned from ``learned`` alone."""
        options: dict[str, Any] = {}
        shown: list[str] = []
        if candidate in ("examples", "examples+criteria"):
            chosen = chosen_disagreements(learned, count=self.examples, seed=self.seed)
            added = as_examples(chosen, self.inputs, self._scale())
            options["examples"] = [*self.known, *added]
            shown += [s.request_id for s in chosen]
        if candidate in ("criteria", "examples+criteria"):
            cases = [s for s in learned if s.disagrees][:MAX_CASES]
            options["criteria"] = await self._rewritten(cases)
            shown += [s.request_id for s in cases]
        return Learned(options, tuple(dict.fromkeys(shown)))

    def _scale(self) -> Any:
        return parse_scale("yes/no") if self.entry.builtin else self.base.judge_scale()

    async def _rewritten(self, cases: Sequence[LabelledSample]) -> str:
        """New criteria for these cases, asked once (the combined candidate reuses the
        criteria rewritten for the same cases)."""
        key = tuple(s.request_id for s in cases)
        if key not in self._criteria:
            self._criteria[key] = await rewrite_criteria(
                self.model, self.base.criteria, cases, self.base.inputs, self.sampling
            )
        return self._criteria[key]

    def candidate_judge(self, learned: Learned) -> Metric:
        """The judge with the learned options in place of its own."""
        return build_judge({**self.entry.options, **_plain(learned.options)})

    def spec_of(self, learned: Learned) -> dict[str, Any]:
        """The candidate as a self-contained judge file's keys (no ``spec``), the
        defaults left out; for a built-in metric, its metrics entry with the options
        the run used."""
        if self.entry.builtin is not None:
            return {**self.entry.options, **_plain(learned.options)}
        options = CustomJudgeOptions.model_validate(
            {**self.base.model_dump(exclude={"spec"}), **learned.options}
        )
        return options.model_dump(mode="json", exclude={"spec"}, exclude_defaults=True)


def _plain(options: dict[str, Any]) -> dict[str, Any]:
    """Learned options as a config holds them: worked examples as mappings, without
    an unset reason."""
    examples = options.get("examples")
    if examples is None:
        return options
    written = [
        e.model_dump(mode="json", exclude_none=True) if isinstance(e, JudgeExample) else e
        for e in examples
    ]
    return {**options, "examples": written}


def build_judge(entry: dict[str, Any]) -> Metric:
    """A judge from its metrics entry (a custom judge's names no kind);
    :class:`ConfigError` when it is no judge (its judge file changed or went away since
    the run)."""
    try:
        return create_metric({"metric": "custom_judge", **entry})
    except ValueError as exc:
        raise ConfigError(f"the run's judge {entry.get('name')!r}: {exc}") from None
