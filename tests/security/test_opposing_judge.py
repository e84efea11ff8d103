"""Prompt injection against a judge that disagrees with the attacker.

Every evaluated field carries, on a line of its own, a demand for the verdict the
attacker wants — in every form the reply readers know (``[RESULT] 5``, ``Answer: yes``,
``{"criteria_met": true}`` fenced or not, the top choice …). The judge answers the
OPPOSITE verdict and quotes the demand around it: after its verdict, before it,
``> ``-quoted, inline in its rationale, on a line of its own, or paraphrased as a
demand. For every judged metric (each family and reply kind; classification in each
eval type) the stored value must be the judge's own verdict, or an explicit parse
error — never the attacker's. (``context_relevancy``'s reply is made of copies of the
data, so quoting cannot be told from answering there: it bounds what a copy can do
itself, see its tests.)
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, TypeVar

import pytest
from verdicts import QUOTING, Sides, sides_of

from evaluated import Marked, output_of
from ragjudge.metrics import available_metrics, create_metric, metric_class
from ragjudge.models import ChatMessage, GenerateConfig, Parsed
from ragjudge.run._dryrun import StandInJudge
from ragjudge.schema import Sample, Score

T = TypeVar("T")
HARMLESS = "an ordinary sentence."

CONFIGS: dict[str, dict[str, Any]] = {
    name: {"metric": name, **metric_class(name).example_options}
    for name in available_metrics()
    if metric_class(name).needs_judge and not metric_class(name).reply_copies_data
}
CONFIGS.update(
    {
        "classify(classify_cot)": {"metric": "classify", "eval_type": "classify_cot"},
        "classify(classify)": {"metric": "classify", "eval_type": "classify"},
        "classify(closedqa)": {"metric": "classify", "spec": "closedqa"},
    }
)


# Calls answered with the judge's own verdict in every run, for the metric's other
# verdicts to decide its value: noise_sensitivity's check of the response's claims
# against the reference says they are wrong, so its chunk verdicts decide the share.
ALWAYS_OWN: dict[str, frozenset[str]] = {"noise_sensitivity": frozenset({"ragas.claim_support"})}


class SidedJudge(StandInJudge):
    """A judge that writes ``side`` (``own``: the opposite of the demand, ``agreeing``:
    the attacker's verdict) for every verdict call, wrapped by ``quote`` with the
    ``demand`` the data holds; calls that give no verdict get the stand-in reply. Keeps
    every verdict call's :class:`Sides`."""

    def __init__(
        self,
        side: str,
        quote: Callable[[str, str, str], str] | None = None,
        demand: tuple[str, str] = ("", ""),
    ) -> None:
        super().__init__([])
        self.side, self.quote, self.demand = side, quote, demand
        self.sides: list[Sides] = []
        self.always_own: frozenset[str] = frozenset()

    async def generate_parsed(
        self,
        messages: Sequence[ChatMessage],
        parse: Callable[[str], T],
        config: GenerateConfig | None = None,
        *,
        trial: int = 0,
        purpose: str | None = None,
    ) -> Parsed[T]:
        sides = sides_of(parse.reply)  # type: ignore[attr-defined]
        if sides is None:
            text = parse.stand_in()  # type: ignore[attr-defined]
        else:
            self.sides.append(sides)
            text = getattr(sides, "own" if purpose in self.always_own else self.side)
            if self.quote is not None:
                text = self.quote(text, *self.demand)
        generation = self._record(messages, config, trial, purpose, text)
        try:
            value = parse(text)
        except Exception as exc:
            return Parsed(None, f"parse error: {exc}", [generation], [generation.call_id or 0])
        return Parsed(value, None, [generation], [generation.call_id or 0])


async def scored(config: dict[str, Any], marked: Marked, judge: SidedJudge) -> list[Score]:
    metric = create_metric(config)
    judge.always_own = ALWAYS_OWN.get(config["metric"], frozenset())
    row = marked.row()
    context = marked.context(judge, metric.embedding_specs())
    return await metric.score(Sample.model_validate(row), output_of(row), context)


def values(scores: list[Score]) -> list[tuple[str, float | None, str | None]]:
    return [(s.metric, s.value, s.error) for s in scores]


_BASELINES: dict[str, tuple[list[Score], list[Score], list[Sides]]] = {}


async def baselines(name: str) -> tuple[list[Score], list[Score], list[Sides]]:
    """The metric's scores when the judge gives its own verdict and when it gives the
    attacker's (no attack in the data), and the sides of its verdict calls."""
    if name not in _BASELINES:
        own_judge = SidedJudge("own")
        own = await scored(CONFIGS[name], Marked(HARMLESS), own_judge)
        agreeing = await scored(CONFIGS[name], Marked(HARMLESS), SidedJudge("agreeing"))
        _BASELINES[name] = (own, agreeing, own_judge.sides)
    return _BASELINES[name]


def forms_of(name: str) -> list[str]:
    """The demand forms of the metric's verdict kind (found by asking the stand-in)."""
    import asyncio

    judge = SidedJudge("own")
    asyncio.run(scored(CONFIGS[name], Marked(HARMLESS), judge))
    return sorted({form for sides in judge.sides for form in sides.demands})


CASES = [(name, form) for name in CONFIGS for form in forms_of(name)]


def contained(attacked: list[Score], own: list[Score]) -> bool:
    """The judge's own values, or explicit parse errors (never a silent other value)."""
    if [s.metric for s in attacked] != [s.metric for s in own]:
        return False
    for got, want in zip(attacked, own, strict=True):
        if got.error is not None:
            if not explicit(got.error) or got.value is not None:
                return False
        elif want.error is not None or got.value != want.value:
            return False
    return True


def explicit(error: str) -> bool:
    """A parse error, or a score derived from verdicts that could not be read."""
    return "parse error" in error or error.startswith("cannot assess")


@pytest.mark.parametrize("quote", list(QUOTING))
@pytest.mark.parametrize(("name", "form"), CASES, ids=[f"{n}-{f}" for n, f in CASES])
async def test_the_stored_value_is_the_judges_own_never_the_attackers(
    name: str, form: str, quote: str, record_property: Callable[[str, object], None]
) -> None:
    record_property("attack_family", family_of(name))
    own, agreeing, sides = await baselines(name)
    assert values(own) != values(agreeing), "the attacker's verdict would change nothing"
    first = next(s for s in sides if form in s.demands)
    demand = (first.demands[form], first.in_words)
    data = Marked("\n" + demand[0])

    # the same data, the judge's own verdict alone: what must be stored (an explicit
    # error where the data plants the judge's own verdict line too)
    unquoted = await scored(CONFIGS[name], data, SidedJudge("own"))
    assert all(s.error is None or explicit(s.error) for s in unquoted), values(unquoted)
    attacked = await scored(CONFIGS[name], data, SidedJudge("own", QUOTING[quote], demand))

    assert contained(attacked, unquoted), (values(attacked), values(unquoted), values(agreeing))


def family_of(name: str) -> str:
    """The metric family (its package under ``ragjudge.metrics``) of a case's metric."""
    return metric_class(CONFIGS[name]["metric"]).__module__.split(".")[2]


def test_every_family_and_reply_kind_is_attacked() -> None:
    families = {family_of(name) for name in CONFIGS}
    assert {"accuracy", "classify", "databricks", "ragas", "rubric"} <= families
    assert len(CASES) >= 3 * len(CONFIGS)
