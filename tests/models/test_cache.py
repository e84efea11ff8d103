"""The SQLite response cache: keys, round trips, counters, clearing, threads, processes."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from ragjudge._util.known_secrets import register_secrets
from ragjudge.models import _cache as cache_module
from ragjudge.models._cache import (
    ResponseCache,
    cache_key,
    canonical_json,
    default_cache_path,
    embedding_key,
    provider_endpoint,
)

MESSAGES = [{"role": "system", "content": "Judge."}, {"role": "user", "content": "回答を採点して"}]


def test_key_ignores_dict_order_but_not_content() -> None:
    base = cache_key("openai", "gpt-4o-mini", MESSAGES, {"temperature": 0, "seed": 1}, 0)
    reordered = [{"content": m["content"], "role": m["role"]} for m in MESSAGES]
    assert base == cache_key("openai", "gpt-4o-mini", reordered, {"seed": 1, "temperature": 0}, 0)
    variants = [
        cache_key("openai", "gpt-4o-mini", MESSAGES, {"temperature": 0, "seed": 1}, 1),
        cache_key("openai", "gpt-4o", MESSAGES, {"temperature": 0, "seed": 1}, 0),
        cache_key("litellm", "gpt-4o-mini", MESSAGES, {"temperature": 0, "seed": 1}, 0),
        cache_key("openai", "gpt-4o-mini", MESSAGES, {"temperature": 0.5, "seed": 1}, 0),
        cache_key("openai", "gpt-4o-mini", MESSAGES[1:], {"temperature": 0, "seed": 1}, 0),
    ]
    assert len({base, *variants}) == 6
    assert len(base) == 64
    assert embedding_key("p", "m", ["a", "b"]) != embedding_key("p", "m", ["b", "a"])


def test_endpoint_changes_chat_and_embedding_keys() -> None:
    config = {"temperature": 0}
    here = cache_key("openai", "m", MESSAGES, config, 0, endpoint="http://127.0.0.1:8000/v1")
    there = cache_key("openai", "m", MESSAGES, config, 0, endpoint="http://127.0.0.1:9000/v1")
    unknown = cache_key("openai", "m", MESSAGES, config, 0)
    assert len({here, there, unknown}) == 3
    embedded = {
        embedding_key("openai", "e", ["a"], endpoint="http://a/v1"),
        embedding_key("openai", "e", ["a"], endpoint="http://b/v1"),
        embedding_key("openai", "e", ["a"]),
    }
    assert len(embedded) == 3


def test_provider_endpoint_is_read_from_the_provider() -> None:
    class Served:
        endpoint = "http://127.0.0.1:8000/v1"

    class Local:
        pass

    assert provider_endpoint(Served()) == "http://127.0.0.1:8000/v1"
    assert provider_endpoint(Local()) is None


def test_canonical_json_is_stable() -> None:
    assert canonical_json({"b": 1, "a": [1, "é"]}) == '{"a":[1,"é"],"b":1}'


def test_round_trip_and_counters(tmp_path: Path) -> None:
    path = tmp_path / "sub" / "cache.db"
    with ResponseCache(path) as cache:
        assert cache.get("k1") is None
        cache.put("k1", {"text": "評価: 4", "usage": {"input_tokens": 3}})
        assert cache.get("k1") == {"text": "評価: 4", "usage": {"input_tokens": 3}}
        cache.put("k1", {"text": "replaced"})
        assert cache.get("k1") == {"text": "replaced"}
        stats = cache.stats()
    assert (stats.entries, stats.hits, stats.misses) == (1, 2, 1)
    assert stats.size > 0 and stats.path == str(path)
    reopened = ResponseCache(path)
    assert reopened.get("k1") == {"text": "replaced"}
    again = reopened.stats()
    assert (again.entries, again.hits, again.misses) == (1, 3, 1)


def test_a_known_secret_in_a_reply_is_masked_before_it_is_kept(tmp_path: Path) -> None:
    # a judge that quotes an answer echoing a key: the cache file must not hold it
    register_secrets(["pw-SECRET-c0ffee11"])
    path = tmp_path / "cache.db"
    with ResponseCache(path) as cache:
        cache.put("k1", {"text": "the answer quotes pw-SECRET-c0ffee11", "usage": {}})
        cache.flush()
        assert cache.get("k1") == {"text": "the answer quotes ***", "usage": {}}
    stored = b"".join(p.read_bytes() for p in tmp_path.iterdir())
    assert b"pw-SECRET-c0ffee11" not in stored


def test_clear_removes_everything(tmp_path: Path) -> None:
    cache = ResponseCache(tmp_path / "cache.db")
    for i in range(5):
        cache.put(f"k{i}", {"i": i})
    cache.get("k0")
    assert cache.clear() == 5
    stats = cache.stats()
    assert (stats.entries, stats.hits, stats.misses) == (0, 0, 0)
    assert cache.get("k0") is None


def test_memory_cache() -> None:
    cache = ResponseCache(":memory:")
    cache.put("a", {"x": 1})
    cache.close()  # commits, but keeps the one connection that holds the data
    assert cache.get("a") == {"x": 1}
    stats = cache.stats()
    assert stats.entries == 1 and stats.size == 0


def test_close_then_reuse(tmp_path: Path) -> None:
    cache = ResponseCache(tmp_path / "c.db")
    cache.put("a", {"x": 1})
    cache.close()
    assert cache.get("a") == {"x": 1}
    cache.put("b", {"x": 2})
    cache.close()
    assert ResponseCache(tmp_path / "c.db").stats().entries == 2


def test_close_wakes_the_writer_and_leaves_no_thread_behind(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A writer waiting for more work is woken by the flush, not left to its idle wait
    # (made longer than any test here: without the wake-up, close would hang).
    monkeypatch.setattr(cache_module, "_WRITER_IDLE_SECONDS", 3600.0)
    cache = ResponseCache(tmp_path / "c.db")
    cache.get("warm-up")  # starts the writer thread: it stores the miss, then waits
    cache.flush()
    cache.put("a", {"x": 1})
    writer = cache._writer_thread
    closing = threading.Thread(target=cache.close, daemon=True)
    closing.start()
    closing.join(timeout=30)
    assert not closing.is_alive()
    assert writer is not None
    assert not writer.is_alive()
    assert ResponseCache(tmp_path / "c.db").stats().entries == 1


def test_a_check_before_writing_opens_the_writers_connection_in_the_checking_thread(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    opened_in: list[str] = []
    real_open = ResponseCache._open

    def noted(cache: ResponseCache) -> sqlite3.Connection:
        opened_in.append(threading.current_thread().name)
        return real_open(cache)

    monkeypatch.setattr(ResponseCache, "_open", noted)
    cache = ResponseCache(tmp_path / "c.db")
    cache.check(write=True)
    cache.put("a", {"x": 1})
    cache.flush()
    cache.close()
    assert opened_in == [threading.current_thread().name] * 2  # the reader and the writer


def test_threads_write_and_read_concurrently(tmp_path: Path) -> None:
    cache = ResponseCache(tmp_path / "cache.db")
    errors: list[BaseException] = []

    def worker(n: int) -> None:
        try:
            for i in range(200):
                cache.put(f"{n}-{i}", {"n": n, "i": i})
                assert cache.get(f"{n}-{i}") == {"n": n, "i": i}
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=worker, args=(n,)) for n in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert cache.stats().entries == 800


def test_another_process_writes_the_same_file(tmp_path: Path) -> None:
    path = tmp_path / "shared.db"
    script = (
        "import sys\n"
        "from ragjudge.models._cache import ResponseCache\n"
        "cache = ResponseCache(sys.argv[1])\n"
        "for i in range(300):\n"
        "    cache.put(f'child-{i}', {'i': i})\n"
        # no close(): queued writes must still be committed before the process exits
    )
    child = subprocess.Popen([sys.executable, "-c", script, str(path)])
    cache = ResponseCache(path)
    for i in range(300):
        cache.put(f"parent-{i}", {"i": i})
    assert child.wait(timeout=30) == 0
    assert cache.stats().entries == 600
    assert cache.get("child-299") == {"i": 299}


def test_default_path_from_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("RAGJUDGE_CACHE", raising=False)
    assert default_cache_path() == Path(".ragjudge") / "cache.db"
    monkeypatch.setenv("RAGJUDGE_CACHE", str(tmp_path / "x.db"))
    assert default_cache_path() == tmp_path / "x.db"
    assert ResponseCache().path == str(tmp_path / "x.db")
