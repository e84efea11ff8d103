"""The sentence splitter gives what pysbd's own segmenter gives, so every chunk is the
chunk it was when each line went through ``pysbd.Segmenter(language, clean=False)``:
on the example data, on the shared public data (when present) and on lines built to
take the rare paths of locating sentences."""

from __future__ import annotations

import importlib.util
import json
import re
from collections.abc import Callable, Iterator
from pathlib import Path

import pysbd
import pytest

from conftest import SHARED_DATA, shared_data
from ragjudge.knowledge import _chunking, chunk_text
from ragjudge.text import _normalise as text
from ragjudge.text import _quick_sentences, _sentences

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def segmenter(line: str, language: str) -> list[str]:
    """How every line was segmented before: pysbd's segmenter itself."""
    segmented: list[str] = pysbd.Segmenter(language=language, clean=False).segment(line)
    return segmented


def chunks_with(
    split: Callable[[str, str], list[str]], document: str, monkeypatch: pytest.MonkeyPatch
) -> list[list[str]]:
    """The chunks of ``document`` as they were made before: each line's sentences given
    by ``split`` through ``split_sentences`` and searched for in the line."""
    with monkeypatch.context() as patched:
        patched.setattr(_sentences, "segment", split)  # what split_sentences imports
        patched.setattr(_chunking, "_spans_in_line", _chunking._found_spans)
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
        assert chunks_now(document) == today, name


def chunks_now(document: str) -> list[list[str]]:
    return [
        chunk_text(document, chunk_size=size, chunk_overlap=overlap)
        for size, overlap in ((800, 100), (300, 60), (120, 0))
    ]


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


# The quick pass (pysbd's steps, each run only when its patterns could match) gives
# the sentences of pysbd's own processor, on every kind of line it takes.


def processed(line: str, language: str) -> list[str]:
    """The sentences pysbd's processor returns for ``line``, before they are located."""
    from pysbd.languages import Language
    from pysbd.processor import Processor

    sentences: list[str] = Processor(line, Language.get_language_code(language)).process()
    return sentences


def quick(line: str, language: str) -> list[str] | None:
    rules = _sentences._rules(language)
    return _quick_sentences.quick_sentences(line, rules)


def language_of(line: str) -> str:
    return "ja" if text.contains_cjk(line) else "en"


def quick_share(lines: list[str]) -> float:
    """Assert the quick pass gives pysbd's sentences on ``lines``; the share it takes."""
    taken = 0
    for line in lines:
        language = language_of(line)
        found = quick(line, language)
        if found is not None:
            taken += 1
            assert found == processed(line, language), line
    return taken / len(lines)


