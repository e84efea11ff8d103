"""The tiny knowledge base every framework example searches: three SQL notes, and a
keyword search over them that needs no model, no embeddings and no network."""

from __future__ import annotations

import re

NOTES = {
    "union.md": "UNION removes duplicate rows from the combined result. "
    "UNION ALL keeps every row, duplicates included, and is usually faster.",
    "left_join.md": "A LEFT JOIN returns every row of the left table. "
    "Right-table columns are NULL where no right row matches.",
    "deadlock.md": "A deadlock is two transactions waiting for each other's locks forever. "
    "The database detects it and rolls one transaction back.",
}


def words(text: str) -> set[str]:
    """The lower-case words of ``text`` longer than two letters."""
    return {w for w in re.findall(r"[a-z]+", text.lower()) if len(w) > 2}


def search(question: str, k: int = 2) -> list[tuple[str, str, float]]:
    """The ``k`` notes sharing most words with ``question``: (name, text, score)."""
    asked = words(question)
    scored = [
        (name, text, len(asked & words(text)) / max(len(asked), 1)) for name, text in NOTES.items()
    ]
    scored.sort(key=lambda hit: -hit[2])
    return [hit for hit in scored[:k] if hit[2] > 0]


def first_sentence(text: str) -> str:
    """The first sentence of ``text``: the examples' stand-in for a language model."""
    return text.split(". ")[0].rstrip(".") + "."
