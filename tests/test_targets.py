import asyncio
import textwrap
from pathlib import Path
from typing import Any

import pytest

from ragjudge.schema import Sample
from ragjudge.targets import CallableTarget, DataTarget, TargetError, import_callable

SAMPLE = Sample(
    request_id="1",
    request={
        "query": "And UNION ALL?",
        "history": [
            {"role": "user", "content": "What does UNION do?"},
            {"role": "assistant", "content": "It merges rows and removes duplicates."},
        ],
    },
    response="stored answer",
)


async def test_async_callable_gets_query_and_history() -> None:
    seen: dict[str, Any] = {}

    async def answer(query: str, history: list[dict[str, str]]) -> dict[str, Any]:
        seen.update(query=query, history=history)
        return {
            "response": "keeps duplicates",
            "retrieved_context": [{"doc_uri": "union.md", "content": "..."}, "plain text chunk"],
            "usage": {"prompt_tokens": 12, "completion_tokens": 3},
        }

    out = await CallableTarget(answer)(SAMPLE)
    assert seen["query"] == "And UNION ALL?"
    assert [m["role"] for m in seen["history"]] == ["user", "assistant"]
    assert out.response == "keeps duplicates"
    assert out.retrieved_context is not None
    assert [c.doc_uri for c in out.retrieved_context] == ["union.md", "retrieved_context[1]"]
    assert out.usage.input_tokens == 12 and out.usage.output_tokens == 3
    assert out.latency is not None and out.latency >= 0
    assert out.error is None


async def test_sync_callable_with_single_parameter_receives_query() -> None:
    out = await CallableTarget(lambda text: text.upper())(SAMPLE)
    assert out.response == "AND UNION ALL?"


async def test_request_and_messages_arguments() -> None:
    def answer(request: Any, messages: list[dict[str, str]]) -> str:
        return f"{len(messages)}:{request['query']}"

    out = await CallableTarget(answer)(SAMPLE)
    assert out.response == "3:And UNION ALL?"


async def test_failing_target_becomes_output_error() -> None:
    def broken(query: str) -> str:
        raise RuntimeError("index not built")

    out = await CallableTarget(broken)(SAMPLE)
    assert out.response is None
    assert out.error == "RuntimeError: index not built"


async def test_bad_return_type_is_an_error() -> None:
    out = await CallableTarget(lambda query: 42)(SAMPLE)
    assert out.error is not None and "expected str or dict" in out.error


async def test_timeout_is_an_error() -> None:
    async def slow(query: str) -> str:
        await asyncio.sleep(5)
        return "late"

    out = await CallableTarget(slow, timeout=0.05)(SAMPLE)
    assert out.error is not None and "TimeoutError" in out.error


def test_unfillable_parameters_are_rejected_up_front() -> None:
    def answer(query: str, user_id: str) -> str:
        return query

    with pytest.raises(TargetError, match="user_id"):
        CallableTarget(answer)


async def test_data_target_uses_stored_response() -> None:
    out = await DataTarget()(SAMPLE)
    assert out.response == "stored answer"
    missing = await DataTarget()(Sample(request_id="2", request="q"))
    assert missing.error is not None


def test_import_callable(tmp_path: Path) -> None:
    (tmp_path / "my_rag_mod.py").write_text(
        textwrap.dedent(
            """
            def answer(query):
                return "hi " + query
            """
        )
    )
    fn = import_callable("my_rag_mod:answer", search_dir=tmp_path)
    assert fn("x") == "hi x"
    with pytest.raises(TargetError, match=r"package\.module:function"):
        import_callable("no_colon")
    with pytest.raises(TargetError, match="cannot import"):
        import_callable("surely_missing_module_xyz:f")
    with pytest.raises(TargetError, match="no attribute"):
        import_callable("my_rag_mod:missing", search_dir=tmp_path)


async def test_returned_contexts_and_usage_are_read_leniently() -> None:
    def answer(query: str) -> dict[str, Any]:
        return {
            "response": "r",
            "retrieved_context": [{"text": "no uri here", "score": 3, "page": 2}],
            "usage": {"input_tokens": 5, "completion_tokens": 1, "note": "n/a"},
        }

    out = await CallableTarget(answer)(SAMPLE)
    assert out.error is None and out.retrieved_context is not None
    chunk = out.retrieved_context[0]
    assert (chunk.doc_uri, chunk.content, chunk.score) == (
        "retrieved_context[0]",
        "no uri here",
        3.0,
    )
    assert chunk.model_extra == {"page": 2}
    assert (out.usage.input_tokens, out.usage.output_tokens) == (5, 1)


async def test_malformed_contexts_are_an_error_naming_the_item() -> None:
    out = await CallableTarget(lambda query: {"response": "r", "retrieved_context": ["a", 7]})(
        SAMPLE
    )
    assert out.error is not None and "'retrieved_context[1]' is int" in out.error
    not_a_list = await CallableTarget(lambda query: {"response": "r", "retrieved_context": "a"})(
        SAMPLE
    )
    assert not_a_list.error is not None and "not a list" in not_a_list.error
