"""Real judges' stored replies with known verdicts, read by the reply readers.

The replies are LLMBar's stored evaluator outputs (``princeton-nlp/LLMBar`` @
``900616bff90b6c6c8e1681f7d079250637c55992``, MIT licence, folder ``Dataset/LLMBar``,
copied unchanged to ``../shared/data/llmbar/Dataset/LLMBar``; ``LLMBAR_DATA`` may name
another copy of that ``Dataset`` folder): six judge models (GPT-4, ChatGPT, ChatGPT-0301,
PaLM2, LLaMA2, Falcon) choosing the better of two outputs, each asked in both orders,
and rating single outputs from 0 to 9.

A reply's verdict is known when the reply has the form its prompt demands and that form
names the same output as the benchmark's recorded winner: reasoning prompts end with
"Therefore, Output (a) is better." (read as ``cot_classify``), answer-only prompts open
with "Output (a)" alone on the first line (read as ``classify`` and ``classify_cot``),
rating prompts are the score alone (read as a bare rating). The evaluated texts the
prompt showed (the instruction and both outputs) are the data, so the readers' data
rule is exercised on real text. Silently wrong readings must be none, and explicit
errors rare.
"""

from __future__ import annotations

import json
import os
import re
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from conftest import SHARED_DATA
from ragjudge.metrics.replies import ChoiceReply, Evaluated, ParseError, ResultScore

FOLDER = Path(os.environ.get("LLMBAR_DATA", SHARED_DATA / "llmbar" / "Dataset"))
PAIR = ["Output (a)", "Output (b)"]
REASONED_END = re.compile(r"Therefore, (Output \([ab]\)) is better\.\s*\Z")
ANSWER_FIRST = re.compile(r"\s*(Output \([ab]\))\.?\s*(?:\n|\Z)")
SCORE_ALONE = re.compile(r"\s*([0-9])\s*")
READERS: dict[str, Callable[[str, Evaluated], Any]] = {
    "cot_classify": lambda text, data: ChoiceReply(PAIR, "cot_classify").parse(
        text, evaluated=data
    ),
    "classify": lambda text, data: ChoiceReply(PAIR, "classify").parse(text, evaluated=data),
    "classify_cot": lambda text, data: ChoiceReply(PAIR, "classify_cot").parse(
        text, evaluated=data
    ),
    "bare rating": lambda text, data: (
        ResultScore(0, 9, bare=True).parse(text, evaluated=data).score
    ),
}


@dataclass(frozen=True)
class Known:
    """A stored reply, the reply kind it is read as, its known verdict and the texts
    its prompt showed the judge."""

    kind: str
    text: str
    verdict: str | int
    shown: Evaluated


def stored_replies(kind: str) -> Iterator[Known]:
    """The stored replies with a known verdict that are read as ``kind``."""
    if not FOLDER.is_dir():
        pytest.skip(
            f"LLMBar's stored judge outputs are not at {FOLDER} (copy the Dataset folder of "
            "princeton-nlp/LLMBar there, or name it in LLMBAR_DATA)"
        )
    for path in sorted(FOLDER.glob("LLMBar/**/evaluators/*/*/result.json")):
        strategy = path.parent.name
        for instance in json.loads(path.read_text(encoding="utf-8")):
            for result in instance["results"]:
                if isinstance(result, dict):  # lists are a strategy's auxiliary outputs
                    yield from (k for k in _known(strategy, instance, result) if k.kind == kind)


_SHOWN: dict[tuple[str, ...], Evaluated] = {}


def shown(*texts: str) -> Evaluated:
    """The evaluated texts of a prompt, indexed once for every reply to them."""
    key = tuple(sorted(texts))
    if key not in _SHOWN:
        _SHOWN[key] = Evaluated(texts)
    return _SHOWN[key]


def _known(strategy: str, instance: dict[str, Any], result: dict[str, Any]) -> Iterator[Known]:
    if strategy.startswith("Rating"):
        for index in (1, 2):
            text = result.get(f"score_{index}", [""])[0]
            if SCORE_ALONE.fullmatch(text):
                prompt = shown(instance["input"], instance[f"output_{index}"])
                yield Known("bare rating", text, int(text), prompt)
        return
    for swap in (False, True):
        entry = result.get(f"swap = {swap}", {})
        if "completion" not in entry or entry.get("winner") not in ("1", "2"):
            continue
        text = entry["completion"][0]
        winner = "Output (a)" if (entry["winner"] == "1") != swap else "Output (b)"
        prompt = shown(instance["input"], instance["output_1"], instance["output_2"])
        reasoned = "CoT" in strategy
        form = REASONED_END.search(text.strip()) if reasoned else ANSWER_FIRST.match(text)
        if form is None or form.group(1) != winner:
            continue
        for kind in ("cot_classify",) if reasoned else ("classify", "classify_cot"):
            yield Known(kind, text, winner, prompt)


def outcomes(kind: str) -> Counter[str]:
    """Read right, explicit error or silently wrong, for the replies read as ``kind``."""
    tally: Counter[str] = Counter()
    for known in stored_replies(kind):
        try:
            read = READERS[kind](known.text, known.shown)
        except ParseError:
            tally["explicit error"] += 1
            continue
        tally["read right" if read == known.verdict else "silently wrong"] += 1
    return tally


@pytest.mark.parametrize("kind", list(READERS))
def test_real_judges_replies_are_never_read_wrong(kind: str) -> None:
    tally = outcomes(kind)
    total = sum(tally.values())
    assert total >= 1_000, tally
    assert tally["silently wrong"] == 0, tally
    assert tally["explicit error"] <= total // 100, tally
