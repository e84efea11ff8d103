"""The probability-weighted verdict, computed by hand."""

from __future__ import annotations

import math

import pytest

from ragjudge.metrics.custom._weighted import Weighed, weigh
from ragjudge.models import TokenLogprob, TopLogprob

FIVE = {str(v): float(v) for v in range(1, 6)}


def token(text: str, **top: float) -> TokenLogprob:
    alternatives = tuple(TopLogprob(token=t, logprob=math.log(p)) for t, p in top.items())
    return TokenLogprob(
        token=text, logprob=alternatives[0].logprob if top else 0.0, top=alternatives
    )


def reply(*verdict: TokenLogprob) -> list[TokenLogprob]:
    return [token("Fine"), token("."), token(" [RESULT]"), *verdict]


def test_the_scale_answers_at_the_verdict_are_renormalised_and_weighted() -> None:
    # 4: 0.5, 3: 0.2, "four" is no answer of the scale: 4 → 5/7, 3 → 2/7
    found = weigh(reply(token(" 4", **{" 4": 0.5, " 3": 0.2, " four": 0.3})), FIVE, "4")

    assert isinstance(found, Weighed)
    assert found.distribution["4"] == pytest.approx(5 / 7)
    assert found.distribution["3"] == pytest.approx(2 / 7)
    assert found.distribution["1"] == 0.0
    assert found.weighted == pytest.approx(4 * 5 / 7 + 3 * 2 / 7)  # 3.714285…


def test_two_spellings_of_one_answer_add_up() -> None:
    found = weigh(reply(token("4", **{"4": 0.4, " 4": 0.2, "2": 0.4})), FIVE, "4")

    assert isinstance(found, Weighed)
    assert found.weighted == pytest.approx(0.6 * 4 + 0.4 * 2)


def test_labels_are_matched_without_case_or_spaces() -> None:
    values = {"yes": 1.0, "no": 0.0}
    found = weigh(
        [token("Answer"), token(":"), token(" Yes", **{" Yes": 0.9, " No": 0.1})], values, "yes"
    )

    assert isinstance(found, Weighed) and found.weighted == pytest.approx(0.9)


@pytest.mark.parametrize(
    ("tokens", "words"),
    [
        (None, "returned no token log probabilities"),
        (reply(token(" 1"), token("0")), "not written as one token"),
        (reply(token(" 4", **{" four": 1.0})), "no answer of the scale"),
    ],
)
def test_no_weighted_verdict_says_why(tokens: list[TokenLogprob] | None, words: str) -> None:
    found = weigh(tokens, {**FIVE, "10": 10.0}, "10" if words.startswith("not") else "4")
    assert isinstance(found, str) and words in found