def benchmark_lines(limit: int) -> list[str]:
    """Lines of the benchmark's knowledge-base documents (one document in five in
    Japanese), every so many of them."""
    path = Path(__file__).resolve().parents[2] / "benchmarks" / "_corpus.py"
    spec = importlib.util.spec_from_file_location("benchmark_corpus", path)
    assert spec is not None and spec.loader is not None
    corpus = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(corpus)
    texts = corpus.document_texts(400, seed=3)
    lines = [line for document in texts for line in document.splitlines() if line.strip()]
    return lines[:: max(1, len(lines) // limit)]


def test_quick_pass_on_the_example_lines() -> None:
    lines = [line for _, document in example_documents() for line in document.splitlines() if line]
    assert quick_share(lines) > 0.9


@pytest.mark.skipif(not SHARED_DATA.is_dir(), reason="../shared/data is not beside the checkout")
def test_quick_pass_on_the_shared_public_lines() -> None:
    assert quick_share(shared_lines(3000)) > 0.95


def test_quick_pass_on_the_benchmark_lines() -> None:
    lines = benchmark_lines(2000)
    assert len(lines) >= 1900
    assert any(language_of(line) == "ja" for line in lines)
    assert quick_share(lines) > 0.95


ADVERSARIAL_LINES = [
    # abbreviations, with and without the word after them deciding
    "See e.g. the notes. E.g. this one. Also i.e. that, etc. and so on.",
    "Dr. Smith and Mr. Jones met Prof. Lee. They spoke with St. John at 3 p.m. Then left.",
    "The U.S. team won. The U.S.A. team lost. In the U.K. it rained. I.V. drips. i.v. ok.",
    "It is in Vol. 3, No. 5, pp. 12-14, art. 2. See fig. 3. Ph.D. students and ph.d holders.",
    "Acme Co. KG is a firm. Acme Co. Ltd. is another. He's at the Inc.'s office.",
    "The gen. manager and the Gen. Manager. The ft. tall man. Jan. 5 is a date. Feb. was cold.",
    "A. Smith wrote it. B. Jones, C. Brown and D. Green read it. X.",
    "E g. something. d phil. stuff. E.G.- that. e.g.: this.",
    # numbers next to periods, references, coordinates
    "Pi is 3.14 and e is 2.718. The value .5 is half. Version 1.2.3 shipped.",
    "Item No. 5 costs $3.50. It was 45° N. 12.5° W. Then 1999. The end.",
    "As shown.[1] Then more.[12, 13] And again.3 Next sentence. Cited.1 2 A thing.",
    "1. First item. 2. Second item. 3. Third item.",
    "Steps: 1) open 2) close 3) done. a) one b) two c) three. i) x ii) y iii) z.",
    "a. apple b. banana c. cherry. (a) one (b) two. (iv) four (v) five. Then (ix) Nine.",
    "In 2005. Then 12. Later 7.) and -3. minus. ⁃4. bullet.",
    "Only item 1. here and nothing else. Lone a) here. Lone (ii) there. Lone x. here.",
    "Step 9. then 0. wraps. Two items 3) and 4) here. Far apart 5. one, much later 6. two.",
    "Letters b. and c. then q. and r. Romans (i) and (ii) and iii) end.",
    # ellipses, repeated punctuation
    "Wait... What? Hmm.... Yes. So . . . then . . . . Done.",
    "Really?! No!? Yes?? Stop!! What??? Go!!! Fine.",
    "He left... and came back. The end...",
    # quotes and brackets
    'He said "Stop. Now." and left. "Why?" she asked. "Go!" He went.',
    "She said 'no. never.' Then 'yes.' It's John's. The students' Union. 'Tis.",
    "He said “fine. ok.” then left. ‘Quoted. text.’ here. «Guillemets. here.» done.",
    'Read "The Book" (2005) "Next" ok. A "quote" (aside) "more" end.',
    "See [the note. here] and (the aside. here) and -- the dash. here -- done.",
    "He (Mr. X.) left. (See fig. 2.) Then he came. (Really?) Yes.",
    "Yahoo! is a site. Y!J too. Yum! That's it. !Kung people.",
    "Is it? 'Yes' he said? \"No\" she said?'",
    # e-mails, URLs, files
    "Mail me at john.doe@example.com. Or visit https://example.org/a.b?c=d. Done.",
    "Open the file .pdf here. Or report .docx now. The readme.txt file. Ok.",
    "Use www.example.co.uk today. Then ibm.com/docs. Fin.",
    # single letters, whitespace, odd characters
    "Plan B. Then C. And x. y. z. Letter I. I am. I. The end.",
    "Tabs\tand  double  spaces.  Here.   Three.\u3000Ideographic space. End",
    "Back\\slash. (a\\.b) here. Done.",
    "Kelvin \u212a. and \u017ft. and \u0130. and \u0131. Done.",
    "Ampersand & more. R&D. A&B's. &ᓴ& literal? Fine.",
    "ALLCAPS. abc. Ab. x",
    # Japanese and mixed
    "これはペンです。「本当？これは。」と彼は言った。（注：例です。これも。）終わり！",
    "第1正規形(1NF)は重要である。SQL の UNION ALL は重複を残す。e.g. 例。U.S. の例。",
    "「引用。」「また。」終わり。（括弧！）次？はい．いいえ。",
    "価格は 3.14 円。No. 5 の項目。1. 最初 2. 次 3. 最後。",
    "日本語だけの文で句点がない",
    "ＡＢＣ。全角．ピリオド。！？",
    "彼は「Stop. Now.」と言った。Mr. 田中が来た。",
]


@pytest.mark.parametrize("line", ADVERSARIAL_LINES)
def test_quick_pass_on_lines_built_for_pysbds_rules(line: str) -> None:
    for language in ("en", "ja"):
        found = quick(line, language)
        if found is not None:
            assert found == processed(line, language)
        assert _sentences.segment(line, language) == segmenter(line, language)


def test_quick_pass_leaves_line_breaks_and_placeholders_to_pysbd() -> None:
    for line in ("one.\rtwo.", "one. \u2028two.", "a ∯ b. c.", "x ȸ. y."):
        assert quick(line, "en") is None
        assert _sentences.segment(line, "en") == segmenter(line, "en")
