"""The sentence splitter gives what pysbd's own segmenter gives, so every chunk is the
chunk it was when each line went through ``pysbd.Segmenter(language, clean=False)``:
on the example data, on the shared public data (when present) and on lines built to
take the rare paths of locating sentences."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from pathlib import Path

import pysbd
import pytest

from conftest import SHARED_DATA, shared_data
from ragjudge import _sentences, text
from ragjudge.knowledge import chunk_text

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def segmenter(line: str, language: str) -> list[str]:
    """How every line was segmented before: pysbd's segmenter itself."""
    segmented: list[str] = pysbd.Segmenter(language=language, clean=False).segment(line)
    return segmented


def chunks_with(
    split: Callable[[str, str], list[str]], document: str, monkeypatch: pytest.MonkeyPatch
) -> list[list[str]]:
    with monkeypatch.context() as patched:
        patched.setattr(text, "segment", split)
        return [
            chunk_text(document, chunk_size=size, chunk_overlap=overlap)
            for size, overlap in ((800, 100), (300, 60), (120, 0))
        ]


def example_documents() -> Iterator[tuple[str, str]]:
    """Every text file of the examples, and the text fields of their JSONL rows."""
    for path in sorted(EXAMPLES.rglob("*")):
        if path.suffix in (".md", ".txt"):
            yield str(path.relative_to(EXAMPLES)), path.read_text(encoding="utf-8")
        elif path.suffix == ".jsonl":
            for number, line in enumerate(path.read_text(encoding="utf-8").splitlines()):
                yield f"{path.name}:{number}", json.dumps(json.loads(line), ensure_ascii=False)


def test_the_example_data_gives_todays_chunks(monkeypatch: pytest.MonkeyPatch) -> None:
    documents = list(example_documents())
    assert len(documents) > 40
    for name, document in documents:
        today = chunks_with(segmenter, document, monkeypatch)
        assert chunks_with(_sentences.segment, document, monkeypatch) == today, name


def shared_lines(limit: int) -> list[str]:
    """Lines of the shared public passages, answers and responses."""
    lines: list[str] = []
    with shared_data("clapnq", "clapnq_dev_answerable.jsonl").open(encoding="utf-8") as rows:
        for row in map(json.loads, rows):
            lines += row["passages"][0]["text"].splitlines()
            lines += [output["answer"] for output in row["output"]]
    mtrag = json.loads(
        shared_data("mtrag-human", "reference_subset_with_human_evaluations.json").read_text(
            encoding="utf-8"
        )
    )
    for document in mtrag["documents"]:
        lines += document["text"].splitlines()
    for evaluation in mtrag["evaluations"]:
        lines += evaluation["model_response"].splitlines()
    unique = [line for line in dict.fromkeys(lines) if line.strip()]
    return unique[:: max(1, len(unique) // limit)]


@pytest.mark.skipif(not SHARED_DATA.is_dir(), reason="../shared/data is not beside the checkout")
def test_shared_public_lines_split_as_pysbd_splits_them() -> None:
    lines = shared_lines(3000)
    assert len(lines) >= 3000
    for line in lines:
        language = "ja" if text.contains_cjk(line) else "en"
        assert _sentences.segment(line, language) == segmenter(line, language), line


RARE_LINES = [
    "Yes. Yes. Yes. No.",  # the same sentence again and again
    "It is. It is. It is it is. It is.",  # sentences that overlap themselves
    "Hello world.   Hello world.  Again hello world.",
    "Mr. Smith met Dr. Jones at 3 p.m. on Jan. 5. They talked. they left.",
    "See e.g. the U.S. report, i.e. the one from ph.d. students. Then stop.",
    "İstanbul is. ſt. Kelvin K. is it. Done.",  # letters that fold to ASCII
    'He said "Stop. Now." and left. (See fig. 2.) Then 1. first 2. second.',
    "Wait... what?! Really?? Yes!!! OK.",
    "これはペンです。「本当？」と彼は言った。（注：例です。）終わり！",
    "SQLのUNION ALLは重複を残す。UNIONは除く。e.g. 例。",
    "",
    "   ",
    "No terminator at all",
]


@pytest.mark.parametrize("line", RARE_LINES)
def test_rare_lines_split_as_pysbd_splits_them(line: str) -> None:
    for language in ("en", "ja"):
        assert _sentences.segment(line, language) == segmenter(line, language)


def scanned(sentences: list[str], line: str) -> list[tuple[int, int]]:
    """The segmenter's way: for each sentence, a pattern of its text followed by
    whitespace, scanned from the start for the first match ending after the last one."""
    spans, prior = [], 0
    for sentence in sentences:
        for match in re.finditer(re.escape(sentence) + r"\s*", line):
            if match.end() > prior:
                spans.append(match.span())
                prior = match.end()
                break
    return spans


@pytest.mark.parametrize(
    ("sentences", "line"),
    [
        (["ab ab", "ab ab"], "ab ab ab ab"),  # occurrences that overlap
        (["abab", "abab"], "ababab abab"),
        (["a.", "a.", "b."], "a. a. b."),
        (["missing", "b."], "a. b."),
        ([" a.", "b."], " a.  a. b."),  # leading whitespace
        (["", "a."], "a. a."),
        (["x.", "x."], "x.\t\u3000x. x."),  # other whitespace after a sentence
    ],
)
def test_locating_follows_the_segmenters_scan(sentences: list[str], line: str) -> None:
    assert list(_sentences.locate(sentences, line)) == scanned(sentences, line)
