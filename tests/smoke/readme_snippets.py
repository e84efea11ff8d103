"""The snippets of a Markdown file that a reader copies and runs, found in whatever the
file holds: command lines that start with ``ragjudge`` in ``bash``/``console``/``sh``
blocks, ``python`` blocks, and ``yaml`` blocks that are complete configs.

A block can be left out of the check with an HTML comment on the line before it (blank
lines between are allowed) that gives the reason::

    <!-- not run in CI: needs an OpenAI key -->

A marker without a reason is a mistake the check reports, never a silent opt-out.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

import yaml

__all__ = ["Snippet", "SnippetKind", "find_snippets", "is_file_block", "is_test_block"]

SnippetKind = Literal["command", "python", "config"]

SHELL_LANGUAGES = frozenset({"bash", "console", "sh", "shell", "shell-session"})
_FENCE = re.compile(r"^(?P<indent>\s*)(?P<fence>`{3,}|~{3,})\s*(?P<lang>[\w+-]*)")
_OPT_OUT = re.compile(r"^\s*<!--\s*not run in CI\s*(?::\s*(?P<reason>.*?))?\s*-->\s*$")
_PROMPT = re.compile(r"^\s*(?:\$\s+)?")
_FILE_HEADER = re.compile(r"^#\s*(?P<name>[\w./-]+\.py)\b")


@dataclass(frozen=True)
class Snippet:
    """One thing to run: its kind, the line of the Markdown file it starts on, its text
    and, when the block is opted out, the reason given (``""`` when none was)."""

    kind: SnippetKind
    line: int
    text: str
    opted_out: str | None = None

    @property
    def where(self) -> str:
        """``README.md:42``-style position for messages (without the file name)."""
        return f"line {self.line}"


@dataclass(frozen=True)
class _Block:
    language: str
    line: int
    lines: list[str]
    opted_out: str | None


def find_snippets(markdown: str) -> list[Snippet]:
    """Every runnable snippet of ``markdown``, in the order of the file."""
    found: list[Snippet] = []
    for block in _blocks(markdown.splitlines()):
        found.extend(_snippets_of(block))
    return found


def is_test_block(snippet: Snippet) -> bool:
    """A python block that defines pytest tests: it is run by pytest as a test file."""
    return (
        snippet.kind == "python"
        and re.search(r"^(async )?def test_", snippet.text, re.M) is not None
    )


def is_file_block(snippet: Snippet) -> str | None:
    """The file name a python block says it is (``# my_metrics.py, beside eval.yaml``
    on its first line), or None: such a block is written to that file, for the
    configs and blocks after it, not run."""
    first = snippet.text.lstrip().splitlines()[0] if snippet.text.strip() else ""
    match = _FILE_HEADER.match(first)
    return match.group("name") if snippet.kind == "python" and match else None


def _blocks(lines: list[str]) -> list[_Block]:
    blocks: list[_Block] = []
    index = 0
    while index < len(lines):
        opening = _FENCE.match(lines[index])
        if opening is None:
            index += 1
            continue
        fence = opening.group("fence")
        body: list[str] = []
        end = index + 1
        while end < len(lines) and not lines[end].strip().startswith(fence):
            body.append(lines[end])
            end += 1
        blocks.append(
            _Block(opening.group("lang").lower(), index + 1, body, _opt_out_before(lines, index))
        )
        index = end + 1
    return blocks


def _opt_out_before(lines: list[str], index: int) -> str | None:
    """The reason of an opt-out marker above the fence at ``index`` (``""`` when the
    marker gives none), or None without a marker."""
    above = index - 1
    while above >= 0 and not lines[above].strip():
        above -= 1
    if above < 0:
        return None
    match = _OPT_OUT.match(lines[above])
    if match is None:
        return None
    return (match.group("reason") or "").strip()


def _snippets_of(block: _Block) -> list[Snippet]:
    text = "\n".join(block.lines) + "\n"
    if block.language in SHELL_LANGUAGES:
        return [
            Snippet("command", block.line + offset + 1, command, block.opted_out)
            for offset, line in enumerate(block.lines)
            if (command := _command(line)) is not None
        ]
    if block.language in ("python", "py"):
        return [Snippet("python", block.line, text, block.opted_out)]
    if block.language in ("yaml", "yml") and _is_complete_config(text):
        return [Snippet("config", block.line, text, block.opted_out)]
    return []


def _command(line: str) -> str | None:
    """A ``ragjudge …`` command line, the shell prompt and trailing comment removed."""
    stripped = _PROMPT.sub("", line, count=1).strip()
    if not re.match(r"^(\S*/)?ragjudge(\s|$)", stripped):
        return None
    return re.sub(r"\s+#.*$", "", stripped)


def _is_complete_config(text: str) -> bool:
    """A config a reader could save and run: a mapping naming ``metrics`` and where the
    data comes from (``data`` or ``openai_evals``)."""
    try:
        loaded = yaml.safe_load(text)
    except yaml.YAMLError:
        return False
    return (
        isinstance(loaded, dict)
        and "metrics" in loaded
        and bool({"data", "openai_evals"} & set(loaded))
    )
