"""Replies kept to a JSON schema, as the scripted model and the test server write them."""

from __future__ import annotations

import sys

import pytest

from ragjudge.models import ModelError
from ragjudge.models._constrained import constrained_reply, schema_check
from ragjudge.models._structured import is_schema_refusal

VERDICTS = {
    "type": "object",
    "properties": {
        "verdicts": {
            "type": "array",
            "items": {"$ref": "#/$defs/Verdict"},
            "minItems": 2,
            "maxItems": 2,
        }
    },
    "required": ["verdicts"],
    "$defs": {
        "Verdict": {
            "type": "object",
            "properties": {"verdict": {"enum": ["yes", "no"]}},
            "required": ["verdict"],
        }
    },
}
TWO = '{"verdicts": [{"verdict": "yes"}, {"verdict": "no"}]}'


@pytest.mark.parametrize(
    ("text", "kept"),
    [
        (TWO, TWO),
        ('{ "verdicts" : [ {"verdict":"yes"}, {"verdict":"no"} ] }', TWO),
        (f"```json\n{TWO}\n```", TWO),
        (f"My verdicts follow. {TWO} That is all.", TWO),
        ('{"verdicts": [{"verdict": "yes"}]} no, both: ' + TWO, TWO),
        ("東京について: " + TWO + "。", TWO),
    ],
)
def test_the_first_document_valid_against_the_schema_is_kept_compact(text: str, kept: str) -> None:
    assert constrained_reply(text, VERDICTS) == kept


@pytest.mark.parametrize(
    "text",
    [
        "",
        "yes and no",
        '{"verdicts": [{"verdict": "yes"}]}',  # one verdict: the schema wants two
        '{"verdicts": [{"verdict": "Yes"}, {"verdict": "no"}]}',  # not in the enum
        "{'verdicts': [{'verdict': 'yes'}, {'verdict': 'no'}]}",  # not JSON
        TWO[: len(TWO) // 2],
    ],
)
def test_a_text_without_a_fitting_document_has_none(text: str) -> None:
    assert constrained_reply(text, VERDICTS) is None


def test_a_value_that_is_not_a_schema_is_a_client_error() -> None:
    with pytest.raises(ModelError) as caught:
        schema_check({"type": "no such type"})

    assert caught.value.kind == "client" and caught.value.status == 400
    assert "json_schema" in str(caught.value)


def test_without_jsonschema_a_schema_is_refused_as_an_endpoint_refuses_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(sys.modules, "jsonschema", None)  # the package is not installed

    with pytest.raises(ModelError) as caught:
        constrained_reply(TWO, VERDICTS)

    assert is_schema_refusal(caught.value)  # so `auto` falls back to text replies
    assert "pip install jsonschema" in str(caught.value)
