"""A scripted judge for the RAG suite (``faithfulness``, ``answer_relevancy``,
``context_precision``, ``context_recall``) whose replies differ from row to row in a
known way, and the score each metric must then store for each row — worked out here
from the replies and the test server's embeddings, not by the metrics' code."""

from __future__ import annotations

import json
import re
from typing import Any

import numpy as np

from ragjudge.models.scripted import hash_embedding, prompt_text

METRICS = [
    "faithfulness",
    {"metric": "answer_relevancy", "embedding": "openai/storm-embeddings"},
    "context_precision",
    "context_recall",
]
NAMES = ["faithfulness", "answer_relevancy", "context_precision", "context_recall"]
CHUNKS = 3
FEATURE = re.compile(r"feature (\d+)\b")


def rows(n: int) -> list[dict[str, Any]]:
    """Rows naming feature ``i``: a two-sentence answer and reference, three chunks."""
    return [
        {
            "request_id": f"r{i:04d}",
            "request": f"What does feature {i} do?",
            "response": f"Feature {i} compresses logs. It runs nightly.",
            "expected_response": f"Feature {i} compresses the logs. Feature {i} runs at night.",
            "retrieved_context": [
                {"doc_uri": f"doc{i}-{k}.md", "content": f"Note {k} on feature {i}."}
                for k in range(CHUNKS)
            ],
        }
        for i in range(n)
    ]


def statements(i: int) -> list[str]:
    """The statements the judge finds in row ``i``'s answer: 1 to 3."""
    return [f"Feature {i} does thing {k}." for k in range(1 + i % 3)]


def questions(i: int) -> list[str]:
    """The questions the judge says row ``i``'s answer responds to."""
    return [f"What does feature {i} do?", f"How does feature {i} work?", f"Why use feature {i}?"]


def noncommittal(i: int) -> bool:
    return i % 7 == 0


def supported(i: int, k: int) -> bool:
    """The faithfulness verdict on statement ``k`` of row ``i``."""
    return (i + k) % 3 != 0


def attributed(i: int, k: int) -> bool:
    """The context-recall verdict on sentence ``k`` of row ``i``'s reference."""
    return (i + k) % 2 == 0


def useful(i: int, k: int) -> bool:
    """The context-precision verdict on chunk ``k`` of row ``i``: the bits of ``i``."""
    return bool(i >> k & 1)


def _verdicts(text: str, item: str, verdict: Any) -> str:
    count = len(re.findall(rf"<<<BEGIN {item} \d+", text))
    return json.dumps(
        {"verdicts": [{"reason": "as scripted", "verdict": "yes" if verdict(k) else "no"}
                      for k in range(count)]}
    )  # fmt: skip


def judge_reply(messages: list[dict[str, object]]) -> str:
    """The reply to one prompt of the suite ("OK" to the pre-flight question)."""
    text = prompt_text(messages)
    found = FEATURE.search(text.lower())
    if found is None:
        return "OK"
    i = int(found.group(1))
    if "You break an answer into statements" in text:
        return json.dumps({"statements": statements(i)})
    if "You check statements against context documents" in text:
        return _verdicts(text, "STATEMENT", lambda k: supported(i, k))
    if "You check which sentences of a reference answer" in text:
        return _verdicts(text, "SENTENCE", lambda k: attributed(i, k))
    if "You judge whether each context document was useful" in text:
        return _verdicts(text, "CONTEXT", lambda k: useful(i, k))
    if "You write the questions an answer responds to" in text:
        return json.dumps({"questions": questions(i), "noncommittal": int(noncommittal(i))})
    return "OK"


def _share(flags: list[bool]) -> float:
    return sum(flags) / len(flags)


def _average_precision(flags: list[bool]) -> float:
    """The mean of precision@k over the positions k of the useful chunks; 0 without one."""
    hits = [sum(flags[: k + 1]) / (k + 1) for k, flag in enumerate(flags) if flag]
    return sum(hits) / len(hits) if hits else 0.0


def _relevancy(i: int, dim: int) -> float:
    if noncommittal(i):
        return 0.0
    question = np.asarray(hash_embedding(f"What does feature {i} do?", dim))
    others = [np.asarray(hash_embedding(q, dim)) for q in questions(i)]
    cosines = [float(question @ o / (np.linalg.norm(question) * np.linalg.norm(o))) for o in others]
    return sum(cosines) / len(cosines)


def expected(i: int, dim: int) -> dict[str, float]:
    """What each metric must store for row ``i`` (embeddings of ``dim`` numbers)."""
    return {
        "faithfulness": _share([supported(i, k) for k in range(len(statements(i)))]),
        "answer_relevancy": _relevancy(i, dim),
        "context_precision": _average_precision([useful(i, k) for k in range(CHUNKS)]),
        "context_recall": _share([attributed(i, k) for k in range(2)]),
    }
