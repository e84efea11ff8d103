"""Multi-turn follow-up evaluation: how much of the reference answer a user can get out
of the system under test by asking follow-up questions, and how fast.

For each (target question, reference answer) three agents hold a dialogue of at most
``n = max_turns`` turns with the target. Each step is recorded in the transcript under
the task code of the paper the method comes from (cited in ``docs/validation.md``),
given here in brackets:

- **The system answers** [``T1``]: the target is asked the current query, with the
  dialogue so far as history (the sample's own earlier conversation, if any, comes
  first); the pair is appended to the Q/A history. The first query is the target
  question itself, and its answer is the ``output`` the runner already obtained for
  the sample.
- **The composer drafts a tentative answer** [``T2``] to the target question from the
  Q/A history only.
- **The judge scores the tentative answer** [``T3``] 0–5 with feedback (the judge of
  :mod:`~ragjudge.metrics.accuracy.answer_accuracy`, shown the contexts retrieved once
  per sample with the ORIGINAL question and the reference answer — reference-retrieved
  contexts). A 5 ends the dialogue.
- **The generator asks a follow-up question or stops** [``T4/T5``]: it reads the
  feedback and either writes a new query (one that differs from every earlier
  question and states no fact found only in the reference), and the system answers
  it, or leaves the query blank: no more questions. A query that repeats an earlier
  question is re-asked like a parse failure; a generator that still repeats itself
  after the re-asks has nothing new to ask, so the dialogue goes on to the final
  answer as if it had left the query blank (the transcript records the repeat).
- **The composer rewrites the final answer** [``T6``]: the tentative answer at the
  reference answer's level of detail, without adding what only the reference says,
  and **the judge scores the final answer** [``T7``].

**The score list and the turn limit.** Every judged answer adds one score to the
dialogue's score list: each score of a tentative answer, and the final answer's score
when the dialogue got that far. The turn limit ``n`` bounds the list, as in the paper
(the list ``[s0 … sk]`` with ``0 ≤ k < n``; all scores between 0 and n). The paper
asks a follow-up question only "if the maximum number of turns is not reached" and
does not say what follows when it is; ragjudge reads the limit as the length of the
score list: after a tentative answer scored below 5 with the list already holding
``n`` scores the dialogue ends there — there is no slot left for a further query nor
for a final answer, so the follow-up question, the rewrite and the final judgement
are skipped (and no generator call is spent). The final answer is therefore written
and judged only when the generator stops asking (or keeps repeating itself) before
the limit, and its score takes the next slot. So a dialogue makes at most ``n``
target calls, ``n`` judge calls, ``n`` composer calls and ``n - 1`` generator calls
(``3n - 1`` agent calls, the dry run's upper bound).

**Several references.** All the row's non-blank reference answers are shown to the
judge, the composer's rewrite and the generator together, as alternatives, and the
reference-retrieved contexts are retrieved once with the question and all of them
(see :mod:`~ragjudge.metrics.accuracy.answer_accuracy`).

**0 ("not sure").** A 0 stays in the score list as the value 0: it lowers ``wscore``
and counts towards ``lscore``; unlike the answer-accuracy mean, nothing is left out
here, because the list describes one dialogue and a "not sure" turn is a turn that
gave nothing.

**The three scores** (:func:`wscore`, :func:`lscore`, :func:`mscore`):

- ``wscore``, the turn-weighted score (higher is better): the scores weighted
  ``n, n-1, …`` by turn, the last score carried to the turns the dialogue did not
  need, over ``n + … + 1`` (``n = 3``, scores ``[1, 5]`` →
  ``(3·1 + 2·5 + 1·5) / 6 = 3``);
- ``lscore``, the turns needed: the length of the score list, the turns until the
  dialogue ended — **lower is better**; the summary shows plain means, so read its
  mean and a comparison's sign the other way round;
- ``mscore``, the best score: the best answer the dialogue produced (higher is better).

The scores are named ``wscore``, ``lscore``, ``mscore``; an instance given its own
name (``{metric: multiturn, name: mqa}``) names them ``mqa.wscore`` … so several can
run side by side. The per-sample transcript (every query, target answer, composed
answer, judge feedback and score, generator decision and explanation, each with its
call ids) is stored on the ``wscore`` score as ``details["transcript"]``; all three
scores carry the score list (``details["sigma"]``) and every judge/agent call id. When
anything fails mid-dialogue (the target, a model call, an output that still does not
parse after the re-asks — other than the generator's repeated question above) all
three scores are explicit errors, with the transcript so far — never numbers.

In a dry run the stand-in judge never gives 5 and the stand-in generator always asks
a new question, so the estimate follows the longest dialogue (an upper bound).

The target must carry a conversation: :meth:`MultiTurn.check_target` rejects the
responses in the data and targets that declare ``supports_history = False`` or (a
Python function) take no ``history``/``messages``/``request``/``sample`` argument.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pydantic import Field

from ragjudge.metrics._base import MetricFailure, Produced, references, require_response
from ragjudge.metrics._contexts import (
    JUDGE_CONTEXTS,
    ContextOptions,
    evaluation_contexts,
    searches,
    shown_contexts,
)
from ragjudge.metrics._judged import JudgedMetric, Judging
from ragjudge.metrics._registry import register_metric
from ragjudge.metrics.accuracy._dialogue import END_REASONS, Dialogue, DialogueRun
from ragjudge.metrics.accuracy.sigma import lscore, mscore, wscore
from ragjudge.schema import Output, Sample, Score, ScoreMeaning

if TYPE_CHECKING:
    from ragjudge.targets import Target

__all__ = ["MultiTurn", "MultiTurnOptions"]

SCORE_BASES = ("wscore", "lscore", "mscore")


class MultiTurnOptions(ContextOptions):
    """The options of :class:`MultiTurn`."""

    max_turns: int = Field(default=5, ge=1)
    """The turn limit n: the dialogue's score list holds at most this many scores."""
    composer_model: str | None = None
    """Model spec of the composer agent (default: the judge)."""
    generator_model: str | None = None
    """Model spec of the generator agent (default: the judge)."""
    persona: str | None = None
    """Who the simulated user is: the generator words its follow-ups as they would
    (a row's ``metadata.persona`` text wins)."""
    goal: str | None = None
    """What the simulated user wants: the generator asks only what serves it and stops
    when it is met (a row's ``metadata.goal`` text wins)."""
    replay: bool = False
    """Send the row's ``metadata.followups`` (another run's follow-up questions, written
    by ``ragjudge followups RUN``) as they are instead of generating follow-ups, so two
    systems get the same questions."""


