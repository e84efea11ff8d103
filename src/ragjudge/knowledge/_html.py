"""The visible text of an HTML document."""

from __future__ import annotations

import re
from html.parser import HTMLParser

# Elements whose text a browser does not show on the page.
_HIDDEN_ELEMENTS = frozenset({"script", "style", "noscript", "template", "title"})
# Elements that start a new line of text.
_BLOCK_ELEMENTS = frozenset(
    {
        "address", "article", "aside", "blockquote", "br", "caption", "dd", "details",
        "div", "dl", "dt", "fieldset", "figcaption", "figure", "footer", "form", "h1",
        "h2", "h3", "h4", "h5", "h6", "header", "hr", "li", "main", "nav", "ol", "p",
        "pre", "section", "summary", "table", "tbody", "thead", "tfoot", "tr", "ul",
    }
)  # fmt: skip
_TABLE_CELLS = frozenset({"td", "th"})
_SPACES = re.compile(r"[^\S\n]+")
_WHITESPACE = re.compile(r"\s+")


class _VisibleTextParser(HTMLParser):
    """Collects the text a browser would show, one line per block element.

    Inside ``<pre>`` line breaks are kept; elsewhere whitespace runs become one space.
    """

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self._hidden_depth = 0
        self._pre_depth = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self._enter(tag)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        # A self-closing tag (<br/>) opens nothing to close.
        if tag in _BLOCK_ELEMENTS:
            self.parts.append("\n")

    def handle_endtag(self, tag: str) -> None:
        if tag in _HIDDEN_ELEMENTS:
            self._hidden_depth = max(0, self._hidden_depth - 1)
        elif tag == "pre":
            self._pre_depth = max(0, self._pre_depth - 1)
        if tag in _BLOCK_ELEMENTS:
            self.parts.append("\n")

    def handle_data(self, data: str) -> None:
        if self._hidden_depth:
            return
        if not self._pre_depth:
            data = _WHITESPACE.sub(" ", data)
        self.parts.append(data)

    def _enter(self, tag: str) -> None:
        if tag in _HIDDEN_ELEMENTS:
            self._hidden_depth += 1
        elif tag == "pre":
            self._pre_depth += 1
        if tag in _BLOCK_ELEMENTS:
            self.parts.append("\n")
        elif tag in _TABLE_CELLS:
            self.parts.append(" ")

    def text(self) -> str:
        """The collected text: one line per block, blank lines dropped."""
        lines = (_SPACES.sub(" ", line).strip() for line in "".join(self.parts).split("\n"))
        return "\n".join(line for line in lines if line)


def html_to_text(html: str) -> str:
    """The visible text of an HTML document, without scripts, styles or the title.

    Block elements (paragraphs, headings, list items, table rows …) each start a new
    line; character references are decoded.
    """
    parser = _VisibleTextParser()
    parser.feed(html)
    parser.close()
    return parser.text()
