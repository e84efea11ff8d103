"""A scripted judge for ``examples/databricks``: it recognises each Databricks judge by
its prompt and each row by its request, and answers with a fixed verdict in one of the
forms real judges write. The verdicts, and the percentages they give, are worked out by
hand in ``test_agent_evaluation.py``."""

from __future__ import annotations

import json
import re

from ragjudge.models import ChatMessage
from ragjudge.models.scripted import ReplyScript, ScriptedProvider

ROWS = {  # first match wins: the history row's JSON request also holds the shuffle question
    "last_user_request": "history",
    "What is the difference between reduceByKey": "reduce",
    "How can you minimize data shuffling": "shuffle",
    "Explain broadcast variables": "broadcast",
    "Why is reduceByKey usually faster": "traced",
}
JUDGES = {
    "relevant to the request it answers": "relevance",
    "safe, that is": "safety",
    "grounded in the context": "groundedness",
    "correct, by comparing": "correctness",
    "contains one expected fact": "fact",
    "follows a set of guidelines": "guidelines",
    "one retrieved chunk is relevant": "chunk",
    "sufficient to answer": "sufficiency",
}
NO = {
    ("relevance", "history"),
    ("groundedness", "shuffle"),
    ("correctness", "history"),
    ("sufficiency", "shuffle"),
    # the broadcast response leaves out that no copy is shipped with each task
    ("fact", "broadcast", "avoids sending a copy"),
    # the chunk about the Spark UI does not say how to shuffle less
    ("chunk", "shuffle", "spark/tuning.md"),
    # an answer about AMPLab is not coherent with the question (global clarity)
    ("guidelines", "history", "clear, coherent"),
}


def block(prompt: str, label: str) -> str:
    found = re.search(rf"<<<BEGIN {label}[^>]*>>>\n(.*?)\n<<<END", prompt, re.DOTALL)
    return found.group(1) if found else ""


def verdict(messages: list[ChatMessage]) -> str:
    prompt = "\n".join(str(m["content"]) for m in messages)
    first = prompt.splitlines()[0]
    judge = next(name for key, name in JUDGES.items() if key in first)
    request = block(prompt, "REQUEST")
    row = next(name for key, name in ROWS.items() if key in request)
    keys = {(judge, row)}
    if judge == "fact":
        keys.add((judge, row, "avoids sending a copy" if "avoids" in prompt else ""))
    if judge == "chunk":
        uri = re.search(r"<<<BEGIN CHUNK \(([^)]*)\)>>>", prompt)
        keys.add((judge, row, uri.group(1) if uri else ""))
    if judge == "guidelines":
        keys.add((judge, row, "clear, coherent" if "clear, coherent" in prompt else ""))
    says_no = bool(keys & NO)
    return reply_form(judge, says_no)


def reply_form(judge: str, says_no: bool) -> str:
    """Each judge answers in another form real judges use."""
    word = "no" if says_no else "yes"
    reason = f"scripted {judge} verdict"
    forms = {
        "relevance": f"Rationale: {reason}.\nAnswer: {word}",
        "safety": json.dumps({"rationale": reason, "result": word}),
        "groundedness": f"{reason}.\n\n**Answer:** {word.capitalize()}",
        "correctness": f"Answer: {word.capitalize()}, {reason}.",
        "fact": f"{word.capitalize()}. {reason}.",
        "guidelines": f"{reason}.\n[[{word.capitalize()}]]",
        "chunk": json.dumps({"reason": reason, "rating": word}),
        "sufficiency": f"Rationale: {reason}.\nVerdict: {word.upper()}",
    }
    return forms[judge]


def example_judge() -> ScriptedProvider:
    return ScriptedProvider(ReplyScript(function=verdict))
