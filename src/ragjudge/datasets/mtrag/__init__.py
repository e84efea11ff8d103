"""Loaders for the MTRAG multi-turn RAG benchmark files (``../shared/data/mtrag-*``).

**MTRAG human evaluations** (``reference_subset_with_human_evaluations.json``): 159
tasks (a conversation up to a user turn, its reference passages and a reference
answer) from 20 conversations, 350 passages, and 477 rated responses — one per task
from each of 3 models (``reference``, ``llama-3.1-405b-instruct``, ``gpt-4o``). Every
response carries human ratings of faithfulness, completeness, appropriateness and
naturalness on a 1–4 scale (No / Mostly No / Mostly Yes / Yes) from 2 or 3 annotators
(faithfulness: 3 annotators on 465 responses, 2 on 12), a head-to-head win rate, and
the scores of automatic metrics (Rouge-L, BERT recall, an LLM judge, RAGAS
faithfulness …). :func:`load_mtrag_human` gives one sample per rated response, ready
for meta-evaluation against the human scores.

**MTRAG-UN** (``reference.jsonl``): 507 tasks from 507 conversations, each with the
conversation so far, its passages inline (none in 130 rows: every unanswerable one
and 33 underspecified ones) and one reference answer; no human ratings.
:func:`load_mtrag_un` gives one sample per task.

In both, a conversation turn is ``{"speaker": "user" | "agent", "text": ...}``; user
turns become ``user`` messages and agent turns ``assistant`` messages, and the last
user turn is the query. Values the files keep as one-element lists (``["ANSWERABLE"]``)
become plain strings; the question type stays a list because a task may have several.
"""

from __future__ import annotations

from ragjudge.datasets.mtrag._human import (
    HUMAN_SCORES,
    MTRAG_HUMAN_FILE,
    load_mtrag_human,
    mtrag_human_documents,
)
from ragjudge.datasets.mtrag._un import MTRAG_UN_FILE, load_mtrag_un

__all__ = [
    "HUMAN_SCORES",
    "MTRAG_HUMAN_FILE",
    "MTRAG_UN_FILE",
    "load_mtrag_human",
    "load_mtrag_un",
    "mtrag_human_documents",
]
