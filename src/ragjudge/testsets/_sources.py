"""The source chunks of each candidate sample, with its language, persona and style.

Every plan is a pure function of the knowledge base, the seed, the kind and the
candidate's number, so a generation that is interrupted and resumed asks for the same
candidates again.

- Spread: candidate ``i`` of a kind starts from the ``i``-th chunk of a seeded
  permutation of the usable chunks (see :mod:`._source_chunks`), one permutation per
  kind, so the first candidates of a kind cover as many different chunks and the kinds
  do not all start from the same chunk. The list wraps around only after every chunk
  (or pair of chunks) has been used.
- ``multi``: the chunk and its most related other chunk by BM25 (the first chunk's text
  as the query), never the chunk next to it in the same document (consecutive chunks
  share their overlap text); a chunk of another document comes first when it is related
  enough. ``comparative``: the chunk and the most related chunk of another document.
  Both partners are in the chunk's language. A pair is planned once: a later pass over
  the chunks gives each its next partner.
- ``unanswerable``: the chunk, as the topic to stay near. ``conversational``: the chunk
  alone; a usable chunk holds enough for a short dialogue, and one chunk keeps the
  expected context exactly what the dialogue is about.
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence
from functools import cached_property
from typing import TYPE_CHECKING, Literal

from ragjudge.knowledge import Chunk, KnowledgeBase
from ragjudge.testsets._source_chunks import chunk_language, text_language, usable_positions
from ragjudge.testsets._types import KINDS, STYLES, Kind, Language, SourcePlan, Style

if TYPE_CHECKING:
    from ragjudge.knowledge import BM25Retriever

__all__ = ["Sources"]

_TWO_CHUNK_KINDS: frozenset[Kind] = frozenset({"multi", "comparative"})

_PARTNERS = 3
"""The most partners a chunk is paired with, best first: later pairs are less related."""

_SEARCH_DEPTH = 50
"""How many of the best BM25 matches of a chunk are read to find its partners."""

_RELATED = 0.1
"""A partner's BM25 score is at least this share of the chunk's score against itself:
below it the two share little more than common words."""

_RELATED_ENOUGH = 0.5
"""For ``multi``, a chunk of another document comes before the chunks of the same
document when its score is at least this share of the best partner's."""


