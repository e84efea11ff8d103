"""Multi-turn continuous-response evaluation (seed 000, method II): how much of the
reference answer a user can get out of the system under test, and how fast.

For each (target question, reference answer) three agents hold a dialogue of at most
``n = max_turns`` turns with the target (tasks T1–T7 of the paper):

- **T1** the target is asked the current query, with the dialogue so far as history
  (the sample's own earlier conversation, if any, comes first); the pair is appended
  to the Q/A history. The first query is the target question itself, and its answer
  is the ``output`` the runner already obtained for the sample.
- **T2** the *composer* builds a tentative answer to the target question from the Q/A
  history only.
- **T3** the *judge* scores it 0–5 with feedback (the answer-accuracy judge of
  :mod:`~ragjudge.metrics.answer_accuracy`, Figure 5, shown the contexts retrieved
  once per sample with the ORIGINAL question and the reference answer — E3). A 5 ends
  the dialogue.
- **T4/T5** the *generator* reads the feedback and either writes a new query (one
  that differs from every earlier question — a repeat is re-asked like a parse
  failure — and states no fact found only in the reference), going back to T1, or
  leaves the query blank: no more questions.
- **T6** then the composer rewrites the tentative answer to the reference answer's
  level of detail without adding what only the reference says, and **T7** the judge
  scores that final answer.

**The score list σ.** Every judged answer adds one score: each T3 score, and the T7
score when the dialogue went through T6/T7. The turn limit ``n`` bounds σ, as in the
paper (``σ = [s0 … sk]``, ``0 ≤ k < n``; all scores between 0 and n): after a T3 score
below 5 with σ already holding ``n`` scores the dialogue ends there — there is no slot
left for a further query nor for a final answer, so T4–T7 are skipped (and no
generator call is spent). T6/T7 therefore happen only when the generator stops asking
before the limit, and the final score takes the next slot. So a dialogue makes at most
``n`` target calls, ``n`` judge calls, ``n`` composer calls and ``n - 1`` generator
calls (``3n - 1`` agent calls, the dry run's upper bound).

**0 ("not sure").** A 0 stays in σ as the value 0: it lowers ``wscore`` and counts
towards ``lscore``; unlike the answer-accuracy mean, nothing is left out here, because
σ describes one dialogue and a "not sure" turn is a turn that gave nothing.

**The three scores** (:func:`wscore`, :func:`lscore`, :func:`mscore`):

- ``wscore`` (higher is better): the scores weighted ``n, n-1, …`` by turn, the last
  score carried to the turns the dialogue did not need, over ``n + … + 1``
  (``n = 3``, ``σ = [1, 5]`` → ``(3·1 + 2·5 + 1·5) / 6 = 3``);
- ``lscore`` = ``len(σ)``, the turns until the dialogue ended — **lower is better**;
  the summary shows plain means, so read its mean and a comparison's sign the other
  way round;
- ``mscore`` = ``max(σ)``, the best answer the dialogue produced (higher is better).

The scores are named ``wscore``, ``lscore``, ``mscore``; an instance given its own
name (``{metric: multiturn, name: mqa}``) names them ``mqa.wscore`` … so several can
run side by side. The per-sample transcript (every query, target answer, composed
answer, judge feedback and score, generator decision and explanation, each with its
call ids) is stored on the ``wscore`` score as ``details["transcript"]``; all three
scores carry σ and every judge/agent call id. When anything fails mid-dialogue (the
target, a model call, an output that still does not parse after the re-asks) all
three scores are explicit errors, with the transcript so far — never numbers.

The target must carry a conversation: :meth:`MultiTurn.check_target` rejects the
responses in the data and targets that declare ``supports_history = False`` or (a
Python function) take no ``history``/``messages``/``request``/``sample`` argument.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from ragjudge.metrics._base import (
    Metric,
    MetricContext,
    positive_int,
    register_metric,
    response_and_references,
)
from ragjudge.metrics.answer_accuracy import (
    TEMPLATES,
    Judgement,
    evaluation_contexts,
    judge_answer,
)
from ragjudge.models._types import ChatMessage, ModelError
from ragjudge.models.parsing import ParseError
from ragjudge.prompts import render
from ragjudge.schema import ContextChunk, Message, Output, Request, Sample, Score
from ragjudge.text import normalize

__all__ = [
    "ANSWER_FORMAT",
    "QUERY_FORMAT",
    "REWRITE_FORMAT",
    "AgentAnswer",
    "AgentQuery",
    "MultiTurn",
    "dry_run_reply",
    "lscore",
    "mscore",
    "parse_agent_answer",
    "parse_agent_query",
    "wscore",
]

T = TypeVar("T")

ANSWER_FORMAT = "Answer: <answer>, Explanation: <explanation>"
REWRITE_FORMAT = "Answer: <revised answer>, Explanation: <explanation>"
QUERY_FORMAT = "Query: <query>, Explanation: <explanation>"
CONTEXT_SOURCES: tuple[str, ...] = ("reference", "expected", "none")
PERFECT = 5
SCORE_BASES = ("wscore", "lscore", "mscore")

# σ and its scores -------------------------------------------------------------------


def _check_sigma(sigma: Sequence[float], n: int) -> None:
    if n < 1:
        raise ValueError(f"the turn limit n must be at least 1, not {n}")
    if not sigma:
        raise ValueError("σ is empty: a dialogue judges at least one answer")
    if len(sigma) > n:
        raise ValueError(f"σ holds {len(sigma)} scores, more than the turn limit n = {n}")
    if any(s < 0 for s in sigma):
        raise ValueError(f"σ holds a negative score: {list(sigma)}")


def wscore(sigma: Sequence[float], n: int) -> float:
    """The weighted score of σ for the turn limit ``n``.

    ``(n·s0 + … + (n-k)·sk + Σ_{i=1}^{n-k-1} (n-k-i)·sk) / (n + … + 1)``: score ``i``
    weighs ``n - i``, and the last score ``sk`` also fills the turns after it.
    ``wscore([1, 5], 3) == 3.0``. Raises ``ValueError`` for an empty σ, one longer than
    ``n``, or a negative score.
    """
    _check_sigma(sigma, n)
    padded = [*sigma, *[sigma[-1]] * (n - len(sigma))]
    weighted = sum((n - i) * s for i, s in enumerate(padded))
    return weighted / (n * (n + 1) / 2)


def lscore(sigma: Sequence[float]) -> int:
    """The number of judged answers until the dialogue ended: ``len(σ)`` (lower is better)."""
    if not sigma:
        raise ValueError("σ is empty: a dialogue judges at least one answer")
    return len(sigma)


def mscore(sigma: Sequence[float]) -> float:
    """The best score of the dialogue: ``max(σ)``."""
    if not sigma:
        raise ValueError("σ is empty: a dialogue judges at least one answer")
    return max(sigma)


# parsing the agents' replies --------------------------------------------------------


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
            raise ParseError(
                f"the query repeats question {number} ({asked!r}); write a different "
                "query, or leave the query blank if no more questions are needed"
            )
    return AgentQuery(query=query, explanation=explanation)


# the dry run's stand-in agents ------------------------------------------------------

_QA_ANSWER = re.compile(r"<<<BEGIN QA ANSWER \d+>>>\n(.*?)\n<<<END QA ANSWER \d+>>>", re.DOTALL)
_QUESTION_BLOCK = re.compile(r"<<<BEGIN QUESTION \d+>>>")


def dry_run_reply(messages: list[dict[str, Any]]) -> str:
    """A parseable stand-in reply for each agent, so a dry run walks the longest path:
    the judge never gives 5 (``[RESULT] 3``), the generator always asks a new query,
    and the composer answers with the latest target answer (a length proxy)."""
    last = str(messages[-1].get("content", "")) if messages else ""
    prompt = "\n".join(str(m.get("content", "")) for m in messages)
    if last.rstrip().endswith(QUERY_FORMAT):
        asked = len(_QUESTION_BLOCK.findall(last))
        return f"Query: (dry run) follow-up question {asked + 1}?, Explanation: (dry run)"
    if last.rstrip().endswith((ANSWER_FORMAT, REWRITE_FORMAT)):
        answers = _QA_ANSWER.findall(prompt)
        latest = answers[-1].strip() if answers else ""
        if not latest or _EXPLANATION_LABEL.search(latest):
            latest = "(dry run) composed answer"
        return f"Answer: {latest}, Explanation: (dry run)"
    return "Feedback: (dry run) [RESULT] 3"


# the dialogue -----------------------------------------------------------------------


class _DialogueError(Exception):
    """Ends the dialogue: the scores become errors (with the calls made so far)."""

    def __init__(self, message: str, call_ids: Sequence[int] = ()) -> None:
        super().__init__(message)
        self.call_ids = list(call_ids)


@dataclass
class _Dialogue:
    """The state of one sample's dialogue and its transcript."""

    question: str
    reference: str
    earlier: list[Message]
    contexts: list[ContextChunk]
    turns: list[dict[str, str]] = field(default_factory=list)
    sigma: list[int] = field(default_factory=list)
    events: list[dict[str, Any]] = field(default_factory=list)
    call_ids: list[int] = field(default_factory=list)

    def history_messages(self) -> list[Message]:
        """The conversation before the next query: the sample's own, then the turns."""
        messages = list(self.earlier)
        for turn in self.turns:
            messages.append(Message(role="user", content=turn["query"]))
            messages.append(Message(role="assistant", content=turn["answer"]))
        return messages

    def earlier_text(self) -> str:
        return "\n".join(f"{m.role}: {m.content}" for m in self.earlier)

    def record(self, task: str, call_ids: Sequence[int] = (), **fields: Any) -> None:
        self.events.append(
            {"task": task, "turn": len(self.turns), **fields, "call_ids": list(call_ids)}
        )
        self.call_ids.extend(call_ids)

    def transcript(self) -> dict[str, Any]:
        return {
            "target_question": self.question,
            "context_doc_uris": [c.doc_uri for c in self.contexts],
            "events": self.events,
        }


