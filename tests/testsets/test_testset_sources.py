from __future__ import annotations

from pathlib import Path

import pytest

from ragjudge.knowledge import Chunk, Document, KnowledgeBase
from ragjudge.testsets import KINDS, SourcePlan
from ragjudge.testsets._source_chunks import new_text_length, text_language, usable_positions
from ragjudge.testsets._sources import Sources

QUICKSTART_KB = Path(__file__).resolve().parents[2] / "examples" / "quickstart" / "kb"


def _kb(documents: dict[str, list[str]]) -> KnowledgeBase:
    """One chunk per sentence (each sentence is longer than the overlap and fits alone)."""
    kb = KnowledgeBase.from_documents(
        [
            Document(doc_uri=uri, content=" ".join(sentences))
            for uri, sentences in documents.items()
        ],
        chunk_size=90,
        chunk_overlap=10,
    )
    assert [chunk.content for chunk in kb.chunks] == [s for ss in documents.values() for s in ss]
    return kb


def _chunk(kb: KnowledgeBase, chunk_id: str) -> Chunk:
    return next(chunk for chunk in kb.chunks if chunk.chunk_id == chunk_id)


def _ids(plan: SourcePlan | None) -> list[str]:
    assert plan is not None
    return [chunk.chunk_id for chunk in plan.chunks]


@pytest.fixture(scope="module")
def quickstart() -> KnowledgeBase:
    return KnowledgeBase.load(QUICKSTART_KB)


CONSENSUS = {
    "raft.md": [
        "Raft elects a leader with randomized election timeouts and heartbeats.",
        "Snapshots compact the replicated log so slow followers catch up.",
        "Raft leader election uses terms, votes and randomized election timeouts.",
    ],
    "paxos.md": [
        "Multi-Paxos keeps a stable leader chosen by an election with timeouts.",
        "Acceptors promise to ignore proposals with lower ballot numbers.",
    ],
    "garden.md": [
        "Tomatoes need full sun, rich soil and regular deep watering.",
        "Prune the side shoots of tomatoes so the plant fruits well.",
    ],
}


def test_same_settings_give_the_same_plans_and_another_seed_other_ones(
    quickstart: KnowledgeBase,
) -> None:
    first = Sources(quickstart, seed=7, personas=["a student", "a DBA"], styles=["plain", "terse"])
    again = Sources(quickstart, seed=7, personas=["a student", "a DBA"], styles=["plain", "terse"])
    for kind in KINDS:
        plans = [first.plan(kind, i) for i in range(12)]
        assert plans == [again.plan(kind, i) for i in reversed(range(12))][::-1]
        assert plans == [first.plan(kind, i) for i in range(12)]
    other = Sources(quickstart, seed=8)
    assert [_ids(first.plan("single", i)) for i in range(10)] != [
        _ids(other.plan("single", i)) for i in range(10)
    ]


def test_kinds_start_from_different_chunks(quickstart: KnowledgeBase) -> None:
    sources = Sources(quickstart, seed=0)
    starts = {tuple(_ids(sources.plan(kind, i))[0] for i in range(5)) for kind in KINDS}
    assert len(starts) == len(KINDS)


def test_first_candidates_cover_distinct_chunks_then_wrap(quickstart: KnowledgeBase) -> None:
    sources = Sources(quickstart, seed=3)
    count = sources.capacity("single")
    assert count == len(sources.usable) > 50
    firsts = [_ids(sources.plan("single", i))[0] for i in range(count)]
    assert len(set(firsts)) == count
    assert _ids(sources.plan("single", count)) == _ids(sources.plan("single", 0))


def test_a_candidate_is_the_same_whatever_was_planned_before(quickstart: KnowledgeBase) -> None:
    fresh = Sources(quickstart, seed=5, personas=["p1", "p2", "p3"], styles=["plain", "verbose"])
    used = Sources(quickstart, seed=5, personas=["p1", "p2", "p3"], styles=["plain", "verbose"])
    for i in range(30):
        used.plan("multi", i)
    assert fresh.plan("multi", 17) == used.plan("multi", 17)


