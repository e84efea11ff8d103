"""Learning a candidate judge from labelled samples: worked examples chosen from the
disagreements, criteria rewritten by the judge model, or both. A candidate learns only
from the samples it is given, and says which of them it was shown."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from ragjudge.align._examples import as_examples, chosen_disagreements
from ragjudge.align._labelled import LabelledSample
from ragjudge.align._result import Candidate
from ragjudge.align._rewrite import rewrite_criteria
from ragjudge.errors import ConfigError
from ragjudge.metrics import Metric, create_metric
from ragjudge.metrics.custom._spec import CustomJudgeOptions
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
    """Learns candidates of one custom judge (``entry``: its metrics entry)."""

    entry: dict[str, Any]
    model: JudgeModel
    sampling: GenerateConfig
    examples: int = 4
    seed: int = 0
    _criteria: dict[tuple[str, ...], str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        options = build_judge(self.entry).options
        assert isinstance(options, CustomJudgeOptions)  # build_judge makes a custom judge
        self.base = options

    async def learn(self, candidate: Candidate, learned: Sequence[LabelledSample]) -> Learned:
        """The candidate's options learned from ``learned`` alone."""
        options: dict[str, Any] = {}
        shown: list[str] = []
        if candidate in ("examples", "examples+criteria"):
            chosen = chosen_disagreements(learned, count=self.examples, seed=self.seed)
            added = as_examples(chosen, self.base.inputs, self.base.judge_scale())
            options["examples"] = [*self.base.examples, *added]
            shown += [s.request_id for s in chosen]
        if candidate in ("criteria", "examples+criteria"):
            cases = [s for s in learned if s.disagrees][:MAX_CASES]
            options["criteria"] = await self._rewritten(cases)
            shown += [s.request_id for s in cases]
        return Learned(options, tuple(dict.fromkeys(shown)))

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
        return build_judge({**self.entry, **learned.options})

    def spec_of(self, learned: Learned) -> dict[str, Any]:
        """The candidate as a self-contained judge file's keys (no ``spec``), the
        defaults left out."""
        options = CustomJudgeOptions.model_validate(
            {**self.base.model_dump(exclude={"spec"}), **learned.options}
        )
        return options.model_dump(mode="json", exclude={"spec"}, exclude_defaults=True)


def build_judge(entry: dict[str, Any]) -> Metric:
    """A custom judge from its metrics entry; :class:`ConfigError` when it is no judge
    (its judge file changed or went away since the run)."""
    try:
        return create_metric({**entry, "metric": "custom_judge"})
    except ValueError as exc:
        raise ConfigError(f"the run's judge {entry.get('name')!r}: {exc}") from None