_SCORE_MEANINGS = {
    "wscore": ScoreMeaning(
        low=0, high=5, description="turn-weighted score of the dialogue (higher is better)"
    ),
    "lscore": ScoreMeaning(
        direction="lower", low=1, high=None, description="judged answers until the dialogue ended"
    ),
    "mscore": ScoreMeaning(low=0, high=5, description="best score of the dialogue"),
}


@register_metric("multiturn")
class MultiTurn(JudgedMetric):
    """Multi-turn follow-up evaluation: the turn-weighted score ``wscore``, the turns
    needed ``lscore`` (lower is better) and the best score ``mscore`` of a dialogue of
    at most ``max_turns`` turns.

    ``contexts`` chooses what the judge is shown (:data:`~ragjudge.metrics.ContextSource`;
    ``reference``, contexts retrieved once per sample with the original question and
    the reference answer, is the default; ``expected`` suits sets that carry their
    passages, such as MTRAG-UN); ``k`` contexts at most. ``composer_model`` and
    ``generator_model`` are model specs for those agents (default: the judge).
    """

    pipeline_parts = ("conversation",)

    calls_per_sample = "up to 3 per turn (judge, composer, generator), max_turns turns"

    Options = MultiTurnOptions
    options: MultiTurnOptions
    requires: tuple[str, ...] = ("expected_response",)
    scores = _SCORE_MEANINGS

    @property
    def needs_retriever(self) -> bool:
        """Whether ``contexts`` searches (``reference`` or ``question``)."""
        return searches(self.options.contexts)

    def model_roles(self) -> dict[str, str]:
        """The composer's and the generator's model specs, where given."""
        roles = {"composer": self.options.composer_model, "generator": self.options.generator_model}
        return {role: spec for role, spec in roles.items() if spec}

    def check_target(self, target: Target | None) -> str | None:
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

    async def judge(self, sample: Sample, output: Output, j: Judging) -> Produced:
        """Hold the dialogue for ``sample`` (``output`` is the first answer) and score it."""
        target = j.ctx.target
        problem = self.check_target(target)
        if problem is not None or target is None:
            raise MetricFailure(problem or "no target")
        require_response(output)
        answers = [text for _, text in references(sample)]
        source, k = self.options.contexts, self.options.k
        try:
            contexts = await evaluation_contexts(source, sample, output, answers, j.ctx, k)
        except ValueError as exc:
            raise MetricFailure(str(exc)) from None
        dialogue = Dialogue(
            question=sample.request.query,
            references=answers,
            earlier=list(sample.request.history),
            contexts=contexts,
            persona=_text_of(sample, "persona", self.options.persona),
            goal=_text_of(sample, "goal", self.options.goal),
            replayed=_followups(sample) if self.options.replay else None,
        )
        try:
            run = DialogueRun(
                self.name, self.options.max_turns, sample, output, j, dialogue, target
            )
            end = await run.run()
        except MetricFailure as exc:
            return self._failed(exc.message, dialogue, j.call_ids)
        return self._scores(dialogue, end, j.call_ids)

    def _scores(self, d: Dialogue, end: str, call_ids: list[int]) -> list[Score]:
        sigma, n = d.sigma, self.options.max_turns
        rationale = f"scores by turn {sigma} with a limit of {n} turns; ended: {END_REASONS[end]}"
        values = {"wscore": wscore(sigma, n), "lscore": lscore(sigma), "mscore": mscore(sigma)}
        return [
            self._score(base, d, end, call_ids, value=float(value), rationale=rationale)
            for base, value in values.items()
        ]

    def _failed(self, error: str, d: Dialogue, call_ids: list[int]) -> list[Score]:
        return [
            self._score(base, d, "error", call_ids, value=None, error=error) for base in SCORE_BASES
        ]

    def _score(self, base: str, d: Dialogue, end: str, call_ids: list[int], **result: Any) -> Score:
        """One of the three scores; the score list, the end and the call ids go on all
        three, the transcript on ``wscore`` only."""
        details: dict[str, Any] = {
            "sigma": list(d.sigma),
            "max_turns": self.options.max_turns,
            "end": end,
        }
        if base == "wscore":
            details["transcript"] = d.transcript()
            details[JUDGE_CONTEXTS] = shown_contexts(list(d.contexts))
        else:
            details["transcript_on"] = self.score_name("wscore")
        return Score(
            metric=self.score_name(base),
            details=details,
            judge_call_ids=list(call_ids),
            **result,
        )


def _text_of(sample: Sample, key: str, default: str | None) -> str | None:
    """The row's ``metadata.KEY`` when it is text, else ``default``; other values are
    the row's mistake."""
    value = sample.metadata.get(key)
    if value is None:
        return default
    if not isinstance(value, str) or not value.strip():
        raise MetricFailure(f"metadata.{key} must be non-empty text, not {value!r}")
    return value


def _followups(sample: Sample) -> list[str]:
    """The follow-up questions a replay sends: the row's ``metadata.followups``."""
    found = sample.metadata.get("followups")
    if not isinstance(found, list) or not all(isinstance(q, str) and q for q in found):
        raise MetricFailure(
            "replay: the row has no metadata.followups (a list of questions); write "
            "another run's follow-ups into the set with 'ragjudge followups RUN -o FILE'"
        )
    return list(found)
