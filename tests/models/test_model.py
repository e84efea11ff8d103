"""JudgeModel with the scripted provider: retries, timeouts, re-asks, cache, recording,
accounting, event loops and spec strings. Waits and timeouts run in virtual time
(:mod:`virtual_time`), so a test says how long the model waited by the loop's clock —
exactly, however busy the machine; ``benchmarks/layer_overhead.py`` measures speed."""

from __future__ import annotations

import asyncio
import importlib.util
import threading
from pathlib import Path

import pytest
from model_helpers import MemoryRecorder, json_object, result_score, user

from ragjudge.models import (
    REASK_MESSAGE,
    GenerateConfig,
    JudgeCallError,
    JudgeModel,
    Limiter,
    LiteLLMProvider,
    ModelError,
    ModelSettings,
    OpenAIProvider,
    PriceTable,
    ResponseCache,
    get_model,
)
from ragjudge.models._litellm import INSTALL_HINT, error_from_litellm
from ragjudge.models._types import ChatMessage, Generation
from ragjudge.models.scripted import ReplyScript, ScriptedProvider
from ragjudge.schema import Message
from virtual_time import loop_clock, now, run_in_virtual_time

FAST = ModelSettings(max_retries=3, backoff_base=0.01, backoff_max=0.02, timeout=2.0)


def scripted(
    *replies: str,
    errors: list[ModelError | None] | None = None,
    latency: float = 0.0,
    default: str = "[RESULT] 3",
) -> ScriptedProvider:
    return ScriptedProvider(
        ReplyScript(sequence=list(replies), default=default),
        latency=latency,
        errors=errors or [],
    )


def judge_with(
    provider: ScriptedProvider,
    settings: ModelSettings = FAST,
    cache: ResponseCache | None = None,
    prices: PriceTable | None = None,
) -> tuple[JudgeModel, MemoryRecorder]:
    recorder = MemoryRecorder()
    judge = JudgeModel(provider, settings=settings, cache=cache, recorder=recorder, prices=prices)
    return judge, recorder


def server_error() -> ModelError:
    return ModelError("HTTP 500", kind="server", status=500)


def in_loop_time(judge: JudgeModel) -> JudgeModel:
    """``judge`` with its limiter paced by the running loop's (virtual) clock."""
    judge.limiter = Limiter(judge.limiter.limits, clock=loop_clock())
    return judge


class SlowFirst(ScriptedProvider):
    """Answers its first ``slow`` calls only after an hour; the later ones at once."""

    def __init__(self, slow: int, reply: str) -> None:
        super().__init__(ReplyScript(default=reply))
        self.slow = slow

    async def complete(self, messages: list[ChatMessage], config: GenerateConfig) -> Generation:
        if len(self.calls) < self.slow:
            self.calls.append([dict(message) for message in messages])
            await asyncio.sleep(3600)
        return await super().complete(messages, config)


# -- generate, retries, timeouts ---------------------------------------------------


async def test_generate_records_the_call() -> None:
    judge, recorder = judge_with(scripted("[RESULT] 5"))
    config = GenerateConfig(temperature=0.0)
    generation = await judge.generate(user("Grade."), config, trial=2, purpose="accuracy")
    assert generation.text == "[RESULT] 5"
    assert generation.attempts == 1 and not generation.cached
    assert generation.call_id == 1
    [record] = recorder.records
    assert record.messages == user("Grade.")
    assert record.config == {"temperature": 0.0}
    assert (record.trial, record.purpose, record.attempts) == (2, "accuracy", 1)
    assert record.text == "[RESULT] 5" and record.error is None
    assert record.usage == generation.usage
    assert judge.spec == "scripted/scripted"


async def test_schema_messages_are_accepted() -> None:
    provider = scripted("ok")
    judge, _ = judge_with(provider)
    await judge.generate([Message(role="system", content="Be strict."), *user("Grade.")])
    assert provider.calls[0][0] == {"role": "system", "content": "Be strict."}


