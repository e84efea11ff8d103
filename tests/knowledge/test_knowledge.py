from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from ragjudge.knowledge import (
    DOCUMENT_READERS,
    Chunk,
    Document,
    KnowledgeBase,
    chunk_text,
    html_to_text,
)

ENGLISH = (
    "Alpha one is here. Beta two follows now. Gamma three is longer than the others. "
    "Delta four.\n\nEpsilon five starts a paragraph. Zeta six ends it."
)
JAPANESE = (
    "東京は日本の首都です。人口は約1400万人です。大阪は西日本の中心都市です。"
    "京都には多くの寺があります。\n名古屋は中部地方にあります。札幌は北海道の都市です。"
)


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


# --- loading ----------------------------------------------------------------------------


def test_load_folder_recursively_with_relative_posix_uris(tmp_path: Path) -> None:
    write(tmp_path / "b.md", "# Title\n\nSecond document.")
    write(tmp_path / "a.txt", "First document.")
    write(tmp_path / "sub" / "deep" / "c.txt", "日本語の文書です。")
    write(tmp_path / "ignored.csv", "a,b")
    write(tmp_path / ".hidden" / "secret.txt", "not a document")

    kb = KnowledgeBase.load(tmp_path)

    assert [d.doc_uri for d in kb.documents] == ["a.txt", "b.md", "sub/deep/c.txt"]
    assert kb.documents[2].content == "日本語の文書です。"
    assert [c.chunk_id for c in kb.chunks] == ["a.txt#0", "b.md#0", "sub/deep/c.txt#0"]
    assert kb.chunks[1].content == "# Title\n\nSecond document."


