import asyncio
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from ragjudge.config import EvalConfig
from ragjudge.run._preparation import build_target
from ragjudge.schema import Sample
from ragjudge.targets._targets import (
    DEFAULT_MAX_REPLY_BYTES,
    CallableTarget,
    DataTarget,
    ReplyLimits,
    TargetError,
    import_callable,
)

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
    assert out.error is not None and "expected a string, a chat message, a dict" in out.error


async def test_timeout_is_an_error() -> None:
    async def slow(query: str) -> str:
        await asyncio.sleep(5)
        return "late"

    out = await CallableTarget(slow, timeout=0.05)(SAMPLE)
    assert out.error is not None and "TimeoutError" in out.error


async def test_unfillable_parameters_are_each_samples_error_naming_them() -> None:
    def answer(query: str, user_id: str) -> str:
        return query + user_id

    out = await CallableTarget(answer)(SAMPLE)
    assert out.error is not None and "['user_id']" in out.error
    filled = await CallableTarget(answer)(
        Sample(request_id="2", request={"query": "q", "user_id": "-u7"})
    )
    assert filled.response == "q-u7"


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
    assert chunk.model_extra == {"page": 2, "doc_uri_derived": True}
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


# caps on a reply --------------------------------------------------------------------


async def test_a_reply_over_the_size_cap_is_an_error_and_not_kept() -> None:
    huge = "x" * (DEFAULT_MAX_REPLY_BYTES + 1)
    out = await CallableTarget(lambda query: huge)(SAMPLE)
    assert out.response is None
    assert out.error == f"reply larger than {DEFAULT_MAX_REPLY_BYTES} bytes (max_reply_bytes)"
    small = ReplyLimits(max_reply_bytes=1000)
    japanese = await CallableTarget(lambda query: "答" * 400, limits=small)(SAMPLE)
    assert japanese.error is not None and "larger than 1000 bytes" in japanese.error  # UTF-8
    padded_trace = await CallableTarget(
        lambda query: {"response": "ok", "trace": {"log": "y" * 2000}}, limits=small
    )(SAMPLE)
    assert padded_trace.error is not None and "max_reply_bytes" in padded_trace.error
    fits = await CallableTarget(lambda query: "x" * 900, limits=small)(SAMPLE)
    assert fits.error is None and fits.response == "x" * 900


async def test_too_many_or_too_long_contexts_are_errors() -> None:
    many = [{"doc_uri": f"d{i}", "content": "c"} for i in range(101)]
    out = await CallableTarget(lambda query: {"response": "r", "retrieved_context": many})(SAMPLE)
    assert out.error is not None and "101 retrieved contexts, more than 100" in out.error
    limits = ReplyLimits(max_contexts=2, max_context_bytes=10)
    long_one = ["short", "a context of more than ten bytes"]
    out = await CallableTarget(
        lambda query: {"response": "r", "retrieved_context": long_one}, limits=limits
    )(SAMPLE)
    assert out.error is not None
    assert "'retrieved_context[1]' is larger than 10 bytes (max_context_bytes)" in out.error
    with pytest.raises(TargetError, match="max_contexts"):
        ReplyLimits(max_contexts=0)
    assert ReplyLimits.of(max_contexts=3) == ReplyLimits(max_contexts=3)


# timeouts and threads of sync functions ------------------------------------------------


async def test_a_sync_timeout_counts_the_call_not_the_wait_for_a_slot() -> None:
    release = threading.Event()

    def answer(query: str) -> str:
        if query == "hang":
            release.wait(60)  # past its timeout: abandoned, and its slot given on
            return "late"
        return "done"

    # One slot: "quick" waits for it until "hang" is abandoned at its timeout — longer
    # than the timeout itself — and is still answered, its clock starting with its call.
    target = CallableTarget(answer, timeout=1.0, concurrency=1)
    try:
        hung, quick = await asyncio.gather(
            target(Sample(request_id="h", request="hang")),
            target(Sample(request_id="q", request="quick")),
        )
    finally:
        release.set()
    assert hung.error == "TimeoutError: no answer within 1 s; the call was abandoned"
    assert (quick.error, quick.response) == (None, "done")