async def test_retryable_errors_are_retried() -> None:
    provider = scripted("[RESULT] 4", errors=[server_error(), server_error()])
    judge, recorder = judge_with(provider)
    generation = await judge.generate(user("Grade."))
    assert generation.text == "[RESULT] 4"
    assert generation.attempts == 3
    assert len(provider.calls) == 3
    assert recorder.records[0].attempts == 3
    assert judge.usage.total().errors_by_kind == {"server": 2}


async def test_retries_are_bounded() -> None:
    provider = scripted(errors=[server_error()] * 10)
    judge, recorder = judge_with(provider, FAST.model_copy(update={"max_retries": 2}))
    with pytest.raises(JudgeCallError) as caught:
        await judge.generate(user("Grade."))
    assert caught.value.kind == "server" and caught.value.status == 500
    assert caught.value.attempts == 3
    assert "gave up after 3 attempts" in str(caught.value)
    assert len(provider.calls) == 3
    [record] = recorder.records
    assert record.error is not None and record.attempts == 3
    assert caught.value.call_ids == [1]


async def test_non_retryable_error_fails_at_once() -> None:
    provider = scripted(errors=[ModelError("HTTP 401", kind="client", status=401)])
    judge, recorder = judge_with(provider)
    with pytest.raises(ModelError) as caught:
        await judge.generate(user("Grade."))
    assert caught.value.kind == "client"
    assert len(provider.calls) == 1
    assert recorder.records[0].error is not None


def test_retry_after_is_waited() -> None:
    limited = ModelError("HTTP 429", kind="rate_limit", status=429, retry_after=0.3)
    judge, _ = judge_with(scripted("ok", errors=[limited]))

    async def main() -> tuple[Generation, float]:
        generation = await in_loop_time(judge).generate(user("Grade."))
        return generation, now()

    generation, waited = run_in_virtual_time(main())
    assert waited == pytest.approx(0.3)  # the Retry-After, not the shorter backoff
    assert generation.attempts == 2
    assert judge.usage.total().rate_limited == 1


def test_overlong_retry_after_fails_instead_of_hanging() -> None:
    limited = ModelError("HTTP 429", kind="rate_limit", status=429, retry_after=3600)
    provider = scripted("ok", errors=[limited])
    judge, _ = judge_with(provider, FAST.model_copy(update={"max_retry_after": 5}))

    async def main() -> tuple[JudgeCallError, float]:
        with pytest.raises(JudgeCallError) as caught:
            await in_loop_time(judge).generate(user("Grade."))
        return caught.value, now()

    error, waited = run_in_virtual_time(main())
    assert error.kind == "rate_limit"
    assert waited == 0.0  # gave up at once instead of waiting an hour
    assert len(provider.calls) == 1


def test_backoff_is_jittered_exponential_and_capped() -> None:
    settings = ModelSettings(backoff_base=0.5, backoff_max=3.0, max_retries=10)
    judge = JudgeModel(scripted(), settings=settings)
    error = server_error()
    # a passing fault is retried at once, a second in a row after at most 0.1 s
    assert {judge._retry_delay(error, 1) for _ in range(20)} == {0.0}
    for attempt, ceiling in [(2, 0.1), (3, 2.0), (4, 3.0), (8, 3.0)]:
        delays = [judge._retry_delay(error, attempt) for _ in range(200)]
        assert all(d is not None and 0.0 <= d <= ceiling for d in delays)
        assert max(d for d in delays if d is not None) > ceiling * 0.7  # full jitter spreads
    assert judge._retry_delay(error, 11) is None
    slow = ModelError("429", kind="rate_limit", retry_after=2.5)
    assert judge._retry_delay(slow, 1) == pytest.approx(2.5)


def test_a_first_rate_limit_retry_backs_off_from_the_base_not_the_quick_pauses() -> None:
    settings = ModelSettings(backoff_base=0.5, quick_retry_delay=0.1)
    judge = JudgeModel(scripted(), settings=settings)
    refused = ModelError("429", kind="rate_limit")
    delays = [judge._retry_delay(refused, 1) for _ in range(200)]
    assert all(d is not None and 0.0 <= d <= 0.5 for d in delays)
    assert max(d for d in delays if d is not None) > 0.1  # not a quick pause
    quick = [judge._retry_delay(server_error(), 2) for _ in range(200)]
    assert all(d is not None and d <= 0.1 for d in quick)


