"""``per_turn``: any single-turn metric applied to every assistant turn of a recorded
dialogue, its values aggregated over the turns into one score per dialogue.

Each turn is scored as a row of its own: the turn's user message is the request, the
turns before it (and the assistant's role) its history, the assistant's reply its
response; the row's ``guidelines``, ``rubric`` and ``metadata`` apply to every turn.
References (``expected_response``, ``expected_facts``) and contexts speak of the
dialogue as a whole, not of a turn, so a turn has none: a metric that needs them gives
an error. The score is named ``per_turn/<the metric's score>`` (an instance given a
``name`` is stored under it), with every turn's value in the details.
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from types import MappingProxyType
from typing import Any, Literal

from ragjudge.metrics._base import Metric, MetricContext, MetricOptions, Produced
from ragjudge.metrics._registry import create_metric, register_metric
from ragjudge.metrics.dialogues._turns import Dialogue, Turn, dialogue_of, turn_request
from ragjudge.schema import Output, Sample, Score, ScoreMeaning

Aggregate = Literal["mean", "min", "max", "first", "last"]

PREFIX = "per_turn/"

_IN_WORDS: dict[str, str] = {
    "mean": "mean over the dialogue's turns",
    "min": "lowest over the dialogue's turns",
    "max": "highest over the dialogue's turns",
    "first": "first turn of the dialogue",
    "last": "last turn of the dialogue",
}


class PerTurnOptions(MetricOptions):
    apply: str | dict[str, Any]
    """The metric applied to each turn: its name, or ``{metric: NAME, **options}``."""
    aggregate: Aggregate = "mean"
    """How the turns' values make the dialogue's: mean, min, max, first or last."""


@register_metric("per_turn")
class PerTurn(Metric):
    """A single-turn metric applied to every assistant turn of a recorded dialogue, its
    values aggregated over the turns."""

    Options = PerTurnOptions
    options: PerTurnOptions
    pipeline_parts = ("conversation",)
    calls_per_sample = "the metric's calls, once per assistant turn"
    example_options = MappingProxyType({"apply": "relevance_to_query"})

    def __init__(self, *, name: str | None = None, **options: Any) -> None:
        super().__init__(name=name, **options)
        try:
            self.inner = create_metric(self.options.apply)
        except ValueError as exc:
            raise ValueError(f"option 'apply': {exc}") from None
        if isinstance(self.inner, PerTurn):
            raise ValueError("option 'apply': per_turn cannot apply per_turn")
        vars(self)["needs_judge"] = self.inner.needs_judge
        if name is None:
            self.name = PREFIX + self.inner.name

    # declarations, those of the metric applied ----------------------------------

    @property
    def needs_retriever(self) -> bool:
        """Whether the metric applied searches for evaluation contexts."""
        return self.inner.needs_retriever

    def embedding_specs(self) -> list[str]:
        """The embedders of the metric applied."""
        return self.inner.embedding_specs()

    def extras(self) -> list[str]:
        """The extras of the metric applied."""
        return self.inner.extras()

    def model_roles(self) -> dict[str, str]:
        """The model roles of the metric applied."""
        return self.inner.model_roles()

    def meanings(self) -> dict[str, ScoreMeaning]:
        """The applied metric's scores, each renamed and described as aggregated."""
        return {
            self._stored(name): self._aggregated(m) for name, m in self.inner.meanings().items()
        }

    def score_names_for(self, sample: Sample) -> list[str]:
        """The applied metric's scores for ``sample``, renamed."""
        return [self._stored(name) for name in self.inner.score_names_for(sample)]

    def meanings_for(self, samples: Sequence[Sample]) -> dict[str, ScoreMeaning]:
        """The applied metric's meanings for ``samples``, renamed and aggregated."""
        found = self.inner.meanings_for(samples)
        return {self._stored(name): self._aggregated(m) for name, m in found.items()}

    def _stored(self, inner_name: str) -> str:
        if self.name.startswith(PREFIX):
            return PREFIX + inner_name
        only = len(self.inner.meanings()) == 1
        return self.name if only else f"{self.name}.{inner_name}"

    def _aggregated(self, meaning: ScoreMeaning) -> ScoreMeaning:
        aggregate = self.options.aggregate
        what = meaning.description or self.inner.name
        return meaning.model_copy(
            update={
                "description": f"{what} ({_IN_WORDS[aggregate]})",
                "binary": meaning.binary and aggregate != "mean",
                "excluded": () if aggregate == "mean" else meaning.excluded,
            }
        )

    # scoring ------------------------------------------------------------------

    async def compute(self, sample: Sample, output: Output, ctx: MetricContext) -> Produced:
        """Every turn scored by the metric applied, then aggregated per score."""
        dialogue = dialogue_of(sample, output)
        per_turn = [
            await self.inner.score(*_turn_row(sample, dialogue, turn), ctx)
            for turn in dialogue.turns
        ]
        return [
            self._aggregate_score(name, [_named(scores, name) for scores in per_turn])
            for name in self.inner.score_names_for(sample)
        ]

    def _aggregate_score(self, inner_name: str, turns: list[Score | None]) -> Score:
        stored = self._stored(inner_name)
        details = {"aggregate": self.options.aggregate, "turns": _turn_details(turns)}
        call_ids = [i for s in turns if s is not None for i in s.judge_call_ids]
        failed = next(((n, s) for n, s in enumerate(turns, 1) if s is not None and s.error), None)
        if failed is not None:
            return Score(
                metric=stored,
                value=None,
                error=f"turn {failed[0]}: {failed[1].error}",
                details=details,
                judge_call_ids=call_ids,
            )
        values = [s.value for s in turns if s is not None and s.value is not None]
        if not values:
            return Score.not_applicable(stored, f"{self.inner.name} applies to no turn")
        value = _combine(self.options.aggregate, values)
        shown = ", ".join(f"{v:g}" for v in values)
        rationale = f"{self.options.aggregate} of {len(values)} turns: {shown}"
        return Score(
            metric=stored,
            value=value,
            rationale=rationale,
            details=details,
            judge_call_ids=call_ids,
        )


def _turn_row(sample: Sample, dialogue: Dialogue, turn: Turn) -> tuple[Sample, Output]:
    """One turn as a row of its own and its output (see the module's rule)."""
    turn_sample = sample.model_copy(
        update={
            "request_id": f"{sample.request_id}#turn{turn.index}",
            "request": turn_request(dialogue, turn),
            "expected_response": None,
            "expected_facts": None,
            "retrieved_context": None,
            "expected_retrieved_context": None,
            "response": turn.assistant,
            "trace": None,
            "tool_calls": None,
            "expected_tool_calls": None,
        }
    )
    return turn_sample, Output(response=turn.assistant)


def _named(scores: list[Score], name: str) -> Score | None:
    return next((s for s in scores if s.metric == name), None)


def _turn_details(turns: list[Score | None]) -> list[dict[str, Any]]:
    """Each turn's value, rationale and error; ``turn`` counts assistant turns from 0."""
    return [
        {
            "turn": n,
            "value": None if s is None else s.value,
            "rationale": None if s is None else s.rationale,
            "error": None if s is None else s.error,
        }
        for n, s in enumerate(turns)
    ]


def _combine(aggregate: Aggregate, values: list[float]) -> float:
    if aggregate == "mean":
        return statistics.fmean(values)
    if aggregate == "min":
        return min(values)
    if aggregate == "max":
        return max(values)
    return values[0] if aggregate == "first" else values[-1]
