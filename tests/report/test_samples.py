"""The report's view of a stored judge call: its settings on one line, a reply schema
named rather than printed whole."""

from __future__ import annotations

import json

from ragjudge.report._samples import _call_view

SCHEMA_FORMAT = {
    "type": "json_schema",
    "json_schema": {"name": "LikertVerdict", "schema": {"type": "object", "properties": {}}},
}


def stored_call(config: dict[str, object]) -> dict[str, object]:
    return {
        "call_id": 3,
        "purpose": "likert",
        "provider": "openai",
        "model": "m",
        "messages_json": json.dumps([{"role": "user", "content": "Rate it."}]),
        "config_json": json.dumps(config),
        "text": '{"rating": 4}',
    }


def test_a_reply_schema_is_shown_by_its_name() -> None:
    view = _call_view(stored_call({"temperature": 0.0, "response_format": SCHEMA_FORMAT}), [])

    assert view.settings == "temperature 0.0, response_format json_schema LikertVerdict"


def test_other_settings_are_shown_as_they_are() -> None:
    view = _call_view(stored_call({"seed": 7, "response_format": {"type": "json_object"}}), [])

    assert view.settings == "seed 7, response_format json_object"