def test_each_attempt_has_a_timeout() -> None:
    provider = scripted("late", latency=5.0)
    judge, recorder = judge_with(
        provider, FAST.model_copy(update={"timeout": 0.1, "max_retries": 1})
    )

    async def main() -> tuple[JudgeCallError, float]:
        with pytest.raises(JudgeCallError) as caught:
            await in_loop_time(judge).generate(user("Grade."))
        return caught.value, now()

    error, waited = run_in_virtual_time(main())
    # two attempts cut at 0.1 s each, a backoff of at most backoff_max between them
    assert 0.2 <= waited <= 0.2 + FAST.backoff_max
    assert error.kind == "timeout"
    assert error.attempts == 2
    assert len(provider.calls) == 2
    assert "no answer within 0.1 s" in (recorder.records[0].error or "")


def test_timeouts_then_an_answer_is_a_success_after_retries() -> None:
    provider = SlowFirst(2, "[RESULT] 4")
    judge, recorder = judge_with(provider, FAST.model_copy(update={"timeout": 0.25}))

    async def main() -> Generation:
        return await in_loop_time(judge).generate(user("Score this."), purpose="accuracy")

    generation = run_in_virtual_time(main())
    assert generation.text == "[RESULT] 4"
    assert generation.attempts == 3 and len(provider.calls) == 3
    [record] = recorder.records
    assert record.error is None and record.attempts == 3
    totals = judge.usage.total()
    assert totals.retries == 2 and totals.errors_by_kind == {"timeout": 2}


# -- parsing and re-asking -----------------------------------------------------------


async def test_unparsable_output_is_reasked_then_reported() -> None:
    provider = scripted("The answer looks fine.", "Still fine, I'd say.", "Good answer.")
    judge, recorder = judge_with(provider)
    parsed = await judge.generate_parsed(user("Grade it."), result_score, purpose="acc")
    assert parsed.value is None
    assert parsed.error is not None and parsed.error.startswith("parse error: ")
    assert "[RESULT]" in parsed.error
    assert len(provider.calls) == 3  # the first ask and reask_limit=2 re-asks
    second = provider.calls[1]
    assert second[-2] == {"role": "assistant", "content": "The answer looks fine."}
    assert second[-1]["role"] == "user"
    assert "Your answer could not be read: no [RESULT] marker" in second[-1]["content"]
    assert second[-1]["content"].endswith("Reply again in the required format.")
    assert len(parsed.generations) == 3 and parsed.call_ids == [1, 2, 3]
    assert all(r.error and r.error.startswith("parse error") for r in recorder.records)
    totals = judge.usage.total()
    assert (totals.reasks, totals.parse_failures, totals.calls) == (2, 1, 3)


async def test_reask_recovers_and_records_the_parsed_value() -> None:
    provider = scripted("Looks correct.", "Looks correct. [RESULT] 4")
    judge, recorder = judge_with(provider)
    parsed = await judge.generate_parsed(user("Grade it."), result_score)
    assert parsed.ok and parsed.value == (4, "Looks correct.")
    assert parsed.text == "Looks correct. [RESULT] 4"
    assert parsed.call_ids == [1, 2]
    first, second = recorder.records
    assert first.parsed is None and first.error is not None
    assert second.parsed == [4, "Looks correct."] and second.error is None
    assert len(second.messages) == 3


async def test_any_parser_exception_triggers_a_reask() -> None:
    provider = scripted("seven", "7")
    judge, _ = judge_with(provider)
    parsed = await judge.generate_parsed(user("A number?"), int)
    assert parsed.value == 7
    assert "invalid literal" in provider.calls[1][-1]["content"]


