"""Splitting text into chunks of whole sentences measured in characters, with a
few trailing sentences of overlap; every chunk is a verbatim slice of the text."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from functools import partial

from ragjudge._util.parallel import map_batches, worker_count
from ragjudge.text._normalise import contains_cjk, split_sentences
from ragjudge.text._sentences import segment_spans


def check_chunking(chunk_size: int, chunk_overlap: int) -> None:
    """Raise ``ValueError`` unless ``chunk_size`` is positive and ``chunk_overlap`` is
    at least 0 and less than ``chunk_size``."""
    if chunk_size < 1:
        raise ValueError(f"chunk_size must be positive, got {chunk_size}")
    if not 0 <= chunk_overlap < chunk_size:
        raise ValueError(
            f"chunk_overlap must be at least 0 and less than chunk_size ({chunk_size}), "
            f"got {chunk_overlap}"
        )


_Span = tuple[int, int]
"""A unit of text to pack: ``text[start:end]`` as ``(start, end)``."""


def chunk_text(text: str, *, chunk_size: int = 800, chunk_overlap: int = 100) -> list[str]:
    """Split ``text`` into chunks of at most ``chunk_size`` characters.

    Whole sentences are packed into each chunk (a line break always ends a sentence);
    each chunk repeats up to ``chunk_overlap`` characters of whole sentences from the
    end of the previous one; a sentence longer than ``chunk_size`` is cut into pieces
    of ``chunk_size`` characters. Each chunk is a verbatim slice of ``text``.
    """
    check_chunking(chunk_size, chunk_overlap)
    units = list(_sentence_units(text, chunk_size))
    return [
        text[units[first][0] : units[last - 1][1]]
        for first, last in _pack(units, chunk_size, chunk_overlap)
    ]


def chunk_texts(
    texts: Sequence[str], *, chunk_size: int, chunk_overlap: int, workers: int | None = None
) -> list[list[str]]:
    """:func:`chunk_text` of each of ``texts``, in ``workers`` processes (see
    :func:`ragjudge._util.parallel.worker_count`: ``None`` chooses by the total size)."""
    check_chunking(chunk_size, chunk_overlap)
    count = worker_count(workers, sum(map(len, texts)))
    chunk_batch = partial(_chunk_batch, chunk_size=chunk_size, chunk_overlap=chunk_overlap)
    return [chunks for batch in map_batches(chunk_batch, texts, count) for chunks in batch]


def _chunk_batch(texts: list[str], *, chunk_size: int, chunk_overlap: int) -> list[list[str]]:
    return [chunk_text(text, chunk_size=chunk_size, chunk_overlap=chunk_overlap) for text in texts]


def _sentence_units(text: str, chunk_size: int) -> Iterator[_Span]:
    """Sentence spans in ``text``, with sentences longer than ``chunk_size`` cut up."""
    for span_start, span_end in _sentence_spans(text):
        if 0 < span_end - span_start <= chunk_size:
            yield span_start, span_end
            continue
        for start in range(span_start, span_end, chunk_size):
            yield start, min(start + chunk_size, span_end)


def _sentence_spans(text: str) -> Iterator[_Span]:
    """Locate each sentence of each line in ``text``.

    Sentences are found line by line; should a sentence not be found verbatim (the
    splitter changed it), the whole stripped line becomes one unit.
    """
    offset = 0
    for line in text.splitlines(keepends=True):
        stripped = line.strip()
        if stripped:
            yield from _spans_in_line(line, offset)
        offset += len(line)


def _spans_in_line(line: str, offset: int) -> list[_Span]:
    """The sentences of ``line`` (with its line break, if any) as :func:`_found_spans`
    finds them, taken from where the segmenter located them: when only whitespace lies
    between one stripped sentence and the next, searching for each stripped sentence
    from the end of the previous one finds it right there."""
    body = line.splitlines()[0]  # what split_sentences segments
    spans: list[_Span] = []
    position = 0
    for start, end in segment_spans(body, "ja" if contains_cjk(body) else "en"):
        piece = body[start:end]
        stripped = piece.strip()
        if not stripped:
            continue
        found = start + piece.find(stripped[0])
        if found < position or (found > position and not body[position:found].isspace()):
            return _found_spans(line, offset)
        position = found + len(stripped)
        spans.append((offset + found, offset + position))
    return spans


def _found_spans(line: str, offset: int) -> list[_Span]:
    """Each stripped sentence of ``line`` searched for from the end of the previous one;
    should one not be found verbatim, the whole stripped line becomes one unit."""
    spans: list[_Span] = []
    position = 0
    for sentence in split_sentences(line):
        found = line.find(sentence, position)
        if found < 0:
            start = len(line) - len(line.lstrip())
            return [(offset + start, offset + len(line.rstrip()))]
        spans.append((offset + found, offset + found + len(sentence)))
        position = found + len(sentence)
    return spans


def _pack(units: list[_Span], chunk_size: int, chunk_overlap: int) -> Iterator[tuple[int, int]]:
    """Group consecutive units into chunks, each ending where the next one starts new
    text: the first and one past the last unit of each chunk."""
    start = 0
    count = len(units)
    while start < count:
        end = start + 1  # a unit never exceeds chunk_size, so one always fits
        limit = units[start][0] + chunk_size
        while end < count and units[end][1] <= limit:
            end += 1
        yield start, end
        if end == count:
            return
        start = _overlap_start(units, start, end, chunk_size, chunk_overlap)


def _overlap_start(
    units: list[_Span], start: int, end: int, chunk_size: int, chunk_overlap: int
) -> int:
    """First unit of the next chunk: trailing units of ``units[start:end]`` that fit in
    the overlap and still leave room for the next new unit."""
    first = end
    previous_end = units[end - 1][1]
    while first - 1 > start:
        candidate_start = units[first - 1][0]
        if previous_end - candidate_start > chunk_overlap:
            break
        if units[end][1] - candidate_start > chunk_size:
            break
        first -= 1
    return first
