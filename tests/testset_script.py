"""A scripted generator model for test-set generation: it answers the three prompts a
candidate sends (write a sample, answer closed-book, check the sample) from the
passages the prompt itself shows, so a generation runs end to end without a model.

What it writes is plain and checkable: the question asks about the first sentence of
the first passage, the reference answer is that sentence verbatim. Tests steer it:
``closed_book`` holds question substrings the model "knows" without passages (the
closed-book check then drops them), ``paraphrase`` maps a chunk's doc_uri to the
question and answer to write for it instead (a reworded question with the same answer as
another chunk's: the duplicate filter then drops one), ``unanswered``
holds doc_uris whose samples the judge finds not answerable, ``fail`` holds doc_uris
whose generation reply never parses.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ragjudge.knowledge import Document, KnowledgeBase
from ragjudge.models.scripted import ReplyScript, prompt_text

_BLOCK = re.compile(r"<<<BEGIN (?P<label>[^>]+)>>>\n(?P<body>.*?)\n<<<END (?P=label)>>>", re.S)
_SENTENCE_END = re.compile(r"(?<=[.!?。！？])\s*")


def blocks(text: str) -> dict[str, str]:
    """Every delimited block of a prompt by its label."""
    return {m.group("label"): m.group("body") for m in _BLOCK.finditer(text)}


def first_sentence(text: str) -> str:
    """The passage's first sentence (at most 200 characters)."""
    parts = [p.strip() for p in _SENTENCE_END.split(text.strip()) if p.strip()]
    return (parts[0] if parts else text.strip())[:200]


def _japanese(text: str) -> bool:
    return any("\u3040" <= ch <= "\u30ff" or "\u4e00" <= ch <= "\u9fff" for ch in text)


@dataclass
class GeneratorScript:
    """The scripted generator (see the module's docstring); ``calls`` counts the
    prompts answered per kind of call."""

    closed_book: Sequence[str] = ()
    paraphrase: dict[str, tuple[str, str]] = field(default_factory=dict)
    unanswered: Sequence[str] = ()
    fail: Sequence[str] = ()
    calls: dict[str, int] = field(default_factory=dict)

    def script(self) -> ReplyScript:
        """The reply script (for a scripted provider or the local test server)."""
        return ReplyScript(function=self.reply)

    def reply(self, messages: list[dict[str, Any]]) -> str | None:
        text = prompt_text(messages)
        if text.startswith("You write one test sample"):
            return self._count("generate", self._sample(text))
        if text.startswith("Answer the user's question below"):
            return self._count("closed_book", self._closed_book(text))
        if text.startswith("You check one generated test sample"):
            return self._count("verify", self._verdict(text))
        return None

    def _count(self, kind: str, reply: str) -> str:
        self.calls[kind] = self.calls.get(kind, 0) + 1
        return reply

    def _passages(self, text: str) -> list[tuple[str, str]]:
        found = []
        for label, body in blocks(text).items():
            match = re.match(r"PASSAGE \d+ \((.*)\)$", label)
            if match:
                found.append((match.group(1), body))
        return found

    def _sample(self, text: str) -> str:
        passages = self._passages(text)
        uri, body = passages[0]
        if uri in self.fail:
            return "I cannot write a sample."
        sentence = first_sentence(body)
        ja = _japanese(body)
        question = _question(sentence, ja)
        answer = " ".join(first_sentence(b) for _, b in passages)
        if uri in self.paraphrase:
            question, answer = self.paraphrase[uri]
        reply: dict[str, Any] = {"question": question, "answer": answer, "facts": [sentence]}
        if '"turns"' in text:
            reply["turns"] = [{"user": _question(sentence, ja), "assistant": sentence}]
            reply["question"] = (
                f"それについてもっと教えて({uri})?" if ja else f"And what more about that in {uri}?"
            )
        if "does NOT answer" in text:
            words = " ".join(sentence.rstrip(".!?。").split()[:8])
            reply["question"] = (
                f"「{sentence[:20]}」の来年の料金はいくらですか?"
                if ja
                else f"Who paid for {words}, and how much?"
            )
            reply["facts"] = []
        return json.dumps(reply, ensure_ascii=False)

    def _closed_book(self, text: str) -> str:
        question = blocks(text).get("QUESTION", "")
        if any(known in question for known in self.closed_book):
            return "KNOWN: " + question
        return "I do not know."

    def _verdict(self, text: str) -> str:
        found = blocks(text)
        uris = [uri for uri, _ in self._passages(text)]
        closed = found.get("ANSWER WITHOUT PASSAGES")
        unanswerable = "closest to the question" in text
        verdict = {
            "answerable": not unanswerable and not any(u in self.unanswered for u in uris),
            "grounded": True,
            "closed_book_correct": None if closed is None else closed.startswith("KNOWN"),
            "needs_every_passage": True if "needs_every_passage: true" in text else None,
            "needs_history": True if "needs_history: true" in text else None,
            "reason": "scripted",
        }
        return json.dumps(verdict)


def _question(sentence: str, ja: bool) -> str:
    words = sentence.rstrip(".!?。").split()
    if ja:
        return f"「{sentence[:30]}」について詳しく教えてください?"
    return "What is true about " + " ".join(words[:8]) + "?"


def clapnq_knowledge_base(path: Path) -> KnowledgeBase:
    """The passages of a clapnq file as a knowledge base: each passage a document named
    ``title (row id-position)`` (a passage several rows share is kept once)."""
    documents: dict[str, Document] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        for number, passage in enumerate(row["passages"]):
            uri = f"{passage['title']} ({row['id']}-{number})"
            documents.setdefault(uri, Document(doc_uri=uri, content=passage["text"]))
    return KnowledgeBase.from_documents(documents.values())
