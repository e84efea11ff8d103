"""The replies of the multi-turn agents: the composer's ``Answer: …, Explanation: …``
and the generator's ``Query: …, Explanation: …`` (the reply formats of the paper's
agent prompts)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from ragjudge.metrics.replies import ParseError, Reply, without_quotes
from ragjudge.text._normalise import normalize

__all__ = [
    "AgentAnswer",
    "AgentQuery",
    "AnswerReply",
    "QueryReply",
    "RepeatedQuery",
    "parse_agent_answer",
    "parse_agent_query",
]


@dataclass(frozen=True)
class AgentAnswer:
    """The composer's ``Answer: …, Explanation: …`` reply."""

    answer: str
    explanation: str | None


@dataclass(frozen=True)
class AgentQuery:
    """The generator's ``Query: …, Explanation: …`` reply; ``query`` None means no more
    questions are needed."""

    query: str | None
    explanation: str | None


def _label(word: str) -> re.Pattern[str]:
    # "Answer:", "ANSWER :", "**Answer:**", "**Answer**:", full-width colon; not "Reanswer:".
    return re.compile(rf"(?<![^\W_]){word}[\s*_]*[:：][*_]*", re.IGNORECASE)


_ANSWER_LABEL = _label("answer")
_QUERY_LABEL = _label("query")
_EXPLANATION_LABEL = _label("explanation")
_EDGE = " \t\r\n*_,，、"
_WRAPPERS = (("<", ">"), ('"', '"'), ("“", "”"), ("'", "'"), ("「", "」"))
_NO_QUERY = frozenset(
    {
        "none",
        "n/a",
        "na",
        "null",
        "nil",
        "blank",
        "leave blank",
        "left blank",
        "empty",
        "nothing",
        "not needed",
        "none needed",
        "no",
        "なし",
        "無し",
        "不要",
        "none required",
    }
)
_NO_QUERY_SENTENCE = re.compile(
    r"^(?:no|none)\b[^?]{0,80}\b(?:quer(?:y|ies)|questions?)\b[^?]*$", re.IGNORECASE
)


def _labelled_parts(text: str, label: re.Pattern[str], what: str) -> tuple[str, str | None]:
    """The text after the first ``label`` up to the first ``Explanation:`` after it,
    and the explanation (None when absent or blank)."""
    found = label.search(text)
    if found is None:
        raise ParseError(
            f"no '{what}:' label in the reply; use the form '{what}: …, Explanation: …'"
        )
    rest = text[found.end() :]
    explained = _EXPLANATION_LABEL.search(rest)
    if explained is None:
        return _clean(rest), None
    explanation = _clean(rest[explained.end() :])
    return _clean(rest[: explained.start()]), explanation or None


def _clean(value: str) -> str:
    text = value.strip(_EDGE)
    for opening, closing in _WRAPPERS:
        if len(text) >= 2 and text.startswith(opening) and text.endswith(closing):
            text = text[1:-1].strip(_EDGE)
    return text


def parse_agent_answer(text: str) -> AgentAnswer:
    """Read the composer's ``Answer: <answer>, Explanation: <explanation>``.

    Tolerated: any case of the labels, markdown emphasis around them, a full-width
    colon, a missing comma, an answer over several lines, a missing or blank
    explanation (None), an answer wrapped in ``<…>`` or quotes. Raises
    :class:`ParseError` when there is no ``Answer:`` label or the answer is blank.
    """
    answer, explanation = _labelled_parts(text, _ANSWER_LABEL, "Answer")
    if not answer:
        raise ParseError("the answer after 'Answer:' is blank")
    return AgentAnswer(answer=answer, explanation=explanation)


def _question_key(text: str) -> str:
    # normalize() applies NFKC, so full-width ？！ arrive as ?!.
    return normalize(text).rstrip("?.!。 ")


def _is_no_query(query: str) -> bool:
    bare = normalize(query).strip(" ()[]<>\"'“”「」.,、。-–—*_")
    return not bare or bare in _NO_QUERY or _NO_QUERY_SENTENCE.match(bare) is not None


def parse_agent_query(text: str, earlier: Sequence[str] = ()) -> AgentQuery:
    """Read the generator's ``Query: <query>, Explanation: <explanation>``.

    A blank query — or one that only says there is none (``none``, ``N/A``, ``(blank)``,
    ``No further queries are needed``, ``なし`` …) — means no more questions. Tolerated
    as for :func:`parse_agent_answer`. Raises :class:`ParseError` when there is no
    ``Query:`` label, or when the query repeats one of the ``earlier`` questions
    (compared ignoring case, spacing and final punctuation), so the model is asked again.
    """
    query, explanation = _labelled_parts(text, _QUERY_LABEL, "Query")
    if _is_no_query(query):
        return AgentQuery(query=None, explanation=explanation)
    key = _question_key(query)
    for number, asked in enumerate(earlier, start=1):
        if _question_key(asked) == key:
            raise RepeatedQuery(
                f"the query repeats question {number} ({asked!r}); write a different "
                "query, or leave the query blank if no more questions are needed",
                query=query,
            )
    return AgentQuery(query=query, explanation=explanation)


class RepeatedQuery(ParseError):
    """The generator asked a question it had already asked; ``query`` is the repeat."""

    def __init__(self, message: str, *, query: str) -> None:
        super().__init__(message)
        self.query = query


class AnswerReply(Reply[AgentAnswer]):
    """The composer's reply. Its dry-run stand-in answers with ``example`` (the latest
    answer of the system under test: a length proxy for the token estimate)."""

    def __init__(self, example: str = "") -> None:
        self.example = example

    def parse(self, text: str, *, evaluated: Sequence[str] = ()) -> AgentAnswer:
        """See :func:`parse_agent_answer`; lines quoting the evaluated text are left out."""
        return parse_agent_answer(without_quotes(text, evaluated))

    def stand_in(self) -> str:
        """``Answer: <example>, Explanation: (dry run)``."""
        answer = self.example.strip()
        if not answer or _EXPLANATION_LABEL.search(answer):
            answer = "(dry run) composed answer"
        return f"Answer: {answer}, Explanation: (dry run)"


class QueryReply(Reply[AgentQuery]):
    """The generator's reply; a query repeating one of ``earlier`` is a parse error.
    ``repeated`` is the repeat when the latest reply read was one (None otherwise), so
    a caller can tell a generator that kept repeating itself from an unreadable one.
    Its dry-run stand-in always asks a new question, so a dry run walks the longest
    dialogue."""

    def __init__(self, earlier: Sequence[str] = ()) -> None:
        self.earlier = list(earlier)
        self.repeated: str | None = None

    def parse(self, text: str, *, evaluated: Sequence[str] = ()) -> AgentQuery:
        """See :func:`parse_agent_query`; lines quoting the evaluated text are left out."""
        self.repeated = None
        try:
            return parse_agent_query(without_quotes(text, evaluated), self.earlier)
        except RepeatedQuery as exc:
            self.repeated = exc.query
            raise

    def stand_in(self) -> str:
        """A follow-up question that differs from every earlier one."""
        number = len(self.earlier) + 1
        return f"Query: (dry run) follow-up question {number}?, Explanation: (dry run)"
