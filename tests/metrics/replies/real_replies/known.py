"""Which of LLMBar's stored judge replies have a known verdict, and how each reply kind
is read — one definition for the test (``test_real_replies.py``) and for ``build.py``,
which derives the committed fixture from the upstream ``Dataset`` folder.

A reply's verdict is known when the reply has the form its prompt demands and that form
names the output LLMBar recorded as the judge's choice (the ``winner`` of the reply's
entry, not the gold label): reasoning prompts (strategies with "CoT" in the name) end
with "Therefore, Output (a) is better." (read as ``cot_classify``), the other pairwise
prompts open with "Output (a)" alone on the first line (read as ``classify`` and as
``classify_cot``), rating prompts (strategies starting with "Rating") are the score 0-9
alone (read as a bare rating). The texts the prompt showed the judge — the instruction
and the output(s) — go with the reply, so the readers' data rule is exercised on real
text.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ragjudge.metrics.replies import ChoiceReply, Evaluated, ParseError, ResultScore

KINDS = ("cot_classify", "classify", "classify_cot", "bare rating")
OUTCOMES = ("read right", "explicit error", "silently wrong")
PAIR = ["Output (a)", "Output (b)"]
REASONED_END = re.compile(r"Therefore, (Output \([ab]\)) is better\.\s*\Z")
ANSWER_FIRST = re.compile(r"\s*(Output \([ab]\))\.?\s*(?:\n|\Z)")
SCORE_ALONE = re.compile(r"\s*([0-9])\s*")
RESULT_FILES = "LLMBar/**/evaluators/*/*/result.json"


@dataclass(frozen=True)
class Known:
    """A stored reply with a known verdict: the kind it is read as, the judge model and
    prompting strategy that wrote it, and the texts its prompt showed the judge."""

    kind: str
    judge: str
    strategy: str
    text: str
    verdict: str | int
    shown: tuple[str, ...]


def upstream_replies(dataset: Path) -> Iterator[Known]:
    """Every stored reply with a known verdict in LLMBar's ``Dataset`` folder, in file
    order (a reply read as two kinds comes once per kind)."""
    for path in sorted(dataset.glob(RESULT_FILES)):
        judge, strategy = path.parent.parent.name, path.parent.name
        for instance in json.loads(path.read_text(encoding="utf-8")):
            for result in instance["results"]:
                if isinstance(result, dict):  # lists are a strategy's auxiliary outputs
                    yield from known_replies(judge, strategy, instance, result)


def known_replies(
    judge: str, strategy: str, instance: dict[str, Any], result: dict[str, Any]
) -> Iterator[Known]:
    """The replies of one result of one instance whose verdict is known."""
    if strategy.startswith("Rating"):
        for index in (1, 2):
            text = result.get(f"score_{index}", [""])[0]
            score = form_verdict("bare rating", text)
            if score is not None:
                shown: tuple[str, ...] = (instance["input"], instance[f"output_{index}"])
                yield Known("bare rating", judge, strategy, text, score, shown)
        return
    shown = (instance["input"], instance["output_1"], instance["output_2"])
    kinds = ("cot_classify",) if "CoT" in strategy else ("classify", "classify_cot")
    for swap in (False, True):
        entry = result.get(f"swap = {swap}", {})
        if "completion" not in entry or entry.get("winner") not in ("1", "2"):
            continue
        text = entry["completion"][0]
        # the recorded winner numbers the outputs as stored; swapped, the prompt showed
        # output_2 as Output (a)
        winner = "Output (a)" if (entry["winner"] == "1") != swap else "Output (b)"
        if form_verdict(kinds[0], text) == winner:
            for kind in kinds:
                yield Known(kind, judge, strategy, text, winner, shown)


def form_verdict(kind: str, text: str) -> str | int | None:
    """The verdict named by the form the prompt demands of a reply read as ``kind``, or
    None when the reply does not have that form."""
    if kind == "bare rating":
        score = SCORE_ALONE.fullmatch(text)
        return None if score is None else int(score.group(1))
    reasoned = kind == "cot_classify"
    form = REASONED_END.search(text.strip()) if reasoned else ANSWER_FIRST.match(text)
    return None if form is None else form.group(1)


_EVALUATED: dict[tuple[str, ...], Evaluated] = {}


def evaluated(shown: tuple[str, ...]) -> Evaluated:
    """The evaluated texts of a prompt, indexed once for every reply to them."""
    if shown not in _EVALUATED:
        _EVALUATED[shown] = Evaluated(shown)
    return _EVALUATED[shown]


def read(kind: str, text: str, shown: Sequence[str]) -> str | int:
    """The verdict the reply readers read from ``text`` as ``kind`` (raises
    :class:`ParseError` for a reply they cannot read)."""
    data = evaluated(tuple(shown))
    if kind == "bare rating":
        return ResultScore(0, 9, bare=True).parse(text, evaluated=data).score
    return ChoiceReply(PAIR, kind).parse(text, evaluated=data)


def outcome(known: Known) -> str:
    """Read right, explicit error or silently wrong."""
    try:
        verdict = read(known.kind, known.text, known.shown)
    except ParseError:
        return "explicit error"
    return "read right" if verdict == known.verdict else "silently wrong"
