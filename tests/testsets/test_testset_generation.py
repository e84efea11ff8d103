"""A whole generation with the scripted generator: every check drops what it should
and the counts say so, kept samples cite verbatim chunks, an interrupted generation
resumes without paying twice and ends with the same file as an uninterrupted one, the
clapnq passages give 100 samples (and their dry run the calls expected), and Japanese
documents give Japanese samples."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from ragjudge.config import JudgeConfig
from ragjudge.errors import SpendingLimitReached
from ragjudge.knowledge import Document, KnowledgeBase
from ragjudge.models.scripted import ReplyScript, ScriptedProvider
from ragjudge.testsets._api import agenerate, plan
from ragjudge.text import contains_cjk
from testset_script import GeneratorScript, clapnq_knowledge_base

QUICKSTART_KB = Path(__file__).resolve().parents[2] / "examples" / "quickstart" / "kb"
CLAPNQ = Path(__file__).resolve().parents[3] / "shared" / "data" / "clapnq"

TOPICS = {
    "eiffel.md": "The Eiffel Tower was completed in 1889 for the World's Fair in Paris. It "
    "was designed by the engineering company of Gustave Eiffel and is 330 metres tall today. "
    "It was the tallest structure in the world until 1930.",
    "louvre.md": "The Louvre opened as a public museum in 1793 during the French Revolution. "
    "It holds the Mona Lisa and about 35,000 works of art in its galleries. Its glass "
    "pyramid entrance was designed by I. M. Pei and opened in 1989.",
    "seine.md": "The Seine is a river of 777 kilometres that flows through Paris into the "
    "English Channel at Le Havre. Its banks in Paris are a World Heritage Site, and "
    "thirty-seven bridges cross it within the city.",
    "metro.md": "The Paris Metro opened its first line in 1900 for the Universal Exhibition. "
    "It now has sixteen lines and more than three hundred stations across the city, and "
    "carries over four million passengers on a working day.",
}


def small_kb() -> KnowledgeBase:
    return KnowledgeBase.from_documents(
        [Document(doc_uri=uri, content=text) for uri, text in TOPICS.items()]
    )


def generated(kb: Any, n: int, script: GeneratorScript, store: Path, **options: Any) -> Any:
    provider = ScriptedProvider(script.script(), model="gen")
    return asyncio.run(agenerate(kb, n, provider=provider, store=store, cache=False, **options))


def without_ids(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The rows without their generation id (each store names its generations)."""
    found = json.loads(json.dumps(rows))
    for row in found:
        del row["metadata"]["provenance"]["generation_id"]
    return found


def test_each_check_drops_what_it_should_and_is_counted(tmp_path: Path) -> None:
    script = GeneratorScript(
        closed_book=["Louvre"],  # the model knows it without the chunk
        unanswered=["seine.md"],  # the judge finds the chunk does not answer it
        fail=["metro.md"],  # the generator's reply never holds a sample
    )
    found = generated(small_kb(), 2, script, tmp_path / "s.db", mix={"single": 1.0}, attempts=2)
    # four chunks, four candidates: one passes, three are dropped, one check each
    assert dict(found.assembly.dropped) == {"closed_book": 1, "answerable": 1, "generated": 1}
    assert found.kept_by_kind() == {"single": 1}
    assert found.stopped is not None and "single 1 short" in found.stopped
    assert [row["expected_retrieved_context"][0]["doc_uri"] for row in found.rows] == ["eiffel.md"]


def test_kept_samples_cite_verbatim_chunks_and_their_provenance(tmp_path: Path) -> None:
    kb = KnowledgeBase.load(QUICKSTART_KB)
    found = generated(kb, 20, GeneratorScript(), tmp_path / "s.db", seed=2)
    chunks = {c.chunk_id: c for c in kb.chunks}
    assert len(found.rows) == 20
    for row in found.rows:
        provenance = row["metadata"]["provenance"]
        assert provenance["generator"] == "scripted/gen" and provenance["seed"] == 2
        for cited in row.get("expected_retrieved_context", []):
            chunk = chunks[cited["chunk_id"]]
            assert (cited["doc_uri"], cited["content"]) == (chunk.doc_uri, chunk.content)
        if row["metadata"]["kind"] == "unanswerable":
            assert "expected_retrieved_context" not in row
            assert "does not contain" in row["expected_response"]


def test_an_interrupted_generation_resumes_without_paying_twice(tmp_path: Path) -> None:
    kb = KnowledgeBase.load(QUICKSTART_KB)
    whole_script = GeneratorScript()
    whole = generated(kb, 12, whole_script, tmp_path / "whole.db", seed=5, concurrency=2)
    paid_whole = sum(whole_script.calls.values())

    script = GeneratorScript()
    provider = ScriptedProvider(script.script(), model="gen")
    store, cache = tmp_path / "cut.db", tmp_path / "cache.db"

    async def interrupted() -> None:
        task = asyncio.ensure_future(
            agenerate(kb, 12, provider=provider, store=store, cache=cache, seed=5, concurrency=2)
        )
        while sum(script.calls.values()) < paid_whole // 2:
            await asyncio.sleep(0)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(interrupted())
    paid_first = sum(script.calls.values())
    assert 0 < paid_first < paid_whole
    resumed = asyncio.run(
        agenerate(kb, 12, provider=provider, store=store, cache=cache, seed=5, concurrency=2)
    )
    assert sum(script.calls.values()) == paid_whole  # each reply paid for once
    assert resumed.resumed > 0
    assert without_ids(resumed.rows) == without_ids(whole.rows)  # as if never interrupted


