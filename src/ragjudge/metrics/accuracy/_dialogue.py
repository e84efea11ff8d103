"""One sample's multi-turn follow-up dialogue, step by step: the state and transcript of
the dialogue, and its walk with the metric's agents (see :mod:`.multiturn`)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, TypeVar

from ragjudge.metrics._base import MetricFailure
from ragjudge.metrics._judged import Judging
from ragjudge.metrics.accuracy.agents import AnswerReply, QueryReply
from ragjudge.metrics.accuracy.answer_accuracy import ask_accuracy
from ragjudge.metrics.replies import Reply, ResultVerdict
from ragjudge.schema import ContextChunk, Message, Output, Request, Sample

if TYPE_CHECKING:
    from ragjudge.targets import Target

__all__ = ["END_REASONS", "PERFECT", "Dialogue", "DialogueRun"]

T = TypeVar("T")

PERFECT = 5
END_REASONS = {
    "perfect": "the judge gave 5",
    "turn_limit": "turn limit reached",
    "no_more_queries": "no more queries needed; final answer judged",
    "goal_met": "the simulated user's goal was met (no more queries); final answer judged",
    "replay_ended": "the replayed follow-up questions ran out; final answer judged",
}
Role = Literal["composer", "generator"]
_JUDGED = {"T3": "tentative answer", "T7": "final answer"}
"""What the judge scores at each of its two steps (by transcript task code)."""


@dataclass
class Dialogue:
    """The state of one sample's dialogue and its transcript."""

    question: str
    references: list[str]
    earlier: list[Message]
    contexts: list[ContextChunk]
    turns: list[dict[str, str]] = field(default_factory=list)
    sigma: list[int] = field(default_factory=list)
    events: list[dict[str, Any]] = field(default_factory=list)
    persona: str | None = None
    """Who the simulated user is (their follow-ups are worded as they would ask)."""
    goal: str | None = None
    """What the simulated user wants; the generator stops asking when it is met."""
    replayed: list[str] | None = None
    """Follow-up questions to send as they are, in order, instead of generating them
    (another run's, so two systems get byte-identical follow-ups)."""

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

    def transcript(self) -> dict[str, Any]:
        found: dict[str, Any] = {
            "target_question": self.question,
            "context_doc_uris": [c.doc_uri for c in self.contexts],
            "events": self.events,
        }
        if self.persona is not None:
            found["persona"] = self.persona
        if self.goal is not None:
            found["goal"] = self.goal
        if self.replayed is not None:
            found["replayed_followups"] = list(self.replayed)
        return found


