"""The scripted model and its reply script."""

from __future__ import annotations

import asyncio
import math

import pytest

from ragjudge.models._tokens import estimate_tokens
from ragjudge.models._types import ChatMessage, GenerateConfig, Generation, ModelError, Provider
from ragjudge.models.scripted import (
    ReplyScript,
    ScriptedProvider,
    hash_embedding,
    prompt_text,
)
from virtual_time import now, run_in_virtual_time

CONFIG = GenerateConfig()


def user(content: str) -> list[ChatMessage]:
    return [{"role": "user", "content": content}]


def cosine(a: list[float], b: list[float]) -> float:
    return math.fsum(x * y for x, y in zip(a, b, strict=True))


def test_first_matching_rule_wins_over_the_joined_prompt() -> None:
    script = ReplyScript(
        rules=[(r"faithful", "[RESULT] 5"), (r"(?i)SYSTEM RULES\nquestion", "both"), ("Q", "q")]
    )
    messages: list[ChatMessage] = [
        {"role": "system", "content": "system rules"},
        {"role": "user", "content": "Question?"},
    ]

    assert script.reply(user("is it faithful? Q")) == "[RESULT] 5"
    assert script.reply(messages) == "both"
    assert script.reply(user("nothing matches")) == "OK"


def test_sequence_is_used_in_order_then_default() -> None:
    script = ReplyScript(sequence=["first", "second"], default="fallback")

    replies = [script.reply(user("x")) for _ in range(4)]

    assert replies == ["first", "second", "fallback", "fallback"]
    assert script.remaining == 0


def test_rules_come_before_the_sequence() -> None:
    script = ReplyScript(rules=[("special", "rule")], sequence=["seq"])

    assert script.reply(user("special")) == "rule"
    assert script.remaining == 1
    assert script.reply(user("plain")) == "seq"


def test_function_comes_first_and_none_falls_through() -> None:
    def judge(messages: list[ChatMessage]) -> str | None:
        text = prompt_text(messages)
        return f"len={len(text)}" if "count" in text else None

    script = ReplyScript(rules=[("count|other", "rule")], function=judge)

    assert script.reply(user("count me")) == "len=8"
    assert script.reply(user("other")) == "rule"


def test_prompt_text_reads_content_parts() -> None:
    messages: list[ChatMessage] = [
        {"role": "system", "content": "sys"},
        {"role": "user", "content": [{"type": "text", "text": "part"}, {"type": "image_url"}]},
    ]

    assert prompt_text(messages) == "sys\npart"
    assert ReplyScript(rules=[("sys\npart", "seen")]).reply(messages) == "seen"


async def test_usage_of_japanese_text_counts_a_token_per_character() -> None:
    provider = ScriptedProvider(ReplyScript(default="はい、正しいです。"))

    generation = await provider.complete(user("日本語のテキスト"), CONFIG)

    # the same estimate the limiter paces by, so the two agree on CJK text
    assert (generation.usage.input_tokens, generation.usage.output_tokens) == (8, 9)


def test_scripted_provider_satisfies_the_protocol() -> None:
    provider: Provider = ScriptedProvider(model="judge")

    assert (provider.name, provider.model) == ("scripted", "judge")


async def test_complete_returns_a_generation_and_records_the_prompt() -> None:
    provider = ScriptedProvider(ReplyScript(default="Yes, grounded."), model="m1")
    messages = user("Is the answer grounded in the context?")

    generation = await provider.complete(messages, CONFIG)

    assert generation.text == "Yes, grounded."
    assert generation.model == "m1"
    assert generation.usage.input_tokens == estimate_tokens(messages[0]["content"])
    assert generation.usage.output_tokens == 4
    assert provider.calls == [messages]
    assert provider.calls[0] is not messages


async def test_injected_errors_are_consumed_in_order() -> None:
    limited = ModelError("slow down", kind="rate_limit", status=429, retry_after=1.0)
    broken = ModelError("boom", kind="server", status=500)
    provider = ScriptedProvider(errors=[limited, None, broken])

    outcomes: list[str] = []
    for _ in range(4):
        try:
            outcomes.append((await provider.complete(user("x"), CONFIG)).text)
        except ModelError as error:
            outcomes.append(error.kind)

    assert outcomes == ["rate_limit", "OK", "server", "OK"]
    assert len(provider.calls) == 4


