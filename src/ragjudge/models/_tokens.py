"""Offline token estimates for rate pacing and ``--dry-run`` cost forecasts.

No tokenizer is downloaded: Latin-script text counts about four characters per
token, and each CJK character (kanji, kana, hangul, full-width forms) about one
token, which is close to what BPE tokenizers of current chat models produce.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from typing import Any

MESSAGE_OVERHEAD = 4
"""Tokens a chat format adds around each message (role markers, separators)."""

REPLY_PRIMING = 3
"""Tokens that start the assistant's reply."""

_CHARS_PER_TOKEN = 4.0

_CJK_RANGES: tuple[tuple[int, int], ...] = (
    (0x1100, 0x11FF),  # Hangul Jamo
    (0x2E80, 0x2FDF),  # CJK radicals, Kangxi radicals
    (0x3000, 0x303F),  # CJK symbols and punctuation
    (0x3040, 0x30FF),  # Hiragana, Katakana
    (0x3100, 0x31FF),  # Bopomofo, Hangul compatibility, Katakana extensions
    (0x3200, 0x4DBF),  # enclosed CJK, compatibility, extension A
    (0x4E00, 0x9FFF),  # CJK unified ideographs
    (0xAC00, 0xD7AF),  # Hangul syllables
    (0xF900, 0xFAFF),  # CJK compatibility ideographs
    (0xFF00, 0xFFEF),  # half-width and full-width forms
    (0x20000, 0x3FFFF),  # CJK extensions B and later
)


_CJK_RUN = re.compile("[" + "".join(f"\\U{lo:08x}-\\U{hi:08x}" for lo, hi in _CJK_RANGES) + "]+")
"""Runs of CJK characters; one regex pass is ~100x faster than testing each character."""


def estimate_tokens(text: str) -> int:
    """Estimate how many tokens ``text`` takes: one per CJK character plus one per
    four other characters (rounded up). The empty string takes none."""
    if not text:
        return 0
    if text.isascii():
        return math.ceil(len(text) / _CHARS_PER_TOKEN)
    cjk = sum(m.end() - m.start() for m in _CJK_RUN.finditer(text))
    return cjk + math.ceil((len(text) - cjk) / _CHARS_PER_TOKEN)


def message_text(message: dict[str, Any]) -> str:
    """The text of one chat message: a plain string content, or the ``text`` parts of
    a content-part list joined with newlines (other parts such as images are skipped)."""
    content = message.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        texts = [
            part["text"]
            for part in content
            if isinstance(part, dict) and isinstance(part.get("text"), str)
        ]
        return "\n".join(texts)
    return ""


def estimate_messages_tokens(messages: Iterable[dict[str, Any]]) -> int:
    """Estimate the prompt tokens of a chat request: each message's content plus a
    small per-message overhead and the reply priming."""
    total = REPLY_PRIMING
    for message in messages:
        total += MESSAGE_OVERHEAD + estimate_tokens(message_text(message))
    return total
