import random
import re
import string
import unicodedata
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from ragjudge.text._normalise import (
    _ARTICLES_RE,
    _PLAIN_WORDS_RE,
    _TOKEN_RE,
    _WORDS_RE,
    _punctuation_re,
    _punctuation_table,
    answer_of_folded,
    contains_cjk,
    fold,
    normalize,
    normalize_answer,
    split_sentences,
    tokenize,
    tokens_of_answer,
    tokens_of_folded,
)

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"

# --- normalize / normalize_answer -------------------------------------------------


def test_normalize_folds_width_case_and_whitespace() -> None:
    assert normalize("  ＵＮＩＯＮ　ＡＬＬ\n\tQuery  ") == "union all query"


def test_normalize_folds_half_width_katakana() -> None:
    assert normalize("ﾃﾞｯﾄﾞﾛｯｸ") == "デッドロック"


def test_normalize_answer_drops_punctuation_and_articles() -> None:
    assert normalize_answer("The Cat, sat!") == "cat sat"
    assert normalize_answer("An apple a day") == "apple day"


def test_normalize_answer_keeps_words_that_only_start_like_articles() -> None:
    assert normalize_answer("Theater and another") == "theater and another"


def test_normalize_answer_drops_japanese_punctuation() -> None:
    assert normalize_answer("「デッドロック」とは？（説明）・以上。") == "デッドロックとは説明以上"


def test_normalize_answer_keeps_prolonged_sound_mark() -> None:
    assert normalize_answer("データー、") == "データー"


# --- contains_cjk ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("plain ascii", False),
        ("", False),
        ("café", False),
        ("カタカナ", True),
        ("ひらがな", True),
        ("漢字", True),
        ("한국어", True),
        ("SQLのUNION", True),
    ],
)
def test_contains_cjk(text: str, expected: bool) -> None:
    assert contains_cjk(text) is expected


# --- tokenize --------------------------------------------------------------------


def test_tokenize_english_keeps_compound_words_and_numbers() -> None:
    text = "The UNION of e-mail costs 3.14 dollars, doesn't it?"
    assert tokenize(text) == [
        "the",
        "union",
        "of",
        "e-mail",
        "costs",
        "3.14",
        "dollars",
        "doesn't",
        "it",
    ]


def test_tokenize_splits_a_dot_between_words() -> None:
    assert tokenize("end.Next 1,000") == ["end", "next", "1,000"]


def test_tokenize_keep_punct() -> None:
    assert tokenize("Hi, there!") == ["hi", "there"]
    assert tokenize("Hi, there!", keep_punct=True) == ["hi", ",", "there", "!"]


def test_tokenize_japanese_is_segmented_into_words() -> None:
    tokens = tokenize("デッドロックとは何か")
    assert len(tokens) >= 4
    assert "".join(tokens) == "デッドロックとは何か"
    assert "何" in tokens


def test_tokenize_japanese_punctuation_only_when_kept() -> None:
    assert "、" not in tokenize("東京、大阪。")
    kept = tokenize("東京、大阪。", keep_punct=True)
    assert kept == ["東京", "、", "大阪", "。"]


def test_tokenize_mixed_japanese_and_english() -> None:
    tokens = tokenize("SQLのUNION ALLとは何か？")
    assert tokens[:4] == ["sql", "の", "union", "all"]
    assert "何" in tokens
    assert "?" not in tokens


def test_tokenize_full_width_latin_is_folded() -> None:
    assert tokenize("ＵＮＩＯＮ　ＡＬＬ") == ["union", "all"]


def test_tokenize_hangul_by_spaces() -> None:
    assert tokenize("안녕하세요 세계") == ["안녕하세요", "세계"]


def test_tokenize_empty_and_punctuation_only() -> None:
    assert tokenize("") == []
    assert tokenize("。、！？ ... ") == []


def test_tokenize_gives_the_same_tokens_in_threads() -> None:
    texts = ["デッドロックとは何か", "SQLのUNION ALL", "トランザクションの分離レベル"] * 20
    expected = [tokenize(text) for text in texts]
    with ThreadPoolExecutor(max_workers=4) as pool:
        assert list(pool.map(tokenize, texts)) == expected


# --- split_sentences -------------------------------------------------------------


def test_split_sentences_japanese() -> None:
    text = "今日は晴れです。明日は雨でしょう！本当？"
    assert split_sentences(text) == ["今日は晴れです。", "明日は雨でしょう！", "本当？"]


def test_split_sentences_japanese_newlines() -> None:
    assert split_sentences("一行目\n\n二行目です。三文目") == ["一行目", "二行目です。", "三文目"]


def test_split_sentences_english_keeps_abbreviations() -> None:
    text = "Dr. Smith paid $3.14 for it. He slept! Did he?"
    assert split_sentences(text) == ["Dr. Smith paid $3.14 for it.", "He slept!", "Did he?"]


def test_split_sentences_english_newlines() -> None:
    assert split_sentences("first line\nsecond line") == ["first line", "second line"]


