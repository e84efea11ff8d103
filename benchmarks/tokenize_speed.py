"""The language-aware tokenizer on 10,000 short mixed Japanese and English sentences.

``ragjudge.text.tokenize`` splits Japanese with MeCab and the rest into words; every
lexical metric calls it on every response and reference. The tagger is built before
the timed loop (its one-off start is not the per-text cost). Best of ``--repeat`` runs.

Bound (the one the unit test held before it stopped timing): at most 3 s for 10,000
sentences. Exit status 1 when it is missed. Run with::

    .venv/bin/python benchmarks/tokenize_speed.py [--sentences N] [--repeat N]
"""

from __future__ import annotations

import argparse
import time

import _corpus
import _machine

from ragjudge.text import tokenize

MAX_SECONDS = 3.0
SENTENCES = 10_000


def sentences(count: int) -> list[str]:
    return [f"デッドロックとは何か{i}。SQLのUNION ALL {i} rows." for i in range(count)]


def timed(texts: list[str]) -> tuple[float, int]:
    """Seconds to tokenize every text, and the number of tokens."""
    started = time.perf_counter()
    total = sum(len(tokenize(text)) for text in texts)
    return time.perf_counter() - started, total


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--sentences", type=int, default=SENTENCES)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    texts = sentences(args.sentences)
    tokenize(texts[0])  # build the tagger outside the timed loop
    _machine.print_machine("start")
    runs = [timed(texts) for _ in range(args.repeat)]
    best, tokens = min(runs)
    print(f"{args.sentences} sentences, {tokens} tokens; best of {args.repeat} runs")
    _machine.print_machine("end")
    bound = MAX_SECONDS * args.sentences / SENTENCES
    line = _corpus.ratio_line(f"tokenize {args.sentences} sentences", best, bound)
    print(line)
    return 0 if "FAIL" not in line else 1


if __name__ == "__main__":
    raise SystemExit(main())
