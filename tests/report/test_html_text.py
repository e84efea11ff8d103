from markupsafe import Markup

from ragjudge.report._text import breakable, fmt, lang_of, money, pct, preview, search_text, shown


def test_shown_escapes_markup() -> None:
    text = "<script>alert(1)</script><img src=x onerror=alert(1)> & \"quoted\" 'single'"
    out = shown(text)
    assert isinstance(out, Markup)
    assert "<script" not in out and "<img" not in out
    assert "&lt;script&gt;" in out and "&amp;" in out and "&#34;quoted&#34;" in out


def test_shown_makes_hidden_characters_visible() -> None:
    out = shown("a\x00b\r\nc\u202ed\u200be\ufeff\x1b[31m\tf")
    assert "\x00" not in out and "\r" not in out and "\u202e" not in out and "\x1b" not in out
    for marker in ("␀", "␍", "U+202E", "U+200B", "U+FEFF", "␛"):
        assert marker in out
    assert "\n" in out and "\t" in out  # layout characters stay as they are


def test_shown_keeps_japanese_and_joiners() -> None:
    assert shown("原子性とは何か? 👨\u200d👩") == "原子性とは何か? 👨\u200d👩"


def test_lang_of_tags_japanese_text() -> None:
    assert lang_of("トランザクション") == "ja"
    assert lang_of("漢字だけ") == "ja"
    assert lang_of("What is SQL?") == ""
    assert lang_of(None) == ""


def test_preview_search_and_numbers() -> None:
    assert preview("a\n  b  c") == "a b c"
    assert preview("x" * 200, 10) == "x" * 9 + "…"
    assert search_text("Q1", "ＳＱＬ とは", None) == "q1 sql とは"
    assert (
        fmt(None) == "–"
        and fmt(float("nan")) == "–"
        and fmt(2.0) == "2"
        and fmt(0.12345) == "0.123"
    )
    assert fmt(True) == "true"
    assert pct(0.256) == "26%" and pct(None) == "–"
    assert money(0.00012) == "$0.0001" and money(None) == "–"


def test_breakable_escapes_and_breaks_after_slashes_and_underscores() -> None:
    out = breakable("response/llm_judged/<b>/rating")
    assert out == "response/<wbr>llm_<wbr>judged/<wbr>&lt;b&gt;/<wbr>rating"
