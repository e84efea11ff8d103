"""Reply schemas in the judge layer: what is sent under each ``structured`` mode, the
fallback to text replies when an endpoint refuses a schema (once, with a note, no call
lost), and cache keys that keep replies obtained with and without a schema apart."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from model_helpers import MemoryRecorder, json_object, user

from ragjudge.models import (
    GenerateConfig,
    JudgeCallError,
    JudgeModel,
    ModelError,
    ModelSettings,
    ResponseCache,
    cache_key,
)
from ragjudge.models._structured import (
    is_schema_refusal,
    reply_schema,
    schema_format,
    without_schema,
)
from ragjudge.models.scripted import ReplyScript, ScriptedProvider
from virtual_time import run_in_virtual_time

VERDICT_SCHEMA: dict[str, Any] = {
    "title": "Verdict",
    "type": "object",
    "properties": {
        "explanation": {"type": "string", "examples": ["(dry run)"]},
        "rating": {"type": "integer", "minimum": 1, "maximum": 5, "examples": [3]},
    },
    "required": ["explanation", "rating"],
}
WITH_SCHEMA = GenerateConfig(temperature=0.0, response_format=schema_format(VERDICT_SCHEMA))
PLAIN_REPLY = '{"explanation": "fine", "rating": 4}'
CHATTY_REPLY = f"Here it is:\n```json\n{PLAIN_REPLY}\n```\nThanks!"


def judge_of(
    provider: ScriptedProvider,
    structured: str = "auto",
    cache: ResponseCache | None = None,
) -> tuple[JudgeModel, MemoryRecorder]:
    recorder = MemoryRecorder()
    settings = ModelSettings.model_validate(
        {"structured": structured, "cache": cache is not None, "max_retries": 1}
    )
    return JudgeModel(provider, settings=settings, cache=cache, recorder=recorder), recorder


def refusing(reply: str = PLAIN_REPLY) -> ScriptedProvider:
    return ScriptedProvider(ReplyScript(default=reply), refuse_schemas=True)


def sent_schemas(provider: ScriptedProvider) -> list[bool]:
    """Per request the provider received, whether it carried a reply schema."""
    return [reply_schema(config) is not None for config in provider.configs]


# -- the response_format -------------------------------------------------------------


def test_the_format_names_the_schema_and_leaves_its_examples_out() -> None:
    schema = {
        "title": "Odd name: v2!",
        "type": "object",
        "properties": {"examples": {"type": "array", "examples": [["x"]]}},
        "$defs": {"Item": {"type": "string", "examples": ["y"]}},
    }

    found = schema_format(schema)

    assert found["type"] == "json_schema"
    assert found["json_schema"]["name"] == "Odd_name_v2"
    sent = found["json_schema"]["schema"]
    assert sent["properties"] == {"examples": {"type": "array"}}  # the property stays
    assert sent["$defs"] == {"Item": {"type": "string"}}
    assert "examples" in schema["properties"]["examples"]  # the model's schema untouched


@pytest.mark.parametrize(
    ("error", "refusal"),
    [
        (ModelError("HTTP 400: Invalid parameter: 'response_format'", kind="client", status=400), True),
        (ModelError("HTTP 400: json_schema is not allowed here", kind="client", status=400), True),
        (ModelError("HTTP 422: guided decoding unsupported", kind="client", status=422), True),
        (ModelError("HTTP 400: prompt is too long", kind="client", status=400), False),
        (ModelError("HTTP 404: unsupported model", kind="client", status=404), False),
        (ModelError("HTTP 401: bad key (response_format)", kind="client", status=401), False),
        (ModelError("HTTP 500: response_format crashed", kind="server", status=500), False),
    ],
)  # fmt: skip
def test_a_refusal_is_a_client_error_about_the_schema(error: ModelError, refusal: bool) -> None:
    assert is_schema_refusal(error) is refusal


# -- what each mode sends ------------------------------------------------------------


async def test_auto_sends_the_schema_and_reads_the_constrained_reply() -> None:
    provider = ScriptedProvider(ReplyScript(default=CHATTY_REPLY))
    judge, recorder = judge_of(provider)

    parsed = await judge.generate_parsed(user("Rate it."), json_object, WITH_SCHEMA)

    assert sent_schemas(provider) == [True]
    assert provider.configs[0].response_format == WITH_SCHEMA.response_format
    assert parsed.text == '{"explanation": "fine", "rating": 4}'  # only the document
    assert parsed.value == {"explanation": "fine", "rating": 4}
    [record] = recorder.records
    assert record.config["response_format"] == WITH_SCHEMA.response_format
    assert judge.schemas.note is None


async def test_never_asks_for_text_replies_only() -> None:
    provider = ScriptedProvider(ReplyScript(default='{"explanation": "x", "rating": 2}'))
    judge, recorder = judge_of(provider, "never")

    parsed = await judge.generate_parsed(user("Rate it."), json_object, WITH_SCHEMA)

    assert sent_schemas(provider) == [False]
    assert parsed.value == {"explanation": "x", "rating": 2}
    assert "response_format" not in recorder.records[0].config


async def test_always_lets_a_refusal_fail_the_call_and_says_what_to_set() -> None:
    provider = refusing()
    judge, recorder = judge_of(provider, "always")

    with pytest.raises(JudgeCallError) as caught:
        await judge.generate_parsed(user("Rate it."), json_object, WITH_SCHEMA)

    assert sent_schemas(provider) == [True]  # asked once, not again as text
    assert caught.value.kind == "client"
    assert "'auto' falls back to text replies" in str(caught.value)
    assert caught.value.call_ids == [1] and recorder.records[0].error is not None
    assert judge.schemas.note is None


# -- the fallback ----------------------------------------------------------------------


async def test_a_refused_schema_falls_back_to_text_once_with_a_note() -> None:
    provider = refusing()
    judge, recorder = judge_of(provider)

    first = await judge.generate_parsed(user("Rate one."), json_object, WITH_SCHEMA)
    second = await judge.generate_parsed(user("Rate two."), json_object, WITH_SCHEMA)

    # the refused request, the same call as text, then text only
    assert sent_schemas(provider) == [True, False, False]
    assert first.value == second.value == {"explanation": "fine", "rating": 4}
    refused, answered, later = recorder.records
    assert refused.error is not None and "asked again for a text reply" in refused.error
    assert "response_format" in refused.config
    assert answered.error is None and "response_format" not in answered.config
    assert "response_format" not in later.config
    assert first.call_ids == [1, 2] and second.call_ids == [3]
    note = judge.schemas.note
    assert note is not None and "refused reply schemas" in note and "structured: auto" in note


def test_calls_in_flight_together_send_their_schemas_without_waiting() -> None:
    provider = refusing()
    provider.latency = 0.5  # every call is out before the first refusal comes back
    judge, recorder = judge_of(provider)

    async def main() -> tuple[list[Any], float]:
        loop = asyncio.get_running_loop()
        began = loop.time()
        calls = (
            judge.generate_parsed(user(f"Rate {i}."), json_object, WITH_SCHEMA) for i in range(4)
        )
        done = list(await asyncio.gather(*calls))
        return done, loop.time() - began

    done, took = run_in_virtual_time(main())

    assert all(p.value == {"explanation": "fine", "rating": 4} for p in done)
    # four refused requests, each asked again as text at once: two round trips in all
    assert sent_schemas(provider) == [True] * 4 + [False] * 4
    assert took == pytest.approx(1.0)
    assert sum(r.error is not None for r in recorder.records) == 4
    assert judge.schemas.note is not None


def test_once_an_endpoint_answered_a_schema_calls_in_flight_send_theirs() -> None:
    provider = ScriptedProvider(ReplyScript(default=PLAIN_REPLY), latency=0.5)
    judge, _ = judge_of(provider)

    async def main() -> list[Any]:
        calls = (
            judge.generate_parsed(user(f"Rate {i}."), json_object, WITH_SCHEMA) for i in range(4)
        )
        return list(await asyncio.gather(*calls))

    done = run_in_virtual_time(main())

    assert [p.value["rating"] for p in done] == [4] * 4
    assert sent_schemas(provider) == [True] * 4
    assert judge.schemas.refusal is None and judge.schemas.note is None


async def test_a_schema_call_that_fails_otherwise_leaves_the_next_with_its_schema() -> None:
    server_error = ModelError("HTTP 503", kind="server", status=503)
    provider = ScriptedProvider(ReplyScript(default=PLAIN_REPLY), errors=[server_error] * 2)
    judge, _ = judge_of(provider)  # one retry: the first call fails after two attempts

    with pytest.raises(JudgeCallError) as failed:
        await judge.generate_parsed(user("Rate one."), json_object, WITH_SCHEMA)
    second = await judge.generate_parsed(user("Rate two."), json_object, WITH_SCHEMA)

    assert failed.value.kind == "server" and second.value is not None
    assert sent_schemas(provider) == [True, True, True]  # still schemas: nothing refused
    assert judge.schemas.note is None


async def test_an_error_that_is_not_about_the_schema_does_not_fall_back() -> None:
    too_long = ModelError("HTTP 400: prompt is too long", kind="client", status=400)
    provider = ScriptedProvider(ReplyScript(default=CHATTY_REPLY), errors=[too_long])
    judge, _ = judge_of(provider)

    with pytest.raises(JudgeCallError):
        await judge.generate_parsed(user("Rate it."), json_object, WITH_SCHEMA)

    assert sent_schemas(provider) == [True]
    assert judge.schemas.refusal is None and judge.schemas.note is None


async def test_a_text_call_is_unchanged_by_any_mode() -> None:
    for mode in ("auto", "always", "never"):
        provider = refusing("[RESULT] 3")
        judge, _ = judge_of(provider, mode)
        generation = await judge.generate(user("Grade."), GenerateConfig(temperature=0.0))
        assert generation.text == "[RESULT] 3"
        assert sent_schemas(provider) == [False]


# -- the cache -----------------------------------------------------------------------


def test_cache_keys_tell_a_schema_call_from_a_text_call() -> None:
    def key(config: GenerateConfig) -> str:
        settings = config.model_dump(mode="json", exclude_none=True)
        return cache_key("openai", "m", user("Rate it."), settings, 0, endpoint="http://x/v1")

    other = schema_format({**VERDICT_SCHEMA, "required": ["rating"]})

    assert key(WITH_SCHEMA) != key(without_schema(WITH_SCHEMA))
    assert key(WITH_SCHEMA) != key(WITH_SCHEMA.model_copy(update={"response_format": other}))
    assert key(without_schema(WITH_SCHEMA)) == key(GenerateConfig(temperature=0.0))


async def test_a_cached_reply_serves_only_the_form_it_was_asked_in() -> None:
    cache = ResponseCache(":memory:")
    provider = ScriptedProvider(ReplyScript(sequence=[CHATTY_REPLY, "text reply"]))
    judge, _ = judge_of(provider, cache=cache)

    constrained = await judge.generate(user("Rate it."), WITH_SCHEMA)
    as_text = await judge.generate(user("Rate it."), without_schema(WITH_SCHEMA))
    again = await judge.generate(user("Rate it."), WITH_SCHEMA)

    assert len(provider.calls) == 2  # the text call was not served the schema's reply
    assert json.loads(constrained.text) == {"explanation": "fine", "rating": 4}
    assert as_text.text == "text reply" and not as_text.cached
    assert again.cached and again.text == constrained.text


async def test_a_text_reply_of_a_fallback_is_not_served_to_a_schema_call() -> None:
    cache = ResponseCache(":memory:")
    fallback, _ = judge_of(refusing('{"explanation": "as text", "rating": 2}'), cache=cache)
    await fallback.generate(user("Rate it."), WITH_SCHEMA)

    provider = ScriptedProvider(ReplyScript(default='{"explanation": "kept", "rating": 5}'))
    accepting, _ = judge_of(provider, cache=cache)
    generation = await accepting.generate(user("Rate it."), WITH_SCHEMA)

    assert not generation.cached and sent_schemas(provider) == [True]
    assert json.loads(generation.text)["explanation"] == "kept"
