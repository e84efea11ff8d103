"""Produce ``trace.json``: a real MLflow trace of a toy RAG function, and put it into the
``traced`` row of ``evalset.jsonl`` (a row that holds only a request and a trace).

The toy system rewrites the question (an LLM span), retrieves twice from a three-document
Spark corpus (two RETRIEVER spans: with the question, then with the rewritten query), and
answers from the best chunk (a CHAT_MODEL span). Token counts are words, reported on each
model span the way MLflow's integrations report them. Nothing is called over the network;
the trace is kept in a throw-away local tracking store.

    pip install 'ragjudge[mlflow]'
    python examples/databricks/make_trace.py
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any

import mlflow
from mlflow.entities import Document, SpanType

HERE = Path(__file__).resolve().parent
QUESTION = "Why is reduceByKey usually faster than groupByKey in Spark?"
CORPUS = {
    "spark/rdd-reduce-by-key.md": (
        "reduceByKey merges the values of each key on every partition before the shuffle, "
        "so only one partial result per key and partition crosses the network."
    ),
    "spark/rdd-group-by-key.md": (
        "groupByKey shuffles every key-value pair across the network and only then groups "
        "the values, which costs more network traffic and memory."
    ),
    "spark/broadcast.md": (
        "Broadcast variables keep a read-only value cached on every machine instead of "
        "shipping a copy with each task."
    ),
}
USAGE_ATTRIBUTE = "mlflow.chat.tokenUsage"


def words(text: str) -> list[str]:
    return [w.strip(".,?").lower() for w in text.split() if w.strip(".,?")]


def report_usage(prompt: str, completion: str) -> None:
    """Token usage on the current model span, as MLflow's LLM integrations record it."""
    used = {"input_tokens": len(words(prompt)), "output_tokens": len(words(completion))}
    used["total_tokens"] = used["input_tokens"] + used["output_tokens"]
    span = mlflow.get_current_active_span()
    if span is not None:
        span.set_attribute(USAGE_ATTRIBUTE, used)


@mlflow.trace(span_type=SpanType.LLM)
def rewrite(question: str) -> str:
    """A stand-in for a query-rewriting model: keeps the content words."""
    kept = [w for w in words(question) if w not in {"why", "is", "usually", "than", "in"}]
    rewritten = " ".join([*kept, "shuffle", "network"])
    report_usage(question, rewritten)
    return rewritten


@mlflow.trace(span_type=SpanType.RETRIEVER)
def retrieve(query: str, k: int = 2) -> list[Document]:
    """The ``k`` documents sharing the most words with ``query``."""
    wanted = set(words(query))
    ranked = sorted(CORPUS, key=lambda uri: -len(wanted & set(words(CORPUS[uri]))))
    return [Document(page_content=CORPUS[uri], metadata={"doc_uri": uri}) for uri in ranked[:k]]


@mlflow.trace(span_type=SpanType.CHAT_MODEL)
def generate(messages: list[dict[str, str]]) -> dict[str, Any]:
    """A stand-in for a chat model: answers with the first sentence of the best chunk."""
    context = messages[0]["content"].split("\n\n")[1]
    answer = (
        "Because " + context.split(", so ")[0] + ", so much less data is shuffled than "
        "with groupByKey, which sends every pair over the network."
    )
    report_usage(" ".join(m["content"] for m in messages), answer)
    return {"choices": [{"message": {"role": "assistant", "content": answer}}]}


@mlflow.trace(span_type=SpanType.AGENT)
def answer(question: str) -> str:
    """The toy RAG system under test."""
    retrieve(question, k=3)  # a wide first pass; the answer uses the second, narrower one
    chunks = retrieve(rewrite(question))
    prompt = "Answer from the context.\n\n" + chunks[0].page_content + "\n\nQuestion: " + question
    reply = generate([{"role": "system", "content": prompt}, {"role": "user", "content": question}])
    return str(reply["choices"][0]["message"]["content"])


def traced_answer(question: str) -> dict[str, Any]:
    """Run the system once and return its trace as MLflow's JSON. The tracking store
    and its artifacts live in a temporary folder (the working folder while tracing, so
    no local path of this machine ends up in the trace)."""
    here = Path.cwd()
    with tempfile.TemporaryDirectory() as store:
        os.chdir(store)
        mlflow.set_tracking_uri(f"sqlite:///{store}/mlflow.db")
        try:
            answer(question)
            mlflow.flush_trace_async_logging()
            trace_id = mlflow.get_last_active_trace_id()
            trace = mlflow.get_trace(trace_id) if trace_id else None
        finally:
            os.chdir(here)
        if trace is None:
            raise RuntimeError("MLflow recorded no trace")
        found: dict[str, Any] = json.loads(trace.to_json())
        return found


def update_evalset(trace: dict[str, Any]) -> None:
    """Replace (or add) the ``traced`` row of ``evalset.jsonl``."""
    path = HERE / "evalset.jsonl"
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]
    row = {"request_id": "traced", "request": QUESTION, "trace": trace}
    rows = [r for r in rows if r.get("request_id") != "traced"] + [row]
    text = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows)
    path.write_text(text, encoding="utf-8")


def main() -> None:
    trace = traced_answer(QUESTION)
    (HERE / "trace.json").write_text(
        json.dumps(trace, ensure_ascii=False, indent=2) + "\n", encoding="utf-8"
    )
    update_evalset(trace)
    print(f"wrote {HERE / 'trace.json'} and the 'traced' row of {HERE / 'evalset.jsonl'}")


if __name__ == "__main__":
    main()