class DialogueRun:
    """One sample's dialogue with the system under test, step by step, with the metric's
    agents."""

    def __init__(
        self,
        metric_name: str,
        max_turns: int,
        sample: Sample,
        first: Output,
        j: Judging,
        d: Dialogue,
        target: Target,
    ) -> None:
        self.metric_name = metric_name
        self.max_turns = max_turns
        self.sample = sample
        self.first = first
        self.j = j
        self.d = d
        self.target = target

    def purpose(self, task: str) -> str:
        return f"{self.metric_name}.{task}"

    async def run(self) -> str:
        """Hold the dialogue; how it ended (a key of ``END_REASONS``)."""
        n = self.max_turns
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
                return self._stopped_asking()
            query = next_query

    def _stopped_asking(self) -> str:
        if self.d.replayed is not None:
            return "replay_ended"
        return "goal_met" if self.d.goal else "no_more_queries"

    async def ask_target(self, query: str) -> None:
        """The system answers ``query`` with the dialogue so far as history."""
        if not self.d.turns:
            output = self.first
        else:
            request = Request.parse(
                {
                    "query": query,
                    "history": [m.model_dump() for m in self.d.history_messages()],
                }
            )
            output = await self.target(self.sample.model_copy(update={"request": request}))
        turn = len(self.d.turns) + 1
        if output.response is None:
            self.d.record("T1", turn=turn, query=query, answer=None, error=output.error)
            raise MetricFailure(
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

    def latest_answer(self) -> str:
        return self.d.turns[-1]["answer"] if self.d.turns else ""

    async def compose(self) -> str:
        """The composer's tentative answer, from the Q/A history only."""
        reply, ids = await self.agent(
            "composer", "multiturn_compose.jinja", AnswerReply(self.latest_answer()), "compose"
        )
        self.d.record("T2", ids, answer=reply.answer, explanation=reply.explanation)
        return reply.answer

    async def judge(self, answer: str, task: str, purpose: str) -> ResultVerdict:
        """The answer-accuracy judge scores ``answer`` (tentative or final); the score
        joins the score list."""
        try:
            verdict = await ask_accuracy(
                self.j,
                question=self.d.question,
                response=answer,
                references=self.d.references,
                contexts=self.d.contexts,
                purpose=self.purpose(purpose),
            )
        except MetricFailure as exc:
            self.d.record(task, exc.call_ids, answer=answer, score=None, error=exc.message)
            raise MetricFailure(f"judge of the {_JUDGED[task]}: {exc.message}") from None
        self.d.sigma.append(verdict.value.score)
        self.d.record(
            task,
            verdict.call_ids,
            answer=answer,
            score=verdict.value.score,
            feedback=verdict.value.feedback,
            sigma_index=len(self.d.sigma) - 1,
        )
        return verdict.value

    async def next_query(self, tentative: str, verdict: ResultVerdict) -> str | None:
        """The generator decides from the judge's feedback whether to ask a follow-up
        question, and writes it (None: no more questions)."""
        if self.d.replayed is not None:
            return self._replayed_query()
        evaluation = f"{verdict.feedback or ''}\nScore: {verdict.score}".strip()
        reader = QueryReply([turn["query"] for turn in self.d.turns])
        try:
            reply, ids = await self.agent(
                "generator",
                "multiturn_query.jinja",
                reader,
                "query",
                tentative=tentative,
                evaluation=evaluation,
                references=self.d.references,
                persona=self.d.persona,
                goal=self.d.goal,
            )
        except MetricFailure as exc:
            if reader.repeated is None or not _gave_up_parsing(exc):
                raise
            # Still repeating itself after the re-asks: it has nothing new to ask.
            self.d.record(
                "T4/T5",
                exc.call_ids,
                decision="stop",
                query=None,
                repeated=reader.repeated,
                explanation="the generator kept repeating an earlier question; no more queries",
            )
            return None
        decision = "stop" if reply.query is None else "ask"
        self.d.record(
            "T4/T5", ids, decision=decision, query=reply.query, explanation=reply.explanation
        )
        return reply.query

    def _replayed_query(self) -> str | None:
        """The next replayed follow-up (no generator call); None when they ran out."""
        replayed = self.d.replayed or []
        index = len(self.d.turns) - 1
        query = replayed[index] if index < len(replayed) else None
        self.d.record(
            "T4/T5",
            decision="stop" if query is None else "ask",
            query=query,
            replayed=True,
            explanation="replayed follow-up question"
            if query is not None
            else "the replayed follow-up questions ran out",
        )
        return query

    async def rewrite(self, tentative: str) -> str:
        """The composer's final answer: the tentative answer rewritten to the reference's
        level of detail."""
        reply, ids = await self.agent(
            "composer",
            "multiturn_rewrite.jinja",
            AnswerReply(self.latest_answer()),
            "rewrite",
            tentative=tentative,
            references=self.d.references,
        )
        self.d.record("T6", ids, answer=reply.answer, explanation=reply.explanation)
        return reply.answer

    async def agent(
        self, role: Role, template: str, reply: Reply[T], purpose: str, **values: Any
    ) -> tuple[T, list[int]]:
        """Ask the composer or the generator: its system prompt, then ``template``."""
        verdict = await self.j.ask(
            reply,
            template,
            system=f"multiturn_{role}_system.jinja",
            role=role,
            purpose=self.purpose(purpose),
            question=self.d.question,
            earlier=self.d.earlier_text(),
            turns=self.d.turns,
            **values,
        )
        return verdict.value, verdict.call_ids


def _gave_up_parsing(exc: MetricFailure) -> bool:
    """Whether a failed agent call is a reply that still did not parse after the
    re-asks (not a call that failed)."""
    return "parse error" in exc.message and "call failed" not in exc.message