async def test_a_reply_longer_than_the_read_limit_is_not_read_and_is_an_explicit_error() -> None:
    long = "[RESULT] 3 " * 20
    provider = scripted(long, long, long)
    judge, recorder = judge_with(provider, FAST.model_copy(update={"max_reply_chars": 100}))
    read: list[str] = []

    def parse(text: str) -> str:
        read.append(text)
        return text

    parsed = await judge.generate_parsed(user("Grade it."), parse)
    assert read == []  # never handed to the reader
    assert parsed.value is None
    assert parsed.error == (
        "parse error: the reply is 220 characters long; replies are read up to 100 "
        "characters (judge setting max_reply_chars): give a shorter reply"
    )
    assert len(provider.calls) == 3  # asked again for a shorter reply, twice
    assert provider.calls[1][-2]["content"] == long[:100]  # the re-ask shows no more
    assert all(r.error and "max_reply_chars" in r.error for r in recorder.records)


async def test_a_reply_at_the_read_limit_is_read() -> None:
    provider = scripted("x" * 99 + "7")
    judge, _ = judge_with(provider, FAST.model_copy(update={"max_reply_chars": 100}))
    parsed = await judge.generate_parsed(user("A number?"), lambda text: int(text[-1]))
    assert parsed.value == 7


async def test_reask_limit_zero_asks_once() -> None:
    provider = scripted("not json")
    judge, _ = judge_with(provider, FAST.model_copy(update={"reask_limit": 0}))
    parsed = await judge.generate_parsed(user("JSON please"), json_object)
    assert parsed.value is None and len(provider.calls) == 1
    assert parsed.error == "parse error: no complete JSON object in the judge output"


async def test_provider_failure_during_parsed_call_raises_with_ids() -> None:
    provider = scripted("no score", errors=[None, ModelError("bad", kind="client")])
    judge, recorder = judge_with(provider)
    with pytest.raises(JudgeCallError) as caught:
        await judge.generate_parsed(user("Grade it."), result_score)
    assert caught.value.call_ids == [1, 2]
    assert recorder.records[1].error is not None


def test_reask_message_wording() -> None:
    assert REASK_MESSAGE.format(reason="x") == (
        "Your answer could not be read: x. Reply again in the required format."
    )


# -- cache ---------------------------------------------------------------------------


async def test_cache_hit_costs_no_call_and_no_limiter_slot(tmp_path: Path) -> None:
    cache = ResponseCache(tmp_path / "cache.db")
    provider = scripted(default="[RESULT] 2")
    judge, recorder = judge_with(provider, cache=cache)
    first = await judge.generate(user("Grade."), GenerateConfig(temperature=0))
    granted = judge.limiter_stats().granted
    again = await judge.generate(user("Grade."), GenerateConfig(temperature=0))
    assert not first.cached and again.cached
    assert again.text == first.text and again.usage == first.usage
    assert again.attempts == 0
    assert len(provider.calls) == 1
    assert judge.limiter_stats().granted == granted
    assert recorder.records[1].cached and again.call_id == 2
    stats = cache.stats()
    assert (stats.entries, stats.hits, stats.misses) == (1, 1, 1)
    totals = judge.usage.total()
    assert totals.cached_calls == 1 and totals.attempts == 1
    assert totals.input_tokens == first.usage.input_tokens  # the hit is not paid again
    assert totals.cached_input_tokens == first.usage.input_tokens


async def test_trial_and_config_change_the_cache_key() -> None:
    provider = scripted(default="ok")
    judge, _ = judge_with(provider, cache=ResponseCache(":memory:"))
    await judge.generate(user("Grade."), trial=0)
    await judge.generate(user("Grade."), trial=1)
    await judge.generate(user("Grade."), GenerateConfig(seed=1), trial=1)
    assert len(provider.calls) == 3
    assert (await judge.generate(user("Grade."), trial=1)).cached
    assert len(provider.calls) == 3