def test_personas_and_styles_are_drawn_from_the_lists(quickstart: KnowledgeBase) -> None:
    sources = Sources(quickstart, personas=["a student", "a DBA"], styles=["terse", "misspelt"])
    plans = [sources.plan("single", i) for i in range(40)]
    assert {plan.persona for plan in plans if plan} == {"a student", "a DBA"}
    assert {plan.style for plan in plans if plan} == {"terse", "misspelt"}
    plain = Sources(quickstart).plan("single", 0)
    assert plain is not None and plain.persona is None and plain.style == "plain"


def test_multi_prefers_a_related_chunk_of_another_document() -> None:
    kb = _kb(CONSENSUS)
    sources = Sources(kb, min_chars=20)
    partners = [c.chunk_id for c in sources.partners("multi", _chunk(kb, "raft.md#0"))]
    # raft.md#2 shares the most words, but a related chunk of another document comes first
    assert partners[:2] == ["paxos.md#0", "raft.md#2"]
    assert "raft.md#1" not in partners and "raft.md#0" not in partners
    assert all(not c.startswith("garden.md") for c in partners)


def test_multi_falls_back_to_a_non_adjacent_chunk_of_the_same_document() -> None:
    documents = dict(CONSENSUS)
    documents["paxos.md"] = ["Acceptors promise to ignore proposals with lower ballot numbers."]
    kb = _kb(documents)
    sources = Sources(kb, min_chars=20)
    partners = [c.chunk_id for c in sources.partners("multi", _chunk(kb, "raft.md#0"))]
    assert partners == ["raft.md#2"]


def test_multi_and_comparative_plans_keep_the_partner_rules(quickstart: KnowledgeBase) -> None:
    sources = Sources(quickstart, seed=2)
    for kind in ("multi", "comparative"):
        count = sources.capacity(kind)
        pairs = [sources.plan(kind, i) for i in range(count)]
        assert len({frozenset(c.chunk_id for c in p.chunks) for p in pairs if p}) == count
        for plan in pairs:
            assert plan is not None
            first, second = plan.chunks
            assert first.chunk_id != second.chunk_id
            assert first.doc_uri != second.doc_uri or abs(first.index - second.index) > 1
            if kind == "comparative":
                assert first.doc_uri != second.doc_uri
            assert text_language(first.content) == text_language(second.content)
        assert _ids(sources.plan(kind, count)) == _ids(sources.plan(kind, 0))


def test_comparative_needs_two_documents() -> None:
    kb = _kb({"raft.md": CONSENSUS["raft.md"]})
    sources = Sources(kb, min_chars=20)
    assert sources.capacity("comparative") == 0
    assert sources.plan("comparative", 0) is None
    assert _ids(sources.plan("multi", 0)) in (
        ["raft.md#0", "raft.md#2"],
        ["raft.md#2", "raft.md#0"],
    )


def test_two_chunk_kinds_need_two_usable_chunks() -> None:
    kb = _kb({"raft.md": CONSENSUS["raft.md"][:1], "short.md": ["Raft is nice."]})
    sources = Sources(kb, min_chars=20)
    assert [kb.chunks[i].chunk_id for i in sources.usable] == ["raft.md#0"]
    assert sources.plan("multi", 0) is None and sources.capacity("multi") == 0
    assert _ids(sources.plan("single", 0)) == ["raft.md#0"]


def test_unanswerable_and_conversational_take_one_chunk(quickstart: KnowledgeBase) -> None:
    sources = Sources(quickstart)
    for kind in ("unanswerable", "conversational"):
        assert sources.capacity(kind) == len(sources.usable)
        plans = [sources.plan(kind, i) for i in range(10)]
        assert all(plan is not None and len(plan.chunks) == 1 for plan in plans)
        assert all(plan is not None and plan.key == f"{kind}-{plan.index}" for plan in plans)


