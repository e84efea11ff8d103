"""The history-aware (MQA) variant of the quickstart RAG system in ``rag_app.py``.

The single-turn QA variant (``rag_app:answer``) searches with the latest question only,
so a follow-up such as "Which one is faster?" finds nothing about what "one" is. This
variant searches with every user turn of the conversation joined, then answers with
the sentences that best match the latest question (or, when none shares a word with
it, the whole conversation), in the latest question's language.

ragjudge calls it as the target ``rag_app_mqa:answer`` (see ``eval-multiturn.yaml``),
and ``serve.py`` serves the same behaviour as the model ``quickstart-rag-mqa``.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

if str(Path(__file__).resolve().parent) not in sys.path:
    sys.path.insert(0, str(Path(__file__).resolve().parent))
import rag_app  # the single-turn app beside this file, found through the lines above


def conversation_query(query: str, history: list[dict[str, str]]) -> str:
    """The user turns of the conversation, oldest first, and ``query``, one per line."""
    turns = [m["content"] for m in history if m.get("role") == "user" and m.get("content")]
    return "\n".join([*turns, query])


async def answer(query: str, history: list[dict[str, str]]) -> dict[str, Any]:
    """Answer ``query`` in the context of ``history`` (earlier ``{role, content}``
    messages). Returns ``{"response": str, "retrieved_context": [{"doc_uri", "content"}]}``.
    """
    return await rag_app.answer_from_search(query, conversation_query(query, history))
