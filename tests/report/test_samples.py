"""The report's view of a stored judge call: its settings on one line, a reply schema
named rather than printed whole."""

from __future__ import annotations

import json

from ragjudge.report._samples import _call_view, column_labels

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


def test_column_labels_are_the_shortest_distinct_ends_of_the_names() -> None:
    names = [
        "response/llm_judged/safety/rating",
        "response/llm_judged/guideline_adherence/english/rating",
        "response/llm_judged/global_guideline_adherence/english/rating",
        "response/llm_judged/guideline_adherence/rating",
        "rouge_l",
    ]
    assert column_labels(names) == [
        "safety",
        "guideline_adherence/english",
        "global_guideline_adherence/english",
        "guideline_adherence",
        "rouge_l",
    ]


def test_column_labels_keep_full_names_when_short_ones_would_collide() -> None:
    assert column_labels(["x/rating", "x"]) == ["x/rating", "x"]
