"""Real judges' stored replies with known verdicts, read by the reply readers.

The replies are LLMBar's stored evaluator outputs (``princeton-nlp/LLMBar`` @
``900616bff90b6c6c8e1681f7d079250637c55992``, MIT licence, folder ``Dataset/LLMBar``):
six judge models (GPT-4, ChatGPT, ChatGPT-0301, PaLM2, LLaMA2, Falcon) choosing the
better of two outputs, each asked in both orders, and rating single outputs from 0 to 9.

By default the test reads the committed fixture ``real_replies/llmbar.jsonl.gz``, a
deterministic sample of up to 1,500 distinct replies per reply kind that keeps every
reply the readers turn into an explicit error (see ``real_replies/README.md``). With
``LLMBAR_DATA`` naming a copy of the upstream ``Dataset`` folder it reads every stored
reply there instead. Both are selected by the rules of ``real_replies/known.py``: a
reply's verdict is known when the reply has the form its prompt demands and that form
names the output LLMBar recorded as the judge's choice. The evaluated texts the prompt
showed are the data, so the readers' data rule is exercised on real text. Silently
wrong readings must be none, and explicit errors rare.
"""

from __future__ import annotations

import gzip
import json
import os
from collections import Counter, defaultdict
from functools import cache
from pathlib import Path

import pytest
from real_replies.known import KINDS, OUTCOMES, Known, form_verdict, outcome, upstream_replies

FIXTURE = Path(__file__).with_name("real_replies") / "llmbar.jsonl.gz"


def source() -> Path:
    """The full upstream folder named in ``LLMBAR_DATA``, else the committed fixture."""
    named = os.environ.get("LLMBAR_DATA")
    if not named:
        return FIXTURE
    if not (Path(named) / "LLMBar").is_dir():
        pytest.fail(f"LLMBAR_DATA={named} is not LLMBar's Dataset folder (no LLMBar folder in it)")
    return Path(named)


def fixture_replies(path: Path) -> list[Known]:
    """The replies stored in the fixture, with the evaluated texts their ids name."""
    texts: dict[str, str] = {}
    replies = []
    with gzip.open(path, "rt", encoding="utf-8") as lines:
        for line in lines:
            row = json.loads(line)
            if "id" in row:
                texts[row["id"]] = row["text"]
            elif "kind" in row:
                shown = tuple(texts[key] for key in row["shown"])
                replies.append(
                    Known(
                        row["kind"],
                        row["judge"],
                        row["strategy"],
                        row["reply"],
                        row["verdict"],
                        shown,
                    )
                )
    return replies


@cache
def stored_replies(path: Path) -> dict[str, list[Known]]:
    """The stored replies with a known verdict, per reply kind."""
    read = fixture_replies(path) if path == FIXTURE else upstream_replies(path)
    by_kind: dict[str, list[Known]] = defaultdict(list)
    for known in read:
        by_kind[known.kind].append(known)
    return by_kind


def test_the_fixture_keeps_the_selection_rules() -> None:
    replies = [known for kind in stored_replies(FIXTURE).values() for known in kind]
    assert {known.kind for known in replies} == set(KINDS)
    assert len(set(replies)) == len(replies), "the fixture holds a reply twice"
    assert all(form_verdict(known.kind, known.text) == known.verdict for known in replies)


@pytest.mark.parametrize("kind", KINDS)
def test_real_judges_replies_are_never_read_wrong(kind: str) -> None:
    tally = Counter(dict.fromkeys(OUTCOMES, 0))
    tally.update(outcome(known) for known in stored_replies(source())[kind])
    print(f"real judge replies, {kind}: " + ", ".join(f"{name} {tally[name]}" for name in OUTCOMES))
    total = sum(tally.values())
    assert total >= 1_000, tally
    assert tally["silently wrong"] == 0, tally
    assert tally["explicit error"] <= total // 100, tally
