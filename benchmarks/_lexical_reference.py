"""The bare-library reference of ``lexical_run.py``: the same rows read, tokenised and
scored, and the scores stored, with the libraries alone and nothing of ragjudge.

Run as a child process the way ``ragjudge run`` is (``python _lexical_reference.py
SET.jsonl STORE.db``), so it pays the same interpreter start and pandas import. Per
row and reference: NFKC and lower case, tokens from MeCab (fugashi with UniDic) for
Japanese text and a word pattern for the rest, then exact match, containment (fuzzy
match), token F1 and word recall in plain Python; the four scores of every row go into
one SQLite table with one ``executemany``. One process, one thread. ROUGE-L's longest
common subsequence is left out: no light library computes it fast on token lists, and
a plain-Python table would take several times the whole command and measure Python's
loops rather than the machine's share of the work.
"""

from __future__ import annotations

import json
import re
import sqlite3
import sys
import unicodedata
from collections import Counter
from pathlib import Path

import fugashi
import pandas as pd
import unidic_lite

WORDS = re.compile(r"\w+")
JAPANESE = re.compile(r"[\u3040-\u30ff\u4e00-\u9fff]")


def tagger() -> fugashi.GenericTagger:
    """MeCab with UniDic writing space-separated surface forms."""
    folder = Path(unidic_lite.DICDIR)
    return fugashi.GenericTagger(f'-d "{folder}" -r "{folder / "mecabrc"}" -Owakati')


def tokens(text: str, mecab: fugashi.GenericTagger) -> list[str]:
    """Lower-cased NFKC tokens: MeCab's for Japanese text, words for the rest."""
    folded = unicodedata.normalize("NFKC", text).lower()
    if JAPANESE.search(folded):
        return WORDS.findall(mecab.parse(folded))
    return WORDS.findall(folded)


def scores(response: list[str], reference: list[str]) -> tuple[float, ...]:
    """Exact match, containment, token F1 and word recall."""
    common = sum((Counter(response) & Counter(reference)).values())
    f1 = 2 * common / (len(response) + len(reference)) if response and reference else 0.0
    recall = common / len(reference) if reference else 0.0
    joined, wanted = " ".join(response), " ".join(reference)
    return float(joined == wanted), float(wanted in joined or joined in wanted), f1, recall


def main(data: Path, store: Path) -> None:
    """Read, score and store every row of ``data``."""
    frame = pd.DataFrame(json.loads(line) for line in data.read_text("utf-8").splitlines())
    mecab = tagger()
    rows: list[tuple[str, int, float]] = []
    for request_id, response, expected in zip(
        frame["request_id"], frame["response"], frame["expected_response"], strict=True
    ):
        answer = tokens(response, mecab)
        references = expected if isinstance(expected, list) else [expected]
        best = [
            max(values)
            for values in zip(*(scores(answer, tokens(r, mecab)) for r in references), strict=True)
        ]
        rows.extend((request_id, metric, value) for metric, value in enumerate(best))
    with sqlite3.connect(store) as conn:
        conn.execute("CREATE TABLE scores (request_id TEXT, metric INTEGER, value REAL)")
        conn.executemany("INSERT INTO scores VALUES (?, ?, ?)", rows)
    print(f"{len(frame)} rows, {len(rows)} scores")


if __name__ == "__main__":
    main(Path(sys.argv[1]), Path(sys.argv[2]))