async def test_cache_disabled_by_settings() -> None:
    provider = scripted(default="ok")
    cache = ResponseCache(":memory:")
    judge, _ = judge_with(provider, FAST.model_copy(update={"cache": False}), cache=cache)
    await judge.generate(user("Grade."))
    assert not (await judge.generate(user("Grade."))).cached
    assert len(provider.calls) == 2
    assert judge.cache is None and cache.stats().entries == 0


async def test_failures_are_not_cached() -> None:
    provider = scripted("ok", errors=[ModelError("bad", kind="client")])
    judge, _ = judge_with(provider, cache=ResponseCache(":memory:"))
    with pytest.raises(ModelError):
        await judge.generate(user("Grade."))
    assert (await judge.generate(user("Grade."))).text == "ok"


async def test_reasked_parse_rerun_is_served_from_cache(tmp_path: Path) -> None:
    path = tmp_path / "cache.db"
    first_provider = scripted("no score", "[RESULT] 1")
    cache = ResponseCache(path)
    judge, _ = judge_with(first_provider, cache=cache)
    first = await judge.generate_parsed(user("Grade."), result_score)
    await judge.aclose()  # commits the queued cache writes and closes the file
    assert cache._reader is None and cache._writer is None
    rerun_provider = scripted(default="must not be asked")
    rerun, _ = judge_with(rerun_provider, cache=ResponseCache(path))
    second = await rerun.generate_parsed(user("Grade."), result_score)
    assert first.value == second.value == (1, "")
    assert rerun_provider.calls == []
    assert all(g.cached for g in second.generations)


async def test_embeddings_are_cached_and_counted() -> None:
    provider = scripted()
    judge, _ = judge_with(provider, cache=ResponseCache(":memory:"))
    first = await judge.embed(["日本語の文です。", "an English sentence"])
    second = await judge.embed(["日本語の文です。", "an English sentence"])
    assert first.vectors == second.vectors and second.cached and not first.cached
    assert len(provider.embed_calls) == 1
    per_purpose = judge.usage.by_purpose()["embeddings"]
    assert per_purpose.calls == 2 and per_purpose.cached_calls == 1


# embeddings-unrecorded: embedding requests were paid for but recorded nowhere
async def test_embedding_requests_are_recorded_with_tokens_cost_and_errors() -> None:
    prices = PriceTable.from_dict({"scripted": {"input": 2.0, "output": 0.0}})
    settings = FAST.model_copy(update={"max_retries": 0})
    judge, recorder = judge_with(scripted(errors=[None, server_error()]), settings, prices=prices)

    embedded = await judge.embed(["一つ目", "second"], purpose="answer_relevancy")
    with pytest.raises(JudgeCallError) as failed:
        await judge.embed(["third"])

    done, refused = recorder.records
    assert [m["content"] for m in done.messages] == ["一つ目", "second"]
    assert done.purpose == "answer_relevancy" and done.error is None
    assert done.text == "2 vectors of 16 dimensions" and done.attempts == 1
    assert done.usage == embedded.usage and done.usage.input_tokens > 0
    assert refused.purpose == "embeddings" and refused.text is None
    assert refused.error is not None and "HTTP 500" in refused.error
    assert failed.value.call_ids == [2]
    totals = judge.usage.by_purpose()
    assert totals["answer_relevancy"].priced_cost == pytest.approx(done.usage.input_tokens * 2.0e-6)
    assert totals["embeddings"].failed_calls == 1


async def test_a_reply_text_beyond_the_cap_is_an_error_whoever_read_it() -> None:
    # the scripted provider, as LiteLLM's, reads a reply itself: the layer checks its size
    settings = FAST.model_copy(update={"max_reply_bytes": 1000})
    provider = scripted("答" * 334, default="[RESULT] 3")  # 1002 bytes in UTF-8
    judge, recorder = judge_with(provider, settings)

    with pytest.raises(JudgeCallError) as caught:
        await judge.generate(user("Grade."))
    fitting = await judge.generate(user("Grade again."))

    assert caught.value.kind == "too_large" and caught.value.attempts == 1
    assert "reply of 1002 bytes (max_reply_bytes: 1000)" in str(caught.value)
    assert recorder.records[0].text is None and fitting.text == "[RESULT] 3"
    assert len(provider.calls) == 2