async def test_inject_queues_more_errors() -> None:
    provider = ScriptedProvider()
    provider.inject(ModelError("late", kind="timeout"))

    with pytest.raises(ModelError, match="late"):
        await provider.embed(["a"])
    assert (await provider.embed(["a"])).vectors


def test_latency_is_awaited_concurrently() -> None:
    provider = ScriptedProvider(latency=0.1)

    async def main() -> tuple[list[Generation], float]:
        calls = (provider.complete(user("x"), CONFIG) for _ in range(10))
        return list(await asyncio.gather(*calls)), now()

    generations, finished = run_in_virtual_time(main())

    assert finished == pytest.approx(0.1)  # ten calls at once, not one after another
    assert [generation.latency for generation in generations] == [pytest.approx(0.1)] * 10


async def test_embed_is_deterministic_and_normalised() -> None:
    provider = ScriptedProvider(embedding_dim=32)
    texts = ["東京は日本の首都です。", "東京は日本の首都である。", "Bananas are yellow fruit."]

    result = await provider.embed(texts)
    again = await provider.embed(texts[:1])

    assert len(result.vectors) == 3
    assert all(len(vector) == 32 for vector in result.vectors)
    assert all(math.isclose(cosine(v, v), 1.0) for v in result.vectors)
    assert again.vectors[0] == result.vectors[0] == hash_embedding(texts[0], 32)
    assert cosine(result.vectors[0], result.vectors[1]) > cosine(
        result.vectors[0], result.vectors[2]
    )
    assert result.usage.input_tokens == sum(estimate_tokens(text) for text in texts)
    assert provider.embed_calls == [texts, texts[:1]]


def test_hash_embedding_handles_empty_text_and_rejects_bad_dims() -> None:
    vector = hash_embedding("", 8)

    assert math.isclose(cosine(vector, vector), 1.0)
    assert hash_embedding("Same  text") == hash_embedding("same text")
    with pytest.raises(ValueError):
        hash_embedding("x", 0)


# -- reply schemas -----------------------------------------------------------------

RATING = {
    "type": "object",
    "properties": {"rating": {"type": "integer", "minimum": 1, "maximum": 5}},
    "required": ["rating"],
}
WITH_SCHEMA = GenerateConfig(
    response_format={"type": "json_schema", "json_schema": {"name": "r", "schema": RATING}}
)


async def test_a_schema_call_is_answered_with_the_scripted_document_alone() -> None:
    chatty = 'Sure.\n```json\n{"rating": 9}\n```\nOr rather:\n{"rating":  4, "why": "ok"}\nBye.'
    provider = ScriptedProvider(ReplyScript(default=chatty))

    constrained = await provider.complete(user("Rate it."), WITH_SCHEMA)
    as_text = await provider.complete(user("Rate it."), CONFIG)

    # {"rating": 9} is outside the schema; the first document that fits is the reply
    assert constrained.text == '{"rating": 4, "why": "ok"}'
    assert as_text.text == chatty
    assert provider.configs == [WITH_SCHEMA, CONFIG]


async def test_only_a_fitting_document_is_kept_and_none_is_invented() -> None:
    script = ReplyScript(
        sequence=["I would rather not say.", '{"rating": 7}', 'So: {"rating": 2}.']
    )
    provider = ScriptedProvider(script)

    replies = [(await provider.complete(user("x"), WITH_SCHEMA)).text for _ in range(3)]

    assert replies == ["I would rather not say.", '{"rating": 7}', '{"rating": 2}']


async def test_a_model_that_refuses_schemas_fails_those_calls_only() -> None:
    provider = ScriptedProvider(ReplyScript(default='{"rating": 4}'), refuse_schemas=True)

    with pytest.raises(ModelError) as caught:
        await provider.complete(user("x"), WITH_SCHEMA)
    plain = await provider.complete(user("x"), CONFIG)

    assert caught.value.kind == "client" and caught.value.status == 400
    assert "response_format" in str(caught.value)
    assert plain.text == '{"rating": 4}'
    assert len(provider.calls) == 2
