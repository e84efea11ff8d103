"""Text as the report shows it: escaped, with invisible and reordering characters made
visible, tagged with its language, numbers and money formatted, long text previewed."""

from __future__ import annotations

import json
import math
import re
import unicodedata
from typing import Any

from markupsafe import Markup, escape

__all__ = [
    "breakable",
    "fmt",
    "json_text",
    "lang_of",
    "money",
    "pct",
    "preview",
    "search_text",
    "shown",
]

# C0 and C1 controls but tab and newline; DEL; zero-width spaces (not the joiners that
# emoji and some scripts need); the bidirectional embeddings, overrides, isolates and marks; line/paragraph separators;
# the byte-order mark. Each is drawn as a visible marker: it would otherwise hide text,
# reorder it, or be dropped or rewritten by the HTML parser (NUL, CR).
_HIDDEN = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\u200b\u200e\u200f\u2028-\u202e\u2060-\u2069\ufeff\ufff9-\ufffb]"
)
_JAPANESE = re.compile("[\u3040-\u30ff\u31f0-\u31ff\u3400-\u4dbf\u4e00-\u9fff\uff66-\uff9f]")


def _marker(char: str) -> str:
    code = ord(char)
    if code < 0x20:
        picture = chr(0x2400 + code)  # the Control Pictures block: ␀ ␍ ␛ …
    elif code == 0x7F:
        picture = "\u2421"
    else:
        picture = f"U+{code:04X}"
    return f'<span class="cc" title="U+{code:04X}">{picture}</span>'


def shown(text: Any) -> Markup:
    """``text`` escaped for HTML, each invisible or control character replaced by a
    visible marker (``␍``, ``U+202E``)."""
    escaped = str(escape(str(text)))
    return Markup(_HIDDEN.sub(lambda m: _marker(m.group(0)), escaped))


def breakable(name: Any) -> Markup:
    """A metric name that may wrap after each ``/`` and ``_`` (Databricks names are
    long, and narrow columns hold ``relevance_to_query``)."""
    pieces = re.split(r"(?<=[/_])", str(name))
    return Markup("<wbr>").join(escape(piece) for piece in pieces if piece)


def lang_of(text: Any) -> str:
    """``ja`` when the text holds kana or kanji (so the browser picks Japanese glyph
    forms), else ``""`` (the page's language)."""
    return "ja" if isinstance(text, str) and _JAPANESE.search(text[:4000]) else ""


def preview(text: Any, limit: int = 160) -> str:
    """The first ``limit`` characters of ``text`` on one line, with … when cut."""
    if text is None:
        return ""
    flat = " ".join(str(text).split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def search_text(*parts: Any, limit: int = 3000) -> str:
    """What the samples table's text search looks in: the parts, NFKC-normalised and
    lower-cased (full-width ＳＱＬ finds SQL), each cut to ``limit`` characters."""
    joined = " ".join(str(p)[:limit] for p in parts if p)
    return unicodedata.normalize("NFKC", " ".join(joined.split())).lower()


def fmt(value: Any, digits: int = 3) -> str:
    """A number for a table: ``–`` when missing, whole numbers without decimals."""
    if value is None or (isinstance(value, float) and not math.isfinite(value)):
        return "–"
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, int) or (isinstance(value, float) and value.is_integer()):
        return str(int(value))
    return f"{value:.{digits}f}"


def pct(value: Any) -> str:
    """A share as a percentage (``–`` when missing)."""
    if value is None or (isinstance(value, float) and not math.isfinite(value)):
        return "–"
    return f"{100 * float(value):.0f}%"


def money(value: Any) -> str:
    """Dollars with four decimals (``–`` when not priced)."""
    if value is None or (isinstance(value, float) and not math.isfinite(value)):
        return "–"
    return f"${float(value):.4f}"


def json_text(value: Any) -> str:
    """Pretty JSON for display (non-ASCII kept as is)."""
    return json.dumps(value, ensure_ascii=False, indent=2, default=str)
