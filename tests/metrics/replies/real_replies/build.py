"""Derive the committed fixture ``llmbar.jsonl.gz`` from LLMBar's ``Dataset`` folder.

Run by hand, from the repository's root, with the project's environment::

    python tests/metrics/replies/real_replies/build.py /path/to/LLMBar/Dataset

The folder is the ``Dataset`` folder of ``princeton-nlp/LLMBar`` at the commit named in
``COMMIT`` below (change it when rebuilding from another commit). The script selects
the stored judge replies whose verdict is known, by the rules of ``known.py`` (the ones
the test applies to a full folder), and then, per reply kind:

- drops duplicates (the same kind, judge, strategy, reply, verdict and evaluated texts);
- keeps every reply the reply readers do not read right today (explicit errors — the
  hard cases — and any silently wrong reading);
- fills up to ``PER_KIND`` replies, stratified over (judge model, prompting strategy):
  each stratum gets an equal share, a stratum with fewer replies than its share gives
  the rest to the others, and within a stratum the replies with the lowest SHA-256 of
  (judge, strategy, reply, evaluated texts) are taken. The kind is not hashed, so
  ``classify`` and ``classify_cot`` (the same replies, read by two readers) take the same
  sample.

The output is deterministic: no randomness, sorted lines, and a gzip header without a
time stamp or file name, so a rebuild from the same folder gives the same bytes. Each
evaluated text (an instruction or an output) is stored once and named by the first
twelve hex digits of its SHA-256. It prints, per kind, what it kept; the test's bounds
(at least 1,000 replies, no silently wrong reading, at most 1 % explicit errors) must
hold on the sample, and the script says so when they do not.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import sys
from collections import Counter, defaultdict
from pathlib import Path

from known import KINDS, Known, outcome, upstream_replies

REPO = "princeton-nlp/LLMBar"
COMMIT = "900616bff90b6c6c8e1681f7d079250637c55992"
FOLDER = "Dataset/LLMBar"
PER_KIND = 1_500
OUTPUT = Path(__file__).resolve().with_name("llmbar.jsonl.gz")


def digest(*parts: object) -> str:
    """The SHA-256 of ``parts`` written as JSON, in hex."""
    text = json.dumps(parts, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def text_id(text: str) -> str:
    """The name of an evaluated text in the fixture."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:12]


def sample(replies: set[Known], size: int) -> tuple[list[Known], Counter[str]]:
    """The replies of one kind the fixture keeps, and the outcomes among them."""
    outcomes = {reply: outcome(reply) for reply in replies}
    kept = [reply for reply in replies if outcomes[reply] != "read right"]
    strata: dict[tuple[str, str], list[Known]] = defaultdict(list)
    for reply in replies:
        if outcomes[reply] == "read right":
            strata[(reply.judge, reply.strategy)].append(reply)
    left = max(0, size - len(kept))
    by_size = sorted(strata.items(), key=lambda item: (len(item[1]), item[0]))
    for position, (_, members) in enumerate(by_size):
        share = min(len(members), left // (len(by_size) - position))
        members.sort(key=lambda r: digest(r.judge, r.strategy, r.text, r.shown))
        kept.extend(members[:share])
        left -= share
    return kept, Counter(outcomes[reply] for reply in kept)


def lines(kept: list[Known]) -> list[str]:
    """The fixture's lines: a header naming the source, the evaluated texts, the replies."""
    texts = {text_id(text): text for reply in kept for text in reply.shown}
    if len(texts) != len({text for reply in kept for text in reply.shown}):
        raise SystemExit("two evaluated texts share a name: lengthen text_id")
    header = {
        "source": f"https://github.com/{REPO}",
        "commit": COMMIT,
        "folder": FOLDER,
        "licence": "MIT, see LICENSE-LLMBar",
        "derived": "sample of the stored judge replies with a known verdict; see README.md",
    }
    rows = [
        {
            "kind": reply.kind,
            "judge": reply.judge,
            "strategy": reply.strategy,
            "reply": reply.text,
            "verdict": reply.verdict,
            "shown": [text_id(text) for text in reply.shown],
        }
        for reply in kept
    ]
    rows.sort(
        key=lambda row: (
            KINDS.index(str(row["kind"])),
            json.dumps(row, ensure_ascii=False, sort_keys=True),
        )
    )
    dump = [json.dumps(header, ensure_ascii=False)]
    dump += [
        json.dumps({"id": key, "text": texts[key]}, ensure_ascii=False) for key in sorted(texts)
    ]
    dump += [json.dumps(row, ensure_ascii=False) for row in rows]
    return dump


def main(argv: list[str]) -> int:
    if len(argv) != 2 or not Path(argv[1], "LLMBar").is_dir():
        print(f"usage: python {argv[0]} /path/to/LLMBar/Dataset", file=sys.stderr)
        return 2
    by_kind: dict[str, set[Known]] = defaultdict(set)
    for reply in upstream_replies(Path(argv[1])):
        by_kind[reply.kind].add(reply)
    kept: list[Known] = []
    bounds_hold = True
    for kind in KINDS:
        chosen, tally = sample(by_kind[kind], PER_KIND)
        kept += chosen
        total = sum(tally.values())
        holds = (
            total >= 1_000
            and tally["silently wrong"] == 0
            and tally["explicit error"] <= total // 100
        )
        bounds_hold = bounds_hold and holds
        print(
            f"{kind}: {len(by_kind[kind])} distinct replies upstream, {total} kept in "
            f"{len({(r.judge, r.strategy) for r in chosen})} strata (read right "
            f"{tally['read right']}, explicit error {tally['explicit error']}, silently wrong "
            f"{tally['silently wrong']}){'' if holds else ' — THE TEST BOUNDS DO NOT HOLD'}"
        )
    data = ("\n".join(lines(kept)) + "\n").encode("utf-8")
    with OUTPUT.open("wb") as raw, gzip.GzipFile("", "wb", 9, raw, mtime=0) as packed:
        packed.write(data)
    print(f"wrote {OUTPUT} ({OUTPUT.stat().st_size:,} bytes, {len(data):,} uncompressed)")
    return 0 if bounds_hold else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