# -- usage and cost --------------------------------------------------------------------


async def test_usage_and_cost_per_purpose() -> None:
    prices = PriceTable.from_dict({"scripted": {"input": 1.0, "output": 2.0}})
    judge, _ = judge_with(scripted(default="[RESULT] 3"), prices=prices)
    a = await judge.generate(user("first"), purpose="faithfulness")
    b = await judge.generate(user("second prompt"), purpose="relevance")
    await judge.generate(user("third"), purpose="relevance")
    usage = judge.usage.by_purpose()
    assert usage["faithfulness"].calls == 1 and usage["relevance"].calls == 2
    expected = (a.usage.input_tokens * 1.0 + a.usage.output_tokens * 2.0) / 1e6
    assert usage["faithfulness"].cost == pytest.approx(expected)
    total = judge.usage.total()
    assert total.calls == 3
    assert total.input_tokens >= a.usage.input_tokens + b.usage.input_tokens
    snapshot = judge.stats()
    assert snapshot["usage"]["total"]["calls"] == 3
    assert snapshot["limiter"]["granted"] == 3


async def test_cost_is_none_without_a_price() -> None:
    judge, _ = judge_with(scripted())
    await judge.generate(user("x"))
    assert judge.usage.total().cost is None
    assert judge.usage.total().unpriced_calls == 1


# -- concurrency and event loops ---------------------------------------------------------


async def test_concurrency_is_capped() -> None:
    provider = scripted(default="ok", latency=0.03)
    judge, _ = judge_with(provider, FAST.model_copy(update={"max_concurrency": 3}))
    results = await asyncio.gather(*(judge.generate(user(f"q{i}")) for i in range(12)))
    assert len(results) == 12
    assert judge.limiter_stats().max_in_flight == 3


async def test_model_is_shared_by_a_running_loop_and_a_thread_loop() -> None:
    provider = scripted(default="ok", latency=0.02)
    judge, recorder = judge_with(provider, FAST.model_copy(update={"max_concurrency": 2}))
    thread_results: list[str] = []

    async def thread_batch() -> None:
        replies = await asyncio.gather(*(judge.generate(user(f"t{i}")) for i in range(6)))
        thread_results.extend(r.text for r in replies)

    thread = threading.Thread(target=lambda: asyncio.run(thread_batch()))
    thread.start()
    here = await asyncio.gather(*(judge.generate(user(f"m{i}")) for i in range(6)))
    await asyncio.to_thread(thread.join, 10)
    assert [r.text for r in here] == ["ok"] * 6 and thread_results == ["ok"] * 6
    assert len(recorder.records) == 12
    assert judge.limiter_stats().max_in_flight <= 2


def test_model_survives_successive_event_loops() -> None:
    judge, _ = judge_with(scripted(default="ok"))
    assert asyncio.run(judge.generate(user("a"))).text == "ok"
    assert asyncio.run(judge.generate(user("b"))).text == "ok"


# -- spec strings and LiteLLM ---------------------------------------------------------------


def test_get_model_specs() -> None:
    openai = get_model("openai/gpt-4o-mini", base_url="http://127.0.0.1:9/v1", api_key="k")
    assert isinstance(openai.provider, OpenAIProvider)
    assert openai.spec == "openai/gpt-4o-mini"
    assert openai.provider.base_url == "http://127.0.0.1:9/v1"
    local = get_model("openai/qwen2.5:7b-instruct", base_url="http://localhost:11434/v1")
    assert local.provider.model == "qwen2.5:7b-instruct"
    assert get_model("scripted").spec == "scripted/scripted"
    named = get_model("scripted/judge-a", settings=ModelSettings(rpm=100))
    assert named.spec == "scripted/judge-a" and named.limiter.limits.rpm == 100
    lite = get_model("litellm/anthropic/claude-3-5-haiku-latest")
    assert isinstance(lite.provider, LiteLLMProvider)
    assert lite.spec == "litellm/anthropic/claude-3-5-haiku-latest"