class _DialogueRun:
    """One sample's walk through T1–T7 with the metric's agents."""

    def __init__(
        self, metric: MultiTurn, sample: Sample, first: Output, ctx: MetricContext, d: _Dialogue
    ) -> None:
        self.metric = metric
        self.sample = sample
        self.first = first
        self.ctx = ctx
        self.d = d

    def purpose(self, task: str) -> str:
        return f"{self.metric.name}.{task}"

    async def run(self) -> str:
        """Hold the dialogue; how it ended (a key of ``_END_REASONS``)."""
        n = self.metric.max_turns
        query = self.d.question
        while True:
            await self.ask_target(query)  # T1
            composed = await self.compose()  # T2
            verdict = await self.judge(composed, "T3", "judge")  # T3
            if verdict.score == PERFECT:
                return "perfect"
            if len(self.d.sigma) >= n:
                return "turn_limit"
            next_query = await self.next_query(composed, verdict)  # T4, T5
            if next_query is None:
                final = await self.rewrite(composed)  # T6
                await self.judge(final, "T7", "final_judge")  # T7
                return "no_more_queries"
            query = next_query

    async def ask_target(self, query: str) -> None:
        """T1: the target answers ``query`` with the dialogue so far as history."""
        if not self.d.turns:
            output = self.first
        else:
            request = Request.parse(
                {
                    "query": query,
                    "history": [m.model_dump() for m in self.d.history_messages()],
                }
            )
            output = await self.ctx.target(self.sample.model_copy(update={"request": request}))
        turn = len(self.d.turns) + 1
        if output.response is None:
            self.d.record("T1", turn=turn, query=query, answer=None, error=output.error)
            raise _DialogueError(
                f"the target failed at turn {turn}: {output.error or 'no response'}"
            )
        self.d.turns.append({"query": query, "answer": output.response})
        self.d.record(
            "T1",
            query=query,
            answer=output.response,
            retrieved_doc_uris=[c.doc_uri for c in output.retrieved_context or []],
            latency=output.latency,
            usage=output.usage.model_dump(),
        )

    async def compose(self) -> str:
        """T2: a tentative answer from the Q/A history only."""
        user = render(
            TEMPLATES, "multiturn_compose.jinja", turns=self.d.turns, answer_format=ANSWER_FORMAT
        )
        reply, ids = await self.agent("composer", user, parse_agent_answer, "compose")
        self.d.record("T2", ids, answer=reply.answer, explanation=reply.explanation)
        return reply.answer

    async def judge(self, answer: str, task: str, purpose: str) -> Judgement:
        """T3/T7: the answer-accuracy judge scores ``answer``; the score joins σ."""
        verdict = await judge_answer(
            self.ctx,
            question=self.d.question,
            response=answer,
            reference=self.d.reference,
            contexts=self.d.contexts,
            purpose=self.purpose(purpose),
        )
        if verdict.score is None:
            self.d.record(task, verdict.call_ids, answer=answer, score=None, error=verdict.error)
            raise _DialogueError(f"judge ({task}): {verdict.error}", verdict.call_ids)
        self.d.sigma.append(verdict.score)
        self.d.record(
            task,
            verdict.call_ids,
            answer=answer,
            score=verdict.score,
            feedback=verdict.feedback,
            sigma_index=len(self.d.sigma) - 1,
        )
        return verdict

    async def next_query(self, tentative: str, verdict: Judgement) -> str | None:
        """T4/T5: the generator decides from the judge's feedback whether to ask more,
        and writes the next query (None: no more questions)."""
        evaluation = f"{verdict.feedback or ''}\nScore: {verdict.score}".strip()
        user = render(
            TEMPLATES,
            "multiturn_query.jinja",
            turns=self.d.turns,
            tentative=tentative,
            evaluation=evaluation,
            reference=self.d.reference,
            query_format=QUERY_FORMAT,
        )
        asked = [turn["query"] for turn in self.d.turns]
        reply, ids = await self.agent(
            "generator", user, lambda text: parse_agent_query(text, asked), "query"
        )
        decision = "stop" if reply.query is None else "ask"
        self.d.record(
            "T4/T5", ids, decision=decision, query=reply.query, explanation=reply.explanation
        )
        return reply.query

    async def rewrite(self, tentative: str) -> str:
        """T6: the tentative answer rewritten to the reference's level of detail."""
        user = render(
            TEMPLATES,
            "multiturn_rewrite.jinja",
            turns=self.d.turns,
            tentative=tentative,
            reference=self.d.reference,
            answer_format=REWRITE_FORMAT,
        )
        reply, ids = await self.agent("composer", user, parse_agent_answer, "rewrite")
        self.d.record("T6", ids, answer=reply.answer, explanation=reply.explanation)
        return reply.answer

    async def agent(
        self, role: str, user: str, parse: Callable[[str], T], purpose: str
    ) -> tuple[T, list[int]]:
        """Ask the composer or the generator (its system prompt plus ``user``)."""
        model = self.ctx.model_for(role)  # the judge unless the role has its own model
        system = render(
            TEMPLATES,
            f"multiturn_{role}_system.jinja",
            question=self.d.question,
            earlier=self.d.earlier_text(),
        )
        messages: list[ChatMessage] = [
            {"role": "system", "content": system},
            {"role": "user", "content": user},
        ]
        try:
            parsed = await model.generate_parsed(
                messages,
                parse,
                self.ctx.generate_config,
                trial=self.ctx.trial,
                purpose=self.purpose(purpose),
            )
        except ModelError as exc:
            raise _DialogueError(
                f"{role} call failed: {exc}", getattr(exc, "call_ids", [])
            ) from None
        if parsed.value is None:
            raise _DialogueError(f"{role}: {parsed.error or 'parse error'}", parsed.call_ids)
        return parsed.value, parsed.call_ids