class Sources:
    """Chooses what each candidate sample of a test set is generated from.

    ``personas`` and ``styles`` are drawn from per candidate (no persona when none is
    given). ``language`` ``"auto"`` reads each candidate's chunks (Japanese when enough
    of their letters are Japanese characters); ``"en"`` or ``"ja"`` is used for every
    candidate. ``min_chars`` is the fewest characters of new text a chunk needs to write
    a question from; None takes 150 for English chunks and 60 for Japanese ones.
    """

    def __init__(
        self,
        kb: KnowledgeBase,
        *,
        seed: int = 0,
        personas: Sequence[str] = (),
        styles: Sequence[Style] = ("plain",),
        language: Literal["auto", "en", "ja"] = "auto",
        min_chars: int | None = None,
    ) -> None:
        _check_options(styles, language, min_chars)
        self.kb = kb
        self.seed = seed
        self.personas: tuple[str, ...] = tuple(personas)
        self.styles: tuple[Style, ...] = tuple(styles)
        self.language = language
        self.usable: list[int] = usable_positions(kb.chunks, min_chars)
        """Positions in ``kb.chunks`` of the chunks questions are written from."""
        self._usable_set = frozenset(self.usable)
        self._orders: dict[Kind, list[int]] = {}
        self._partners: dict[tuple[Kind, int], list[int]] = {}
        self._pairs: dict[Kind, _PairList] = {}

    def plan(self, kind: Kind, index: int) -> SourcePlan | None:
        """Candidate ``index`` of ``kind``: its chunks, language, persona and style. A pure
        function of (knowledge base, seed, kind, index): the same on every call, run and
        resume. None when the knowledge base cannot give this kind (e.g. two chunks
        needed, one usable chunk)."""
        _check_kind(kind)
        if index < 0:
            raise ValueError(f"a candidate's index must not be negative, got {index}")
        positions = self._positions(kind, index)
        if positions is None:
            return None
        chunks = tuple(self.kb.chunks[position] for position in positions)
        return SourcePlan(
            kind=kind,
            index=index,
            chunks=chunks,
            language=self._language_of(chunks),
            persona=self._persona(kind, index),
            style=self._style(kind, index),
        )

    def capacity(self, kind: Kind) -> int:
        """How many distinct plans of ``kind`` the knowledge base offers (an upper bound
        on candidates): the usable chunks for one-chunk kinds, the distinct pairs for
        ``multi`` and ``comparative``."""
        _check_kind(kind)
        if kind not in _TWO_CHUNK_KINDS:
            return len(self.usable)
        return len(self._pair_list(kind).complete())

    def related(self, text: str, k: int = 5) -> list[Chunk]:
        """The ``k`` chunks of the whole knowledge base closest to ``text`` (BM25;
        Japanese tokenised): what an unanswerable question is checked against."""
        return [self.kb.chunks[position] for position, _ in self._index.rank(text, k)]

    def partners(self, kind: Kind, chunk: Chunk) -> list[Chunk]:
        """The chunks ``chunk`` may be paired with for ``multi`` or ``comparative``, best
        first (at most three; empty for the other kinds)."""
        _check_kind(kind)
        if kind not in _TWO_CHUNK_KINDS:
            return []
        position = self._position_of(chunk)
        return [self.kb.chunks[other] for other in self._partners_of(kind, position)]

    # --- one candidate ---------------------------------------------------------------

    def _position_of(self, chunk: Chunk) -> int:
        for position, known in enumerate(self.kb.chunks):
            if known.chunk_id == chunk.chunk_id:
                return position
        raise ValueError(f"chunk {chunk.chunk_id!r} is not in the knowledge base")

    def _positions(self, kind: Kind, index: int) -> tuple[int, ...] | None:
        if kind not in _TWO_CHUNK_KINDS:
            order = self._order(kind)
            return (order[index % len(order)],) if order else None
        pairs = self._pair_list(kind)
        pair = pairs.get(index)
        if pair is not None:
            return pair
        known = pairs.complete()  # fewer pairs than index: wrap around
        return known[index % len(known)] if known else None

    def _language_of(self, chunks: Sequence[Chunk]) -> Language:
        if self.language != "auto":
            return self.language
        return text_language("\n".join(chunk.content for chunk in chunks))

    def _persona(self, kind: Kind, index: int) -> str | None:
        if not self.personas:
            return None
        return self._random(kind, index, "persona").choice(self.personas)

    def _style(self, kind: Kind, index: int) -> Style:
        return self._random(kind, index, "style").choice(self.styles)

    def _random(self, kind: Kind, index: int, purpose: str) -> random.Random:
        # A string seed is hashed with SHA-512 by random.Random: the same in every
        # process, unlike hash() of a str.
        return random.Random(f"{self.seed}:{kind}:{index}:{purpose}")

    # --- spread and partners ---------------------------------------------------------

    def _order(self, kind: Kind) -> list[int]:
        """The usable chunks in this kind's seeded order."""
        if kind not in self._orders:
            order = list(self.usable)
            random.Random(f"{self.seed}:{kind}:order").shuffle(order)
            self._orders[kind] = order
        return self._orders[kind]

    def _pair_list(self, kind: Kind) -> _PairList:
        if kind not in self._pairs:
            self._pairs[kind] = _PairList(self._pairs_in_order(kind))
        return self._pairs[kind]

    def _pairs_in_order(self, kind: Kind) -> Iterator[tuple[int, int]]:
        """Pass after pass over this kind's order, each chunk with its best partner it
        has not been paired with yet (in either order); ends after a pass adds none."""
        used: set[frozenset[int]] = set()
        for _ in range(_PARTNERS):
            added = False
            for first in self._order(kind):
                second = self._next_partner(kind, first, used)
                if second is not None:
                    used.add(frozenset((first, second)))
                    added = True
                    yield first, second
            if not added:
                return

    def _next_partner(self, kind: Kind, first: int, used: set[frozenset[int]]) -> int | None:
        for second in self._partners_of(kind, first):
            if frozenset((first, second)) not in used:
                return second
        return None

    def _partners_of(self, kind: Kind, first: int) -> list[int]:
        """The chunks ``first`` may be paired with for ``kind``, best first."""
        key = (kind, first)
        if key not in self._partners:
            self._partners[key] = self._rank_partners(kind, first)
        return self._partners[key]

    def _rank_partners(self, kind: Kind, first: int) -> list[int]:
        chunk = self.kb.chunks[first]
        hits = self._index.rank(chunk.content, _SEARCH_DEPTH)
        own_score = next((score for position, score in hits if position == first), None)
        least = _RELATED * (own_score if own_score is not None else hits[0][1]) if hits else 0
        language = chunk_language(chunk)
        related = [
            (position, score)
            for position, score in hits
            if score >= least and self._may_pair(chunk, position, language)
        ]
        elsewhere = [(p, s) for p, s in related if self.kb.chunks[p].doc_uri != chunk.doc_uri]
        if kind == "comparative":
            return [position for position, _ in elsewhere][:_PARTNERS]
        return _other_documents_first(related, elsewhere)[:_PARTNERS]

    def _may_pair(self, chunk: Chunk, position: int, language: Language) -> bool:
        """Whether the chunk at ``position`` is usable, in ``language``, and neither
        ``chunk`` itself nor a neighbour sharing its overlap text."""
        other = self.kb.chunks[position]
        if position not in self._usable_set or chunk_language(other) != language:
            return False
        return other.doc_uri != chunk.doc_uri or abs(other.index - chunk.index) > 1

    @cached_property
    def _index(self) -> BM25Retriever:
        """The BM25 index of every chunk, built on first use."""
        from ragjudge.knowledge import BM25Retriever

        return BM25Retriever.from_knowledge_base(self.kb)