@pytest.mark.parametrize("spec", ["gpt-4o-mini", "openai/", "litellm/claude", "azure/x", ""])
def test_get_model_rejects_unknown_specs(spec: str) -> None:
    with pytest.raises(ValueError, match="openai/<model>"):
        get_model(spec)


async def test_scripted_spec_answers_offline() -> None:
    judge = get_model("scripted")
    assert (await judge.generate(user("anything"))).text == "OK"


@pytest.mark.skipif(importlib.util.find_spec("litellm") is not None, reason="litellm installed")
async def test_litellm_missing_says_how_to_install() -> None:
    judge = get_model("litellm/anthropic/claude-3-5-haiku-latest")
    with pytest.raises(ImportError, match=r"pip install 'ragjudge\[litellm\]'"):
        await judge.generate(user("x"))
    assert "ragjudge[litellm]" in INSTALL_HINT


def test_litellm_errors_map_by_class_and_status() -> None:
    class RateLimitError(Exception):
        status_code = 429

    class Timeout(Exception):
        pass

    class APIConnectionError(Exception):
        pass

    class BadRequestError(Exception):
        status_code = 400

    class InternalServerError(Exception):
        status_code = 503

    assert error_from_litellm(RateLimitError("slow down")).kind == "rate_limit"
    assert error_from_litellm(Timeout("late")).kind == "timeout"
    assert error_from_litellm(APIConnectionError("refused")).kind == "connection"
    assert error_from_litellm(BadRequestError("bad")).kind == "client"
    assert error_from_litellm(InternalServerError("down")).kind == "server"


@pytest.mark.parametrize("library", ["httpx", "httpx2"])
def test_litellm_rate_limit_waits_for_retry_after_of_either_http_library(library: str) -> None:
    http = pytest.importorskip(library)

    class RateLimitError(Exception):
        status_code = 429

        def __init__(self) -> None:
            super().__init__("slow down")
            self.response = http.Response(429, headers={"Retry-After": "7"})

    error = error_from_litellm(RateLimitError())
    assert (error.kind, error.retry_after) == ("rate_limit", 7.0)


async def test_litellm_against_the_local_server(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LITELLM_LOCAL_MODEL_COST_MAP", "True")  # no price-list download
    pytest.importorskip("litellm")
    from ragjudge.testing.server import OpenAITestServer

    async with OpenAITestServer(replies=ReplyScript(default="[RESULT] 5")) as server:
        judge = get_model(
            "litellm/openai/test-model", base_url=server.base_url, api_key="k", settings=FAST
        )
        server.fail_next("500")
        server.fail_next("429", retry_after=0.05)
        generation = await judge.generate(user("Grade."))
        assert generation.text == "[RESULT] 5"
        assert generation.attempts == 3
        assert generation.usage.input_tokens > 0
        assert judge.usage.total().errors_by_kind == {"server": 1, "rate_limit": 1}
        embedded = await judge.embed(["一つ目", "second"])
        assert len(embedded.vectors) == 2 and len(embedded.vectors[0]) == 16


# -- a cached re-run ----------------------------------------------------------------------


async def test_fully_cached_rerun_of_1000_calls_asks_the_provider_nothing(
    tmp_path: Path,
) -> None:
    path = tmp_path / "cache.db"
    prompts = [user(f"Question {i}: 日本語の質問ですか？") for i in range(1000)]
    first, _ = judge_with(scripted(default="[RESULT] 4"), cache=ResponseCache(path))
    await asyncio.gather(*(first.generate(p) for p in prompts))
    await first.aclose()
    rerun_provider = scripted(default="never")
    rerun, recorder = judge_with(rerun_provider, cache=ResponseCache(path))
    results = await asyncio.gather(*(rerun.generate(p) for p in prompts))
    assert all(r.cached and r.text == "[RESULT] 4" for r in results)
    assert rerun_provider.calls == [] and len(recorder.records) == 1000
    assert rerun.limiter_stats().granted == 0