async def test_sync_calls_run_as_many_at_once_as_the_concurrency() -> None:
    # More than the default executor's 32 workers (min(32, cpus + 4)): every wave of
    # 40 calls meets at the barrier, which breaks if fewer run at once.
    barrier = threading.Barrier(40, timeout=10)
    lock = threading.Lock()
    running, most = 0, 0

    def answer(query: str) -> str:
        nonlocal running, most
        with lock:
            running += 1
            most = max(most, running)
        barrier.wait()
        with lock:
            running -= 1
        return "ok"

    target = CallableTarget(answer, timeout=20, concurrency=40)
    outputs = await asyncio.gather(*(target(SAMPLE) for _ in range(80)))
    assert [o.error for o in outputs] == [None] * 80
    assert most == 40


async def test_hung_sync_calls_are_abandoned_and_do_not_starve_the_others() -> None:
    release = threading.Event()

    def answer(query: str) -> str:
        if query.startswith("hang"):
            release.wait(60)
            return "late"
        time.sleep(0.02)
        return "ok"

    # hung calls wait for the release, so only the timeout ends them; 2 s is ample for
    # the others however busy the machine is
    target = CallableTarget(answer, timeout=2.0, concurrency=8)
    queries = [f"hang {i}" if i % 5 == 0 else f"q {i}" for i in range(30)]
    try:
        outputs = await asyncio.gather(*(target(Sample(request_id=q, request=q)) for q in queries))
    finally:
        release.set()
    errors = [o.error for o in outputs if o.error is not None]
    assert len(errors) == 6
    assert all(e == "TimeoutError: no answer within 2 s; the call was abandoned" for e in errors)
    assert [o.response for o in outputs if o.error is None] == ["ok"] * 24


def test_a_hung_sync_target_does_not_keep_the_process_alive(tmp_path: Path) -> None:
    script = textwrap.dedent(
        f"""
        import threading
        import ragjudge
        from ragjudge.targets._targets import CallableTarget

        def hang(query):
            threading.Event().wait()  # never returns

        rows = [{{"request": "q", "expected_response": "a"}}] * 2
        result = ragjudge.evaluate(
            rows,
            target=CallableTarget(hang, timeout=0.2),
            metrics=["exact_match"],
            store={str(tmp_path / "runs.db")!r},
            progress=False,
            on_failure="ignore",
        )
        print(result.status, int(result.to_pandas()["target_error"].notna().sum()))
        """
    )
    # a process the hung threads kept alive would never exit: the timeout is a safety net
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120, check=True
    )
    assert done.stdout.split() == ["failed", "2"]  # ran to its end; no row has a value


def test_a_configured_python_target_gets_the_runs_concurrency_and_its_caps(
    tmp_path: Path,
) -> None:
    (tmp_path / "capped_rag_mod.py").write_text("def answer(query):\n    return query\n")
    target_spec = {"path": "capped_rag_mod:answer", "timeout": 2, "max_contexts": 5}
    config = EvalConfig(metrics=["rouge_l"], target=target_spec, concurrency=3, base_dir=tmp_path)
    target = build_target(config)
    assert isinstance(target, CallableTarget)
    assert (target.concurrency, target.timeout) == (3, 2)
    assert target.limits == ReplyLimits(max_contexts=5)
    given = build_target(config, lambda query: query)
    assert isinstance(given, CallableTarget) and given.concurrency == 3


async def test_a_timeout_the_function_raises_itself_is_its_own_error() -> None:
    def sync_answer(query: str) -> str:
        raise TimeoutError("the index server did not answer")

    async def async_answer(query: str) -> str:
        raise TimeoutError("the index server did not answer")

    for fn in (sync_answer, async_answer):
        out = await CallableTarget(fn, timeout=5)(SAMPLE)
        assert out.error == "TimeoutError: the index server did not answer"


def _shout(query: str) -> str:
    return query.upper()


async def test_a_function_target_pickles_and_answers_after_unpickling() -> None:
    import pickle

    target = CallableTarget(_shout, name="shout", timeout=5.0, concurrency=3)
    assert (await target(SAMPLE)).response == "AND UNION ALL?"  # its calls have run once
    copied = pickle.loads(pickle.dumps(target))
    assert (copied.name, copied.timeout, copied.concurrency) == ("shout", 5.0, 3)
    assert copied._threads is not target._threads
    assert (await copied(SAMPLE)).response == "AND UNION ALL?"