def _other_documents_first(
    related: list[tuple[int, float]], elsewhere: list[tuple[int, float]]
) -> list[int]:
    """``related`` (best first) with the chunks of ``elsewhere`` scoring at least
    :data:`_RELATED_ENOUGH` of the best moved to the front."""
    if not related:
        return []
    enough = _RELATED_ENOUGH * related[0][1]
    front = [position for position, score in elsewhere if score >= enough]
    return front + [position for position, _ in related if position not in front]


class _PairList:
    """The pairs of a two-chunk kind, computed as far as they are asked for."""

    def __init__(self, pairs: Iterator[tuple[int, int]]) -> None:
        self._source = pairs
        self._known: list[tuple[int, int]] = []
        self._done = False

    def get(self, index: int) -> tuple[int, int] | None:
        """Pair ``index``, or None when there are not that many."""
        while len(self._known) <= index and not self._done:
            self._take_one()
        return self._known[index] if index < len(self._known) else None

    def complete(self) -> list[tuple[int, int]]:
        """Every pair."""
        while not self._done:
            self._take_one()
        return self._known

    def _take_one(self) -> None:
        pair = next(self._source, None)
        if pair is None:
            self._done = True
        else:
            self._known.append(pair)


def _check_kind(kind: str) -> None:
    if kind not in KINDS:
        raise ValueError(f"unknown kind of sample {kind!r}; known kinds: {', '.join(KINDS)}")


def _check_options(styles: Sequence[str], language: str, min_chars: int | None) -> None:
    if not styles:
        raise ValueError("styles must name at least one question style")
    unknown = [style for style in styles if style not in STYLES]
    if unknown:
        raise ValueError(
            f"unknown question style {unknown[0]!r}; known styles: {', '.join(STYLES)}"
        )
    if language not in ("auto", "en", "ja"):
        raise ValueError(f"language must be auto, en or ja, got {language!r}")
    if min_chars is not None and min_chars < 0:
        raise ValueError(f"min_chars must not be negative, got {min_chars}")