# the metric -------------------------------------------------------------------------


class MultiTurn(Metric):
    """Continuous-response evaluation: ``wscore``, ``lscore`` (lower is better) and
    ``mscore`` of the score list σ of a dialogue of at most ``max_turns`` turns.

    ``contexts`` chooses what the judge is shown: ``reference`` (E3, the default:
    retrieved once per sample with the original question and the reference answer;
    needs a knowledge base), ``expected`` (the row's ``expected_retrieved_context``,
    for sets that carry their passages, such as MTRAG-UN; none when the row has none)
    or ``none``; ``k`` contexts at most. ``composer_model`` and ``generator_model``
    are model specs for those agents (default: the judge).
    """

    name = "multiturn"
    requires: tuple[str, ...] = ("expected_response",)
    needs_judge = True

    def __init__(
        self,
        *,
        max_turns: int = 5,
        k: int = 5,
        contexts: str = "reference",
        composer_model: str | None = None,
        generator_model: str | None = None,
    ) -> None:
        if contexts not in CONTEXT_SOURCES:
            raise ValueError(
                f"multiturn: contexts must be one of {', '.join(CONTEXT_SOURCES)}, not {contexts!r}"
            )
        self.max_turns = positive_int("multiturn", "max_turns", max_turns)
        self.k = positive_int("multiturn", "k", k)
        self.contexts = contexts
        self.needs_retriever = contexts in ("reference", "question")
        self.dry_run_reply = dry_run_reply
        roles = {"composer": composer_model, "generator": generator_model}
        self.agent_models = {role: spec for role, spec in roles.items() if spec}

    def score_names(self) -> list[str]:
        """``wscore``, ``lscore``, ``mscore`` — prefixed ``NAME.`` for a named instance."""
        return [self._score_name(base) for base in SCORE_BASES]

    def _score_name(self, base: str) -> str:
        return base if self.name == "multiturn" else f"{self.name}.{base}"

    def check_target(self, target: Any) -> str | None:
        """Why ``target`` cannot hold a dialogue, or None when it can. For the runner
        to call before any work."""
        if target is None:
            return f"metric {self.name!r} holds a dialogue with the system under test: configure a target"
        if not getattr(target, "supplies_response", True):
            return (
                f"metric {self.name!r} holds a dialogue with the system under test, so it "
                "needs a target that answers (a callable or an HTTP endpoint), not the "
                "responses in the data"
            )
        supports = getattr(target, "supports_history", None)
        if supports is False:
            return (
                f"metric {self.name!r} needs a target that takes the conversation history; "
                f"{getattr(target, 'name', target)!r} does not (a function needs a 'history', "
                "'messages', 'request' or 'sample' parameter; an HTTP target must send the "
                "history or the messages)"
            )
        return None

    async def score(self, sample: Sample, output: Output, ctx: MetricContext) -> list[Score]:
        """Hold the dialogue for ``sample`` (``output`` is the first answer) and score σ."""
        problem = self.check_target(ctx.target)
        if problem is not None:
            return self._failed(problem)
        if ctx.judge is None:
            return self._failed("no judge model configured")
        found = response_and_references(self.name, sample, output)
        if isinstance(found, Score):
            return self._failed(found.error or "no response")
        _, references = found
        reference = references[0][1]
        try:
            contexts = await evaluation_contexts(
                self.contexts, sample, output, reference, ctx, self.k
            )
        except ValueError as exc:
            return self._failed(str(exc))
        dialogue = _Dialogue(
            question=sample.request.query,
            reference=reference,
            earlier=list(sample.request.history),
            contexts=contexts,
        )
        try:
            end = await _DialogueRun(self, sample, output, ctx, dialogue).run()
        except _DialogueError as exc:
            dialogue.call_ids.extend(i for i in exc.call_ids if i not in dialogue.call_ids)
            return self._failed(str(exc), dialogue)
        return self._scores(dialogue, end)

    def _scores(self, d: _Dialogue, end: str) -> list[Score]:
        sigma, n = d.sigma, self.max_turns
        rationale = f"σ = {sigma} with n = {n} turns; ended: {_END_REASONS[end]}"
        values = {"wscore": wscore(sigma, n), "lscore": lscore(sigma), "mscore": mscore(sigma)}
        return [
            self._score(base, d, end, value=float(value), rationale=rationale)
            for base, value in values.items()
        ]

    def _failed(self, error: str, d: _Dialogue | None = None) -> list[Score]:
        return [self._score(base, d, "error", value=None, error=error) for base in SCORE_BASES]

    def _score(self, base: str, d: _Dialogue | None, end: str, **result: Any) -> Score:
        """One of the three scores; σ, the end and the call ids go on all three, the
        transcript on ``wscore`` only."""
        if d is None:
            return Score(metric=self._score_name(base), **result)
        details: dict[str, Any] = {"sigma": list(d.sigma), "max_turns": self.max_turns, "end": end}
        if base == "wscore":
            details["transcript"] = d.transcript()
        else:
            details["transcript_on"] = self._score_name("wscore")
        return Score(
            metric=self._score_name(base),
            details=details,
            judge_call_ids=list(d.call_ids),
            **result,
        )


_END_REASONS = {
    "perfect": "the judge gave 5",
    "turn_limit": "turn limit reached",
    "no_more_queries": "no more queries needed; final answer judged",
}


# The class is its own factory: its keyword arguments are the metric's options.
register_metric("multiturn")(MultiTurn)