def test_language_follows_the_chunks_unless_forced(quickstart: KnowledgeBase) -> None:
    sources = Sources(quickstart)
    plans = [sources.plan("single", i) for i in range(sources.capacity("single"))]
    languages = {(p.chunks[0].doc_uri.endswith("_ja.md"), p.language) for p in plans if p}
    assert languages == {(True, "ja"), (False, "en")}
    forced = Sources(quickstart, language="ja")
    assert {plan.language for i in range(20) if (plan := forced.plan("single", i))} == {"ja"}


def test_japanese_multi_pairs_japanese_chunks(quickstart: KnowledgeBase) -> None:
    sources = Sources(quickstart)
    deadlock = _chunk(quickstart, "deadlock_ja.md#0")
    partners = sources.partners("multi", deadlock)
    assert partners and all(chunk.doc_uri.endswith("_ja.md") for chunk in partners)
    assert partners[0].doc_uri == "transaction_ja.md"


def test_related_finds_the_relevant_chunk_in_english_and_japanese(
    quickstart: KnowledgeBase,
) -> None:
    sources = Sources(quickstart)
    english = sources.related("Does UNION ALL remove duplicate rows?", k=3)
    assert len(english) == 3 and english[0].doc_uri == "union_vs_union_all.md"
    japanese = sources.related("デッドロックはどのように検出されますか", k=2)
    assert japanese[0].doc_uri == "deadlock_ja.md"


def test_short_repeated_and_symbol_chunks_are_not_usable() -> None:
    chunks = [
        Chunk(chunk_id="a#0", doc_uri="a", content="A sentence long enough to ask about.", index=0),
        Chunk(chunk_id="a#1", doc_uri="a", content="Too short.", index=1),
        Chunk(chunk_id="a#2", doc_uri="a", content="| --- | --- | --- | -- | -- | --- |", index=2),
        Chunk(chunk_id="b#0", doc_uri="b", content="A sentence long enough to ask about.", index=0),
        Chunk(chunk_id="b#1", doc_uri="b", content="短いが十分な日本語の文です。", index=1),
    ]
    assert usable_positions(chunks, min_chars=14) == [0, 4]


def test_default_minimum_is_shorter_for_japanese() -> None:
    english = "x" * 100 + " is a word."
    japanese = (
        "デッドロックとは、複数のトランザクションが互いのロックの解放を待ち続ける状態である。" * 2
    )
    chunks = [
        Chunk(chunk_id="en#0", doc_uri="en", content=english, index=0),
        Chunk(chunk_id="ja#0", doc_uri="ja", content=japanese, index=0),
    ]
    assert len(english) < 150 and len(japanese) < 150
    assert usable_positions(chunks) == [1]


def test_the_overlap_with_the_previous_chunk_is_not_new_text() -> None:
    previous = Chunk(chunk_id="a#0", doc_uri="a", content="First part. Shared end.", index=0)
    after = Chunk(chunk_id="a#1", doc_uri="a", content="Shared end. New.", index=1)
    elsewhere = Chunk(chunk_id="b#0", doc_uri="b", content="Shared end. New.", index=0)
    assert new_text_length(previous, after) == len("New.")
    assert new_text_length(previous, elsewhere) == len("Shared end. New.")
    assert new_text_length(None, after) == len("Shared end. New.")


def test_bad_options_are_named() -> None:
    kb = _kb({"raft.md": CONSENSUS["raft.md"]})
    with pytest.raises(ValueError, match="unknown question style 'loud'"):
        Sources(kb, styles=["loud"])  # type: ignore[list-item]
    with pytest.raises(ValueError, match="styles"):
        Sources(kb, styles=[])
    with pytest.raises(ValueError, match="unknown kind"):
        Sources(kb).plan("trivia", 0)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="not in the knowledge base"):
        Sources(kb).partners("multi", Chunk(chunk_id="x#0", doc_uri="x", content="x", index=0))
