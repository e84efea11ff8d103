"""JSON replies: the tolerant object reader and replies checked against a pydantic model,
with a stand-in derived from the model's schema."""

from __future__ import annotations

from typing import Literal

import pytest
from pydantic import BaseModel, Field

from ragjudge.metrics.replies import JsonReply, ParseError, parse_json_object

# ---------------------------------------------------------------------------
# parse_json_object


@pytest.mark.parametrize(
    "text",
    [
        '{"verdict": "yes", "reason": "stated"}',
        '```json\n{"verdict": "yes", "reason": "stated"}\n```',
        'Here is my answer:\n```\n{"verdict": "yes", "reason": "stated"}\n```\nHope it helps.',
        'Sure! {"verdict": "yes", "reason": "stated"} Let me know.',
        '{"verdict": "yes", "reason": "stated",}',
        '\ufeff  {"verdict": "yes",\n "reason": "stated",\n}\n',
    ],
)
def test_json_tolerated_forms(text: str) -> None:
    assert parse_json_object(text) == {"verdict": "yes", "reason": "stated"}


def test_json_keeps_braces_and_commas_inside_strings() -> None:
    text = 'Result: {"statements": [{"text": "a {b}, c,]", "ok": true},], "n": 1,} done'

    assert parse_json_object(text) == {"statements": [{"text": "a {b}, c,]", "ok": True}], "n": 1}


def test_json_skips_brace_prose_and_reads_japanese() -> None:
    text = '判定は{次の通り}です。\n{"判定": "はい", "理由": "文脈に記載あり"}'

    assert parse_json_object(text) == {"判定": "はい", "理由": "文脈に記載あり"}


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "empty"),
        ("no json here", "no complete JSON object"),
        ('{"verdict": "yes", "reason": ', "no complete JSON object"),
        ('[{"verdict": "yes"}]', "got a JSON list"),
        ("{'verdict': 'yes'}", "no complete JSON object"),
        ('{"a": 1} and also {"b": 2}', "2 JSON objects"),
        ('```json\n{"a": 1}\n```\n```json\n{"b": 2}\n```', "2 JSON objects"),
    ],
)
def test_json_rejects_missing_broken_or_ambiguous_objects(text: str, message: str) -> None:
    with pytest.raises(ParseError, match=message):
        parse_json_object(text)


class Verdict(BaseModel):
    explanation: str
    rating: int = Field(ge=1, le=5)
    label: Literal["good", "bad"] = "good"


class Statements(BaseModel):
    statements: list[str] = Field(min_length=2)
    verdicts: list[Verdict]


def test_json_reply_validates_against_the_model() -> None:
    reply = JsonReply(Verdict)
    parsed = reply.parse('```json\n{"explanation": "clear", "rating": 4}\n```')
    assert parsed == Verdict(explanation="clear", rating=4)
    with pytest.raises(ParseError, match="'rating'"):
        reply.parse('{"explanation": "clear", "rating": 9}')
    with pytest.raises(ParseError, match="'explanation'"):
        reply.parse('{"rating": 3}')


@pytest.mark.parametrize("model", [Verdict, Statements])
def test_json_stand_in_comes_from_the_schema_and_parses(model: type[BaseModel]) -> None:
    reply = JsonReply(model)
    parsed = reply.parse(reply.stand_in())
    assert isinstance(parsed, model)
    if isinstance(parsed, Verdict):
        assert parsed.rating == 3  # the middle of 1..5


def test_a_json_reply_is_described_by_its_models_schema() -> None:
    class Verdict(BaseModel):
        verdict: Literal["yes", "no"]
        score: int = Field(ge=1, le=5)

    assert JsonReply(Verdict).reply_schema() == Verdict.model_json_schema()
