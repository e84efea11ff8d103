"""A scripted judge that answers seed 003's prompts as the seed reports its judge did:
the rubric verdicts of the seed's tables, and Likert ratings drawn from a given
distribution per method and response (the seed's 50 trials: method 1 5/50 for both
responses; method 2 5/50 for response 1, 3: 14 and 4: 36 for response 2)."""

from __future__ import annotations

import itertools
import json
import random
import re
import threading
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from ragjudge.models import ChatMessage

EXAMPLE = Path(__file__).resolve().parents[3] / "examples" / "rubric"
ROWS = [
    json.loads(line)
    for line in (EXAMPLE / "evalset.jsonl").read_text(encoding="utf-8").splitlines()
    if line.strip()
]
SEED_MET = {
    "response-1": [True, True, True, True, False, True, True, True, False, True, False, False],
    "response-2": [True, True] + [False] * 10,
}
"""criteria_met per rubric item (rubric order) in the seed's tables."""

_ITEM = re.compile(r"<<<BEGIN RUBRIC ITEM \[[-\d.]+\]>>>\n(.*?)\n<<<END RUBRIC ITEM", re.DOTALL)


def response_of(prompt: str) -> str | None:
    """Which of the example's responses the prompt shows (None: neither)."""
    for row in ROWS:
        if row["response"].splitlines()[0] in prompt:
            return str(row["request_id"])
    return None


def method_of(prompt: str) -> str:
    """``rubric``, ``specific`` (criteria shown) or ``general``."""
    if "<<<BEGIN RUBRIC ITEM" in prompt:
        return "rubric"
    return "specific" if "<<<BEGIN CRITERION" in prompt else "general"


def rubric_reply(prompt: str, flip: Callable[[], bool] = lambda: False) -> str:
    """The seed's verdict on the item the prompt shows (flipped when ``flip()``)."""
    criterion = _ITEM.search(prompt)
    assert criterion is not None
    criteria = [item["criterion"] for item in ROWS[0]["rubric"]]
    response = response_of(prompt)
    assert response is not None, "the prompt shows neither response"
    met = SEED_MET[response][criteria.index(criterion.group(1))]
    if flip():
        met = not met
    verdict = {"explanation": "基準に照らして判定しました。", "criteria_met": met}
    return "```json\n" + json.dumps(verdict, ensure_ascii=False) + "\n```"


def likert_reply(rating: int) -> str:
    return "```json\n" + json.dumps({"explanation": "理由です。", "rating": rating}) + "\n```"


class SeedJudge:
    """The reply function of a :class:`~ragjudge.models.scripted.ReplyScript`.

    ``ratings[(method, response)]`` is a list of ratings handed out in turn (the exact
    counts of a distribution over the trials) or a callable drawing one; ``flip_rate``
    is the chance that a rubric verdict comes out opposite to the seed's.
    """

    def __init__(
        self,
        ratings: Mapping[tuple[str, str], Sequence[int] | Callable[[], int]] | None = None,
        *,
        flip_rate: float = 0.0,
        seed: int = 0,
    ) -> None:
        given = ratings if ratings is not None else seed_ratings()
        self._ratings = {
            key: (source if callable(source) else itertools.cycle(source).__next__)
            for key, source in given.items()
        }
        self._random = random.Random(seed)
        self._flip_rate = flip_rate
        self._lock = threading.Lock()

    def __call__(self, messages: list[ChatMessage]) -> str | None:
        """The reply to a judge prompt about the example; None for any other prompt
        (the script's default answers it)."""
        prompt = "\n".join(str(m["content"]) for m in messages)
        response = response_of(prompt)
        if response is None:
            return None
        with self._lock:
            method = method_of(prompt)
            if method == "rubric":
                return rubric_reply(prompt, lambda: self._random.random() < self._flip_rate)
            return likert_reply(self._ratings[(method, response)]())


def seed_ratings() -> dict[tuple[str, str], Any]:
    """The seed's reported rating counts over 50 trials."""
    return {
        ("general", "response-1"): [5],
        ("general", "response-2"): [5],
        ("specific", "response-1"): [5],
        ("specific", "response-2"): [3] * 14 + [4] * 36,
    }
