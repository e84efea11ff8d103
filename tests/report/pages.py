"""Reading a report back: its tags and attributes, its text, its packed per-sample
fragments and the text of its ``<pre>`` blocks, with Python's own HTML parser."""

from __future__ import annotations

import base64
import gzip
import json
import re
from collections import Counter
from html.parser import HTMLParser


class Page(HTMLParser):
    """Every start tag (name and attributes), every piece of text, and the text of
    each ``<pre>`` with its classes."""

    def __init__(self, html: str) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.texts: list[str] = []
        self.pres: list[tuple[str, str]] = []
        self._pre: list[str] | None = None
        self._pre_class = ""
        self._hidden_marker = 0
        self.feed(html)
        self.close()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))
        if tag == "pre":
            self._pre, self._pre_class = [], dict(attrs).get("class") or ""
        if tag == "span" and dict(attrs).get("class") == "cc":
            self._hidden_marker += 1

    def handle_endtag(self, tag: str) -> None:
        if tag == "pre" and self._pre is not None:
            text = "".join(self._pre)
            # the HTML parser of a browser drops the newline that opens a <pre>
            self.pres.append((self._pre_class, text[1:] if text.startswith("\n") else text))
            self._pre = None

    def handle_data(self, data: str) -> None:
        self.texts.append(data)
        if self._pre is not None:
            self._pre.append(data)

    @property
    def text(self) -> str:
        return "".join(self.texts)

    @property
    def words(self) -> str:
        """The text with every piece of text apart and white space collapsed."""
        return " ".join(" ".join(t.split()) for t in self.texts if t.strip())

    def count(self) -> Counter[str]:
        return Counter(tag for tag, _ in self.tags)

    def attributes(self) -> list[tuple[str, str, str | None]]:
        return [(tag, name, value) for tag, attrs in self.tags for name, value in attrs.items()]

    def pre_texts(self, cls: str) -> list[str]:
        return [text for classes, text in self.pres if cls in classes.split()]


def fragments(html: str) -> list[str]:
    """The per-sample fragments packed in a report."""
    found = re.search(r'<script type="application/json" id="drill-data">([^<]*)</script>', html)
    assert found is not None, "no packed sample details"
    return list(json.loads(gzip.decompress(base64.b64decode(found.group(1))).decode("utf-8")))