def test_load_folder_strips_bom_and_normalises_newlines(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_bytes("\ufeffLine one.\r\nLine two.".encode())
    kb = KnowledgeBase.load(tmp_path)
    assert kb.documents[0].content == "Line one.\nLine two."


def test_load_empty_folder_is_an_error(tmp_path: Path) -> None:
    write(tmp_path / "notes.csv", "x")
    with pytest.raises(ValueError, match="no documents"):
        KnowledgeBase.load(tmp_path)


def test_load_missing_path_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        KnowledgeBase.load(tmp_path / "nope")


def test_load_non_utf8_file_names_the_file(tmp_path: Path) -> None:
    (tmp_path / "bad.txt").write_bytes("日本語".encode("shift_jis"))
    with pytest.raises(ValueError, match=r"bad\.txt.*UTF-8"):
        KnowledgeBase.load(tmp_path)


def test_load_jsonl_with_extra_keys_as_metadata(tmp_path: Path) -> None:
    rows = [
        {"doc_uri": "doc/1", "content": "Paris is the capital of France.", "title": "France"},
        {"doc_uri": "doc/2", "content": "東京は日本の首都です。", "metadata": {"lang": "ja"}},
    ]
    path = write(
        tmp_path / "kb.jsonl",
        "\n".join(json.dumps(r, ensure_ascii=False) for r in rows) + "\n\n",
    )

    kb = KnowledgeBase.load(path)

    assert [d.doc_uri for d in kb.documents] == ["doc/1", "doc/2"]
    assert kb.documents[0].metadata == {"title": "France"}
    assert kb.documents[1].metadata == {"lang": "ja"}
    assert kb.chunks[1] == Chunk(
        chunk_id="doc/2#0", doc_uri="doc/2", content="東京は日本の首都です。", index=0
    )


def test_load_jsonl_lists_every_bad_line(tmp_path: Path) -> None:
    lines = [
        json.dumps({"doc_uri": "ok", "content": "fine"}),
        "{not json",
        json.dumps({"content": "no uri"}),
        json.dumps({"doc_uri": "empty", "content": "   "}),
        json.dumps(["a", "list"]),
        json.dumps({"doc_uri": "ok", "content": "again"}),
        json.dumps({"doc_uri": 3, "content": None}),
    ]
    path = write(tmp_path / "kb.jsonl", "\n".join(lines))

    with pytest.raises(ValueError) as info:
        KnowledgeBase.load(path)

    message = str(info.value)
    assert "6 bad line(s)" in message
    assert f"{path}:2: invalid JSON" in message
    assert f"{path}:3: doc_uri: missing" in message
    assert f"{path}:4: content: empty" in message
    assert f"{path}:5: expected a JSON object" in message
    assert f"{path}:6: doc_uri: duplicates line 1" in message
    assert f"{path}:7: doc_uri: must be a string" in message
    assert f"{path}:7: content: missing" in message
    assert f"{path}:1:" not in message


def test_load_single_text_file(tmp_path: Path) -> None:
    path = write(tmp_path / "guide.md", "One sentence.")
    kb = KnowledgeBase.load(path)
    assert [d.doc_uri for d in kb.documents] == ["guide.md"]


def test_unknown_file_type_is_an_error(tmp_path: Path) -> None:
    path = write(tmp_path / "table.csv", "a,b")
    with pytest.raises(ValueError, match="file type"):
        KnowledgeBase.load(path)


def test_reader_registry_adds_formats(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(DOCUMENT_READERS, ".rst", lambda p: p.read_text().upper())
    write(tmp_path / "x.rst", "shout.")
    kb = KnowledgeBase.load(tmp_path)
    assert kb.documents[0].content == "SHOUT."


def test_duplicate_doc_uris_are_rejected() -> None:
    docs = [Document(doc_uri="a", content="x."), Document(doc_uri="a", content="y.")]
    with pytest.raises(ValueError, match="duplicate doc_uri: a"):
        KnowledgeBase.from_documents(docs)


# --- chunking ---------------------------------------------------------------------------


@pytest.mark.parametrize(("text", "size", "overlap"), [(ENGLISH, 60, 25), (JAPANESE, 30, 12)])
def test_chunks_are_whole_sentences_within_size(text: str, size: int, overlap: int) -> None:
    chunks = chunk_text(text, chunk_size=size, chunk_overlap=overlap)
    assert len(chunks) > 1
    for chunk in chunks:
        assert len(chunk) <= size
        assert chunk in text  # a verbatim slice of the document
    # Every sentence of the text lands in some chunk, in order.
    joined = " ".join(chunks)
    for sentence in ("Zeta six ends it.", "札幌は北海道の都市です。"):
        if sentence in text:
            assert sentence in joined


def test_english_chunks_overlap_by_whole_trailing_sentences() -> None:
    chunks = chunk_text(ENGLISH, chunk_size=60, chunk_overlap=25)
    assert chunks[0] == "Alpha one is here. Beta two follows now."
    # "Beta two follows now." (21 chars) fits in the 25-character overlap.
    assert chunks[1].startswith("Beta two follows now. Gamma three")
    # The paragraph break survives inside a chunk.
    assert any("Delta four.\n\nEpsilon" in c for c in chunks)


def test_japanese_chunks_overlap_by_whole_sentences() -> None:
    chunks = chunk_text(JAPANESE, chunk_size=30, chunk_overlap=14)
    assert chunks[0] == "東京は日本の首都です。人口は約1400万人です。"
    # "人口は約1400万人です。" is 13 characters, within the overlap of 14.
    assert chunks[1].startswith("人口は約1400万人です。大阪")
    assert all(len(c) <= 30 for c in chunks)


def test_no_overlap_partitions_the_text() -> None:
    chunks = chunk_text(JAPANESE, chunk_size=30, chunk_overlap=0)
    assert "".join(chunks).replace("\n", "") == JAPANESE.replace("\n", "")


def test_long_sentence_is_cut_hard() -> None:
    text = "あ" * 25 + "。短い文。"
    chunks = chunk_text(text, chunk_size=10, chunk_overlap=3)
    assert chunks[:2] == ["あ" * 10, "あ" * 10]
    assert all(len(c) <= 10 for c in chunks)
    assert "".join(chunks) == text


def test_chunk_settings_are_validated() -> None:
    with pytest.raises(ValueError, match="chunk_overlap"):
        chunk_text("x", chunk_size=100, chunk_overlap=100)
    with pytest.raises(ValueError, match="chunk_overlap"):
        KnowledgeBase.from_documents([], chunk_size=10, chunk_overlap=-1)
    with pytest.raises(ValueError, match="chunk_size"):
        chunk_text("x", chunk_size=0, chunk_overlap=0)


def test_blank_text_has_no_chunks() -> None:
    assert chunk_text(" \n\n ") == []


def test_knowledge_base_chunks_carry_ids_and_indexes() -> None:
    kb = KnowledgeBase.from_documents(
        [Document(doc_uri="ja", content=JAPANESE)], chunk_size=30, chunk_overlap=0
    )
    assert [c.index for c in kb.chunks] == list(range(len(kb.chunks)))
    assert kb.chunks[1].chunk_id == "ja#1"
    context = kb.chunks[0].to_context(score=2.5)
    assert context.doc_uri == "ja"
    assert context.content == kb.chunks[0].content
    assert context.score == 2.5


# --- html and pdf -----------------------------------------------------------------------

PAGE = """<!DOCTYPE html>
<html><head><title>Page title</title>
<style>p { color: red; }</style>
<script>var hidden = "<p>not shown</p>";</script></head>
<body>
  <h1>Tea &amp; coffee</h1>
  <p>Green tea is
     brewed <b>gently</b>.<br>Black tea is oxidised.</p>
  <ul><li>Sencha</li><li>Matcha</li></ul>
  <table><tr><td>Assam</td><td>India</td></tr></table>
  <noscript>Please enable JavaScript.</noscript>
  <p>東京は<em>日本</em>の首都です。</p>
</body></html>
"""


def test_html_keeps_visible_text_one_line_per_block() -> None:
    assert html_to_text(PAGE) == (
        "Tea & coffee\n"
        "Green tea is brewed gently.\n"
        "Black tea is oxidised.\n"
        "Sencha\n"
        "Matcha\n"
        "Assam India\n"
        "東京は日本の首都です。"
    )


def test_html_files_load_from_a_folder(tmp_path: Path) -> None:
    write(tmp_path / "page.html", PAGE)
    write(tmp_path / "old.HTM", "<p>Legacy <i>page</i></p><script>alert(1)</script>")
    kb = KnowledgeBase.load(tmp_path)
    contents = {d.doc_uri: d.content for d in kb.documents}
    assert contents["old.HTM"] == "Legacy page"
    page = contents["page.html"]
    assert "Black tea is oxidised." in page
    for hidden in ("not shown", "color", "Page title", "JavaScript", "<"):
        assert hidden not in page


def test_html_declared_charset_is_honoured(tmp_path: Path) -> None:
    html = '<html><head><meta charset="shift_jis"></head><body><p>京都の寺</p></body></html>'
    (tmp_path / "sjis.html").write_bytes(html.encode("shift_jis"))
    assert KnowledgeBase.load(tmp_path).documents[0].content == "京都の寺"


def test_html_that_is_not_utf8_names_the_file(tmp_path: Path) -> None:
    (tmp_path / "bad.html").write_bytes("<p>日本語</p>".encode("shift_jis"))
    with pytest.raises(ValueError, match=r"bad\.html.*utf-8"):
        KnowledgeBase.load(tmp_path)


def minimal_pdf(*pages: str) -> bytes:
    """A valid PDF with one line of Helvetica text per page."""
    page_ids = [4 + 2 * i for i in range(len(pages))]
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids ["
        + b" ".join(f"{i} 0 R".encode() for i in page_ids)
        + f"] /Count {len(pages)} >>".encode(),
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    for page_id, text in zip(page_ids, pages, strict=True):
        stream = f"BT /F1 12 Tf 72 720 Td ({text}) Tj ET".encode()
        objects.append(
            b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] "
            b"/Resources << /Font << /F1 3 0 R >> >> " + f"/Contents {page_id + 1} 0 R >>".encode()
        )
        objects.append(f"<< /Length {len(stream)} >>\nstream\n".encode() + stream + b"\nendstream")
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += f"{number} 0 obj\n".encode() + body + b"\nendobj\n"
    xref = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    out += b"".join(f"{offset:010d} 00000 n \n".encode() for offset in offsets)
    out += (
        f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n".encode()
    )
    return bytes(out)


def test_pdf_text_is_read_page_by_page(tmp_path: Path) -> None:
    pytest.importorskip("pypdf")
    (tmp_path / "manual.pdf").write_bytes(minimal_pdf("First page text.", "Second page."))
    kb = KnowledgeBase.load(tmp_path / "manual.pdf")
    assert kb.documents[0].doc_uri == "manual.pdf"
    assert kb.documents[0].content == "First page text.\n\nSecond page."


def test_damaged_pdf_names_the_file(tmp_path: Path) -> None:
    pytest.importorskip("pypdf")
    (tmp_path / "broken.pdf").write_bytes(b"%PDF-1.4\nthis is not a pdf body")
    with pytest.raises(ValueError, match=r"broken\.pdf"):
        KnowledgeBase.load(tmp_path)


def test_pdf_without_pypdf_says_how_to_install(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "pypdf", None)
    (tmp_path / "manual.pdf").write_bytes(minimal_pdf("Text."))
    with pytest.raises(ImportError, match=r"manual\.pdf.*pip install 'ragjudge\[pdf\]'"):
        KnowledgeBase.load(tmp_path)
