"""A score's ``details`` as the drill-down shows them.

Two shapes get views of their own wherever a score holds them: rubric results
(``result_by_rubrics``: each criterion met or not, its points) and multi-turn
transcripts (``transcript`` with its ``events``, turn by turn). Everything else —
statement lists with verdicts, per-chunk ratings, any new metric's details — is shown
generically: mappings as fields, lists of records as tables, lists of values as lists,
so a new metric's details show up without code here.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from ragjudge.report._text import fmt

__all__ = [
    "DetailsView",
    "Node",
    "RubricRow",
    "RubricView",
    "TranscriptEvent",
    "TranscriptView",
    "details_view",
    "node_of",
]

NodeKind = Literal["text", "number", "flag", "null", "items", "table", "fields", "json"]

_MAX_DEPTH = 5
_MAX_ITEMS = 1000
_GOOD = frozenset({"yes", "true", "met", "pass", "passed", "supported", "relevant", "useful"})
_BAD = frozenset({"no", "false", "not met", "fail", "failed", "unsupported", "irrelevant"})


@dataclass(frozen=True)
class Node:
    """One value of the details, ready for the template: ``kind`` says how it is drawn;
    ``tone`` is ``good``/``bad`` for verdict-like values."""

    kind: NodeKind
    text: str = ""
    tone: str = ""
    items: tuple[Node, ...] = ()
    columns: tuple[str, ...] = ()
    rows: tuple[tuple[Node, ...], ...] = ()
    fields: tuple[tuple[str, Node], ...] = ()
    more: int = 0
    """Items left out of a very long list."""

    @property
    def inline(self) -> bool:
        """Whether a list is short values only, drawn on one line."""
        return (
            self.kind == "items"
            and 0 < len(self.items) <= 20
            and all(i.kind in ("number", "flag", "null") or _short(i) for i in self.items)
        )

    @property
    def long(self) -> bool:
        """Whether a text is drawn as a block (several lines or long)."""
        return self.kind == "text" and ("\n" in self.text or len(self.text) > 140)


def _short(node: Node) -> bool:
    return node.kind == "text" and len(node.text) <= 40 and "\n" not in node.text


def _tone(value: Any) -> str:
    word = str(value).strip().lower()
    return "good" if word in _GOOD else "bad" if word in _BAD else ""


def node_of(value: Any, depth: int = 0) -> Node:
    """The view of any JSON value."""
    if value is None:
        return Node("null", "null")
    if isinstance(value, bool):
        return Node("flag", str(value).lower(), _tone(value))
    if isinstance(value, int | float):
        return Node("number", fmt(value, 4))
    if isinstance(value, str):
        return Node("text", value, _tone(value) if len(value) <= 12 else "")
    if depth >= _MAX_DEPTH:
        return Node("json", json.dumps(value, ensure_ascii=False, indent=2, default=str))
    if isinstance(value, Mapping):
        return Node(
            "fields", fields=tuple((str(k), node_of(v, depth + 1)) for k, v in value.items())
        )
    if isinstance(value, Sequence):
        return _list_node(list(value), depth)
    return Node("text", str(value))


def _list_node(values: list[Any], depth: int) -> Node:
    shown, more = values[:_MAX_ITEMS], max(0, len(values) - _MAX_ITEMS)
    if shown and all(isinstance(v, Mapping) for v in shown):
        columns = list(dict.fromkeys(str(k) for v in shown for k in v))
        rows = tuple(tuple(_cell(v, column, depth) for column in columns) for v in shown)
        return Node("table", columns=tuple(columns), rows=rows, more=more)
    return Node("items", items=tuple(node_of(v, depth + 1) for v in shown), more=more)


def _cell(record: Mapping[str, Any], column: str, depth: int) -> Node:
    if column not in record:
        return Node("text", "")
    value = record[column]
    node = node_of(value, depth + 1)
    if node.kind in ("text", "flag") and not node.tone:
        return Node(node.kind, node.text, _tone(value), node.items)
    return node


@dataclass(frozen=True)
class RubricRow:
    """One rubric item's result."""

    criterion: str
    points: float | None
    tags: list[str]
    met: bool | None
    explanation: str
    signed_score: float | None

    @property
    def penalty(self) -> bool:
        """A penalty item: its points are taken away when it is met."""
        return self.points is not None and self.points < 0

    @property
    def tone(self) -> str:
        """``good`` when the item helps the score (a credit met, a penalty avoided),
        ``bad`` when it costs (a credit missed, a penalty met), ``""`` when unread."""
        if self.met is None:
            return ""
        return "bad" if self.met == self.penalty else "good"

    @property
    def verdict(self) -> str:
        """The item's result in words, penalties named as such."""
        if self.met is None:
            return "?"
        if self.penalty:
            return "✗ penalty applies" if self.met else "✓ penalty avoided"
        return "✓ met" if self.met else "✗ not met"


@dataclass(frozen=True)
class RubricView:
    """Rubric results: every item met or not with its points, and the totals."""

    rows: list[RubricRow]
    total_score: float | None
    theoretical_score: float | None
    score_rate: float | None