def test_the_same_seed_gives_the_same_set_and_another_seed_another(tmp_path: Path) -> None:
    kb = KnowledgeBase.load(QUICKSTART_KB)
    first = generated(kb, 10, GeneratorScript(), tmp_path / "a.db", seed=1)
    again = generated(kb, 10, GeneratorScript(), tmp_path / "b.db", seed=1)
    other = generated(kb, 10, GeneratorScript(), tmp_path / "c.db", seed=2)
    assert (
        first.rows[0]["metadata"]["provenance"]["generation_id"]
        != (again.rows[0]["metadata"]["provenance"]["generation_id"])
    )
    assert without_ids(first.rows) == without_ids(again.rows)
    assert without_ids(first.rows) != without_ids(other.rows)


def test_japanese_documents_give_japanese_samples(tmp_path: Path) -> None:
    japanese = tmp_path / "kb"
    japanese.mkdir()
    for path in QUICKSTART_KB.glob("*_ja.md"):
        (japanese / path.name).write_text(path.read_text(encoding="utf-8"), encoding="utf-8")
    prompts: list[str] = []
    script = GeneratorScript()

    def recording(messages: list[dict[str, Any]]) -> str | None:
        prompts.append(str(messages[-1]["content"]))
        return script.reply(messages)

    provider = ScriptedProvider(ReplyScript(function=recording), model="gen")
    found = asyncio.run(
        agenerate(japanese, 8, provider=provider, store=tmp_path / "s.db", cache=False)
    )
    assert len(found.rows) == 8
    for row in found.rows:
        assert row["metadata"]["language"] == "ja"
        request = row["request"]
        question = request if isinstance(request, str) else request["messages"][-1]["content"]
        assert contains_cjk(question) and contains_cjk(row["expected_response"])
    written = [p for p in prompts if p.startswith("You write one test sample")]
    assert written and all("in Japanese" in p for p in written)


# the clapnq passages --------------------------------------------------------------


def clapnq_kb() -> KnowledgeBase:
    path = CLAPNQ / "clapnq_dev_answerable.jsonl"
    if not path.exists():
        pytest.skip(f"the clapnq data is not at {path}")
    return clapnq_knowledge_base(path)


def test_clapnq_dry_run_of_100_samples_counts_calls_tokens_and_cost() -> None:
    kb = clapnq_kb()
    judge = JudgeConfig(model="openai/test-model", prices={"test-model": (0.15, 0.6)})
    found = asyncio.run(plan(kb, 100, judge=judge))
    wanted = found.wanted
    assert sum(wanted.values()) == 100
    expected_calls = 3 * (100 - wanted["unanswerable"]) + 2 * wanted["unanswerable"]
    plan_dict = found.to_dict()
    assert plan_dict["calls"]["low"] == expected_calls
    assert plan_dict["calls"]["high"] == 3 * expected_calls  # three attempts per sample
    assert plan_dict["input_tokens"]["low"] > 0
    assert plan_dict["cost"]["low"] is not None and plan_dict["cost"]["low"] > 0


def test_clapnq_generation_of_100_samples(tmp_path: Path) -> None:
    kb = clapnq_kb()
    chunks = {c.chunk_id: c.content for c in kb.chunks}
    found = generated(kb, 100, GeneratorScript(), tmp_path / "s.db")
    assert len(found.rows) == 100 and found.complete
    for row in found.rows:
        for cited in row.get("expected_retrieved_context", []):
            assert chunks[cited["chunk_id"]] == cited["content"]


def test_clapnq_paraphrased_duplicates_and_closed_book_questions_are_dropped(
    tmp_path: Path,
) -> None:
    kb = clapnq_kb()
    first = generated(kb, 6, GeneratorScript(), tmp_path / "probe.db", mix={"single": 1.0})
    uris = [row["expected_retrieved_context"][0]["doc_uri"] for row in first.rows]
    script = GeneratorScript(
        paraphrase={
            uris[0]: ("When was the society founded?", "The society was founded in 1902."),
            uris[1]: ("In what year was the society established?", "It was established in 1902."),
        },
        closed_book=[first.rows[2]["request"][:40]],
    )
    found = generated(kb, 6, script, tmp_path / "s.db", mix={"single": 1.0})
    assert dict(found.assembly.dropped) == {"duplicate": 1, "closed_book": 1}
    [(duplicate, kept)] = found.assembly.duplicates.items()
    assert (duplicate, kept) == ("single-1", "single-0")
    assert len(found.rows) == 6


def test_a_cost_ceiling_refuses_or_stops_the_generation(tmp_path: Path) -> None:
    kb = KnowledgeBase.load(QUICKSTART_KB)
    judge = JudgeConfig(model="scripted/gen", prices={"gen": (1000.0, 0.0)})

    def run(store: str, **options: Any) -> Any:
        provider = ScriptedProvider(GeneratorScript().script(), model="gen")
        return asyncio.run(
            agenerate(
                kb,
                20,
                judge=judge,
                provider=provider,
                store=tmp_path / store,
                cache=False,
                **options,
            )
        )

    full = run("full.db")
    assert full.complete and full.cost is not None
    with pytest.raises(SpendingLimitReached, match="would cost at least"):
        run("refused.db", max_cost=full.cost * 0.5)
    ceiling = full.cost * 0.95
    capped = run("capped.db", max_cost=ceiling)
    assert capped.stopped is not None and "cost ceiling" in capped.stopped
    assert 0 < len(capped.rows) < 20
    assert capped.cost is not None and capped.cost <= ceiling * 1.01
