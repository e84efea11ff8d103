"""A scripted judge for the RAG metrics: it recognises each kind of prompt and answers
with what a test scripts for it, and a fixed embedder that gives chosen similarities."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ragjudge.metrics import Metric, MetricContext
from ragjudge.models import JudgeCallRecord, JudgeModel, ModelSettings
from ragjudge.models.scripted import ReplyScript, ScriptedProvider, prompt_text
from ragjudge.schema import Output, Sample, Score

KINDS = {
    "You break an answer into statements.": "statements",
    "You check statements against context documents.": "faithfulness",
    "You write the questions an answer responds to.": "questions",
    "You pick out the sentences of context documents": "extract",
    "You check which sentences of a reference answer": "recall",
    "You judge whether each context document was useful": "usefulness",
    "You compare the statements of an answer": "classify",
    "You check claims against one source text.": "claims",
    "You list the entities of a text.": "entities",
}


def kind_of(prompt: str) -> str:
    return next(kind for opening, kind in KINDS.items() if prompt.startswith(opening))


class Judge:
    """Answers each kind of prompt with ``replies[kind]`` (a string, or a function of
    the prompt), counting the calls of each kind."""

    def __init__(self, **replies: str | Callable[[str], str]) -> None:
        self.replies = replies
        self.calls: Counter[str] = Counter()
        self.prompts: dict[str, list[str]] = {}

    def __call__(self, messages: list[dict[str, Any]]) -> str:
        prompt = prompt_text(messages)
        kind = kind_of(prompt)
        self.calls[kind] += 1
        self.prompts.setdefault(kind, []).append(prompt)
        reply = self.replies[kind]
        return reply(prompt) if callable(reply) else reply

    def model(self, records: list[JudgeCallRecord] | None = None) -> JudgeModel:
        async def record(call: JudgeCallRecord) -> int:
            if records is not None:
                records.append(call)
            return len(records or [])

        return JudgeModel(
            ScriptedProvider(ReplyScript(function=self)),
            settings=ModelSettings(cache=False, reask_limit=1),
            recorder=record,
        )


def block(prompt: str, label: str) -> str:
    """The text of the prompt's ``label`` block."""
    return prompt.split(f"<<<BEGIN {label}>>>\n", 1)[1].split(f"\n<<<END {label}>>>", 1)[0]


def claim_checks(supported: set[tuple[str, str]]) -> Callable[[str], str]:
    """Claim-check replies: yes for each (source, claim) pair in ``supported``."""

    def reply(prompt: str) -> str:
        source = block(prompt, "SOURCE")
        claims = [block(prompt, f"CLAIM {i}") for i in range(1, prompt.count("<<<BEGIN CLAIM") + 1)]
        return verdicts(*("yes" if (source, c) in supported else "no" for c in claims))

    return reply


def statements(*items: str) -> str:
    return json.dumps({"statements": list(items)}, ensure_ascii=False)


def verdicts(*items: str) -> str:
    return json.dumps({"verdicts": [{"reason": "r", "verdict": v} for v in items]})


class FixedEmbedder:
    """The first text's vector is [1, 0]; the others make the given cosines with it."""

    name = "fixed"

    def __init__(self, similarities: Sequence[float]) -> None:
        self.similarities = list(similarities)

    async def embed(self, texts: list[str]) -> Any:
        rows = [[1.0, 0.0]] + [[s, float(np.sqrt(1 - s * s))] for s in self.similarities]
        return np.asarray(rows[: len(texts)], dtype=np.float32)


async def score(
    metric: Metric, sample: Sample, output: Output, judge: JudgeModel, **embedders: Any
) -> Score:
    ctx = MetricContext(judge=judge, embedders=embedders)
    (found,) = await metric.score(sample, output, ctx)
    return found