@dataclass(frozen=True)
class TranscriptEvent:
    """One step of a multi-turn dialogue."""

    task: str
    """The step's code as stored in the transcript (``T1`` … ``T7``)."""
    label: str
    """The step in words, as the report shows it."""
    texts: list[tuple[str, str]]
    """Text fields (query, answer, feedback …) in the order they are read."""
    facts: list[tuple[str, str]]
    """Short values (score, decision, documents …)."""
    score: float | None
    error: str | None
    call_ids: list[int]


@dataclass(frozen=True)
class TranscriptTurn:
    """The events of one turn."""

    number: int
    events: list[TranscriptEvent]


@dataclass(frozen=True)
class TranscriptView:
    """A multi-turn transcript, turn by turn."""

    question: str
    context_doc_uris: list[str]
    turns: list[TranscriptTurn]


@dataclass(frozen=True)
class DetailsView:
    """A score's details: rubric results, a transcript, and the rest shown generically."""

    rubric: RubricView | None
    transcript: TranscriptView | None
    rest: Node | None


_TASKS = {
    "T1": "the system answers",
    "T2": "composer: tentative answer",
    "T3": "judge: tentative answer",
    "T4/T5": "generator: follow-up question",
    "T6": "composer: final answer",
    "T7": "judge: final answer",
}
_SHOWN_AS = {"sigma": "scores by turn", "sigma_index": "score number"}
"""Stored detail keys of the multi-turn metric and the words the report shows for them."""
_TEXT_FIELDS = ("query", "answer", "feedback", "explanation")
_SKIPPED_FIELDS = frozenset({"task", "turn", "call_ids", "score", "error", *_TEXT_FIELDS})


def details_view(details: Mapping[str, Any], leave_out: Collection[str] = ()) -> DetailsView:
    """The view of a score's details, without the keys in ``leave_out`` (shown
    elsewhere on the page)."""
    rest = {key: value for key, value in details.items() if key not in leave_out}
    rubric = _rubric(rest)
    if rubric is not None:
        for key in ("result_by_rubrics", "total_score", "theoretical_score", "score_rate"):
            rest.pop(key, None)
    transcript = _transcript(rest.get("transcript"))
    if transcript is not None:
        rest.pop("transcript")
    rest = {_SHOWN_AS.get(key, key): value for key, value in rest.items()}
    return DetailsView(rubric, transcript, node_of(rest) if rest else None)


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value)


def _rubric(details: Mapping[str, Any]) -> RubricView | None:
    items = details.get("result_by_rubrics")
    if not isinstance(items, list) or not all(isinstance(i, Mapping) for i in items):
        return None
    rows = [
        RubricRow(
            criterion=str(item.get("criterion", "")),
            points=_number(item.get("points")),
            tags=[str(t) for t in item.get("tags") or [] if t is not None],
            met=item.get("criteria_met") if isinstance(item.get("criteria_met"), bool) else None,
            explanation=str(item.get("explanation") or ""),
            signed_score=_number(item.get("signed_score")),
        )
        for item in items
    ]
    return RubricView(
        rows,
        _number(details.get("total_score")),
        _number(details.get("theoretical_score")),
        _number(details.get("score_rate")),
    )


def _transcript(value: Any) -> TranscriptView | None:
    if not isinstance(value, Mapping) or not isinstance(value.get("events"), list):
        return None
    turns: dict[int, list[TranscriptEvent]] = {}
    for event in value["events"]:
        if not isinstance(event, Mapping):
            return None
        turn = event.get("turn")
        turns.setdefault(turn if isinstance(turn, int) else 0, []).append(_event(event))
    return TranscriptView(
        question=str(value.get("target_question") or ""),
        context_doc_uris=[str(u) for u in value.get("context_doc_uris") or []],
        turns=[TranscriptTurn(n, events) for n, events in turns.items()],
    )


def _event(event: Mapping[str, Any]) -> TranscriptEvent:
    task = str(event.get("task", ""))
    texts = [(k, str(event[k])) for k in _TEXT_FIELDS if isinstance(event.get(k), str)]
    facts = [
        _shown_fact(str(k), v)
        for k, v in event.items()
        if k not in _SKIPPED_FIELDS and v is not None
    ]
    call_ids = [int(c) for c in event.get("call_ids") or [] if isinstance(c, int)]
    error = event.get("error")
    return TranscriptEvent(
        task=task,
        label=_TASKS.get(task, task),
        texts=texts,
        facts=facts,
        score=_number(event.get("score")),
        error=None if error is None else str(error),
        call_ids=call_ids,
    )


def _shown_fact(key: str, value: Any) -> tuple[str, str]:
    """A fact's name in words and its value; a position in the score list counts from 1."""
    if key == "sigma_index" and isinstance(value, int):
        return _SHOWN_AS[key], str(value + 1)
    return _SHOWN_AS.get(key, key), _fact(value)


def _fact(value: Any) -> str:
    if isinstance(value, list):
        return ", ".join(str(v) for v in value) or "(none)"
    if isinstance(value, Mapping):
        return ", ".join(
            f"{k} {fmt(v) if isinstance(v, int | float) else v}" for k, v in value.items()
        )
    return fmt(value) if isinstance(value, int | float) else str(value)