def test_split_sentences_mixed_lines() -> None:
    text = "Dr. Smith wrote this. It is short.\nこれは日本語です。次の文。"
    assert split_sentences(text) == [
        "Dr. Smith wrote this.",
        "It is short.",
        "これは日本語です。",
        "次の文。",
    ]


def test_split_sentences_empty() -> None:
    assert split_sentences("") == []
    assert split_sentences("  \n\n \t") == []


# --- the same tokens, faster ------------------------------------------------------------


def tokens_one_match_at_a_time(text: str, keep_punct: bool) -> list[str]:
    """How text was tokenised before: every match of the token pattern in turn, and
    each run of Japanese script through MeCab's nodes."""
    import fugashi
    import unidic_lite

    dicdir = Path(unidic_lite.DICDIR)
    tagger = fugashi.Tagger(f'-d "{dicdir}" -r "{dicdir / "mecabrc"}"')
    folded = unicodedata.normalize("NFKC", text).lower()
    tokens: list[str] = []
    for match in _TOKEN_RE.finditer(folded):
        if match.lastgroup == "japanese":
            tokens.extend(node.surface for node in tagger(match.group()))
        elif match.lastgroup == "word" or keep_punct:
            tokens.append(match.group())
    return tokens


def example_texts() -> list[str]:
    texts = []
    for path in sorted(EXAMPLES.rglob("*")):
        if path.suffix in (".md", ".txt", ".jsonl", ".yaml"):
            texts += path.read_text(encoding="utf-8").splitlines()
    return [t for t in texts if t.strip()]


@pytest.mark.parametrize("keep_punct", [False, True])
def test_tokens_are_todays_on_the_example_data(keep_punct: bool) -> None:
    texts = example_texts()
    assert len(texts) > 500
    texts += [
        "ＵＮＩＯＮ　ＡＬＬは３．１４秒",
        "e-mail don't 1,000.5 «quoted» ・中黒・",
        "ｶﾀｶﾅとＳＱＬ",
    ]
    for text in texts:
        assert tokenize(text, keep_punct=keep_punct) == tokens_one_match_at_a_time(
            text, keep_punct
        ), text


FORMS_CASES = [
    "Don't e-mail the 3.14 and 1,000 rows!",
    "  UNION\tALL\u3000keeps\n\nduplicates  ",
    "ＵＮＩＯＮ ＡＬＬ は重複行を残します。SQLのUNION ALL",
    "e.\u0301 a\u00a0an the-end. Σ ΟΔΟΣ",
    "「デッドロック」とは、二つのトランザクションが互いのロックを待つ状態です…",
    "\u2024\u2025 x\u2028y\u0085z",
    "",
]


@pytest.mark.parametrize("text", FORMS_CASES)
def test_the_shared_forms_are_the_functions_values(text: str) -> None:
    folded = unicodedata.normalize("NFKC", text).lower()
    assert fold(text) == folded
    assert normalize(text) == re.sub(r"\s+", " ", folded).strip()
    assert answer_of_folded(fold(text)) == normalize_answer(text)
    assert tokens_of_folded(fold(text)) == tokenize(text)
    answer = normalize_answer(text)
    assert tokens_of_answer(answer) == tokenize(answer)


# --- the ASCII paths give what the general patterns give ---------------------------

ASCII_PIECES = [
    *"abcXYZ019",
    *string.punctuation,
    *" \t\n\r\x0b\x0c\x1c\x1d\x1e\x1f",
    "\x00",
    "\x07",
    "\x7f",
    "a",
    "an",
    "the",
    "The",
    "A",
    "and",
    "theme",
    "3.14",
    "1,000",
    "don't",
    "e-mail",
    "x_y",
]


def random_ascii_texts(count: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    return ["".join(rng.choices(ASCII_PIECES, k=rng.randint(0, 24))) for _ in range(count)]


def test_the_ascii_paths_give_the_general_patterns_results() -> None:
    table = {ord(ch): None for ch in string.punctuation}
    texts = random_ascii_texts(20_000, seed=7) + [t for t in example_texts() if t.isascii()]
    for text in texts:
        folded = fold(text)
        general_answer = " ".join(_ARTICLES_RE.sub(" ", folded.translate(table)).split())
        assert answer_of_folded(folded) == general_answer, repr(text)
        assert tokens_of_folded(folded) == _WORDS_RE.findall(folded), repr(text)
        assert tokens_of_answer(general_answer) == _PLAIN_WORDS_RE.findall(general_answer)
        # not only answers: any ASCII text, in any case
        assert tokens_of_answer(text) == _PLAIN_WORDS_RE.findall(fold(text)), repr(text)


def test_the_punctuation_pattern_deletes_what_the_table_deletes() -> None:
    table = _punctuation_table()
    every_character = "".join(chr(c) for c in range(0x10000) if not 0xD800 <= c < 0xE000)
    kept = _punctuation_re().sub("", every_character)
    assert kept == every_character.translate(table)
    assert len(kept) < len(every_character) - 500  # the table does delete
    mixed = "「デッドロック」とは、二つの…状態です！ (e.g., 3.14) — «ok»"
    assert _punctuation_re().sub("", mixed) == mixed.translate(table)
