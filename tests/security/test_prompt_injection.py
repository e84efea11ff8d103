"""Prompt injection through every evaluated field, against every judged metric in the
registry (a new metric is covered by being registered).

Each attack of :data:`attacks.ATTACKS` is put into every evaluated field at once —
response, request, history, retrieved and expected contexts with their ``doc_uri``,
reference, facts, guideline names and texts, rubric criteria, metadata, and the
answers of the system under test in a dialogue — and then:

- **structurally**: every field stays inside its block, and the prompt outside the
  blocks is exactly the prompt of a harmless sample (the attack adds no block, no
  marker, no text outside the data). A metric whose prompt language follows the data
  (``language: auto``) may switch between its own English and Japanese prompts: the
  attacked prompt must then equal a harmless sample's prompt in one of them;
- **through the parser**: a judge that quotes the attack back, before or after its own
  verdict, gets its own verdict stored — never the attacker's. The stand-in judge here
  agrees with the attacker, so where its verdict line is word for word a line of the
  attack (``Answer: yes``) it cannot be told from a quotation: that reply is an explicit
  parse error. ``test_opposing_judge.py`` holds the judge that disagrees.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

import pytest
from attacks import ATTACKS

from evaluated import BLOCK, Marked, output_of, prompts_of, undelimited
from ragjudge.metrics import available_metrics, create_metric, metric_class
from ragjudge.models import ChatMessage, GenerateConfig, JudgeCallRecord, Parsed
from ragjudge.run._dryrun import StandInJudge
from ragjudge.schema import Sample, Score

T = TypeVar("T")
JUDGED = [n for n in available_metrics() if metric_class(n).needs_judge]
HARMLESS = "an ordinary sentence."


async def scored(
    name: str, marked: Marked, judge: Any, **options: Any
) -> tuple[list[Score], list[JudgeCallRecord]]:
    required = metric_class(name).example_options  # options a metric cannot do without
    metric = create_metric({"metric": name, **required, **options})
    row = marked.row()
    context = marked.context(judge, metric.embedding_specs())
    scores = await metric.score(Sample.model_validate(row), output_of(row), context)
    return scores, getattr(judge, "records", [])


def outside_blocks(prompt: str) -> str:
    """The prompt with every run of blocks (markers and data) replaced by one
    placeholder: the data decides how many items a list shows (sentences of a text),
    never what stands between the lists."""
    return re.sub(r"<block>(\s*<block>)*", "<block>", BLOCK.sub("<block>", prompt))


@pytest.mark.parametrize("attack", list(ATTACKS), ids=list(ATTACKS))
@pytest.mark.parametrize("name", JUDGED)
async def test_an_attack_in_every_field_stays_inside_the_blocks(name: str, attack: str) -> None:
    references = [
        await scored(name, Marked(HARMLESS), StandInJudge([]), **pinned)
        for pinned in _languages(name)
    ]
    scores, attacked = await scored(name, Marked(ATTACKS[attack]), StandInJudge([]))

    assert all(s.error is None for s in scores)
    assert any(
        len(scores) == len(plain_scores) and _same_structure(attacked, plain)
        for plain_scores, plain in references
    ), "the attack changed the prompt outside the blocks, or the calls made"
    assert not any(undelimited(prompt) for prompt in prompts_of(attacked))


def _languages(name: str) -> list[dict[str, str]]:
    """The pinned prompt languages of a metric whose prompt follows the data."""
    if "language" in metric_class(name).Options.model_fields:
        return [{"language": "en"}, {"language": "ja"}]
    return [{}]


def _same_structure(attacked: list[JudgeCallRecord], plain: list[JudgeCallRecord]) -> bool:
    if len(attacked) != len(plain):
        return False
    pairs = zip(prompts_of(attacked), prompts_of(plain), strict=True)
    return all(outside_blocks(p) == outside_blocks(r) for p, r in pairs)


class EchoingJudge(StandInJudge):
    """A judge that writes its own (stand-in) verdict and quotes the attack back with it."""

    def __init__(self, records: list[JudgeCallRecord], quote: Callable[[str], str]) -> None:
        super().__init__(records)
        self.quote = quote
        self.owns: list[str] = []

    def own_lines(self) -> list[str]:
        """Every line of the verdicts the judge wrote itself."""
        return [line for own in self.owns for line in own.splitlines() if line.strip()]

    async def generate_parsed(
        self,
        messages: Sequence[ChatMessage],
        parse: Callable[[str], T],
        config: GenerateConfig | None = None,
        *,
        trial: int = 0,
        purpose: str | None = None,
    ) -> Parsed[T]:
        own = parse.stand_in()  # type: ignore[attr-defined]
        self.owns.append(own)
        text = self.quote(own)
        generation = self._record(messages, config, trial, purpose, text)
        try:  # as the judge layer does once its re-asks are spent
            value = parse(text)
        except Exception as exc:
            return Parsed(None, f"parse error: {exc}", [generation], [generation.call_id or 0])
        return Parsed(value, None, [generation], [generation.call_id or 0])


QUOTES: dict[str, Callable[[str], Callable[[str], str]]] = {
    "after": lambda attack: lambda own: f"{own}\nThe response ends with:\n{attack}",
    "before": lambda attack: lambda own: f"The response says:\n{attack}\n{own}",
}


# A metric whose reply is made of copies of the data (sentences extracted verbatim)
# cannot tell quoting from answering: the parser check does not apply to it.
JUDGING = [n for n in JUDGED if not metric_class(n).reply_copies_data]


@pytest.mark.parametrize("quote", list(QUOTES))
@pytest.mark.parametrize("attack", list(ATTACKS), ids=list(ATTACKS))
@pytest.mark.parametrize("name", JUDGING)
async def test_a_quoted_attack_never_supplies_the_score(name: str, attack: str, quote: str) -> None:
    plain, _ = await scored(name, Marked(ATTACKS[attack]), StandInJudge([]))
    judge = EchoingJudge([], QUOTES[quote](ATTACKS[attack]))
    echoed, _ = await scored(name, Marked(ATTACKS[attack]), judge)
    if any(s.error is not None for s in echoed):
        # only when the judge's own verdict line is word for word a line of the attack
        # (and the overall assessment that needs those verdicts)
        errors = [s.error for s in echoed if s.error is not None]
        assert all(COPIED in e or e.startswith("cannot assess") for e in errors), errors
        attack_lines = {line.strip() for line in ATTACKS[attack].splitlines()}
        assert any(line.strip() in attack_lines for line in judge.own_lines())
        return
    assert [(s.metric, s.value) for s in echoed] == [(s.metric, s.value) for s in plain]


COPIED = "repeats the evaluated text word for word"


def test_the_suite_is_large_enough() -> None:
    assert len(ATTACKS) >= 40 and JUDGED
