"""Multi-turn follow-up evaluation: the score list and its scores, the agents' reply
parsing, every path of the dialogue (transcript tasks T1–T7) with scripted agents, the
quickstart RAG over HTTP in both variants, and a dry run over the MTRAG-UN tasks."""

from __future__ import annotations

import json
import re
import sqlite3
from collections import Counter, defaultdict
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

import ragjudge as rj
from conftest import import_quickstart, shared_data
from ragjudge.config import EvalConfig, load_config
from ragjudge.metrics import MetricContext, create_metric
from ragjudge.metrics.accuracy.agents import (
    AnswerReply,
    QueryReply,
    parse_agent_answer,
    parse_agent_query,
)
from ragjudge.metrics.accuracy.multiturn import MultiTurn
from ragjudge.metrics.accuracy.sigma import lscore, mscore, wscore
from ragjudge.metrics.replies import ParseError
from ragjudge.models import JudgeCallRecord, JudgeModel, ModelError, ModelSettings
from ragjudge.models.scripted import ReplyScript, ScriptedProvider, prompt_text
from ragjudge.run._dryrun import StandInJudge
from ragjudge.run._runner import dry_run
from ragjudge.schema import ContextChunk, Output, Sample, Score
from ragjudge.targets._targets import CallableTarget, DataTarget
from ragjudge.targets.http import JsonApiTarget, OpenAIChatTarget

REPO = Path(__file__).resolve().parents[3]
QUICKSTART = REPO / "examples" / "quickstart"

QUESTION = "What do UNION and UNION ALL do, and how do they differ?"
REFERENCE = "Both combine SELECT results. UNION removes duplicates, UNION ALL keeps them."
FIRST_ANSWER = "They combine results. UNION keeps duplicates and UNION ALL removes them."


# the score list and its scores -------------------------------------------------------


def test_worked_example_of_the_paper() -> None:
    assert wscore([1, 5], 3) == 3.0
    assert lscore([1, 5]) == 2
    assert mscore([1, 5]) == 5


@pytest.mark.parametrize(
    ("sigma", "n", "expected"),
    [
        ([5], 5, 5.0),  # stop at turn 1: the score fills every turn
        ([4], 1, 4.0),  # a one-turn limit
        ([1, 2, 3], 3, (3 * 1 + 2 * 2 + 1 * 3) / 6),  # ran to the limit
        ([0, 5], 3, (3 * 0 + 2 * 5 + 1 * 5) / 6),  # "not sure" counts as 0
        ([3, 3, 4], 5, (5 * 3 + 4 * 3 + 3 * 4 + 2 * 4 + 1 * 4) / 15),  # T6/T7 path, 3 slots
        ([0], 5, 0.0),
    ],
)
def test_wscore_carries_the_last_score_to_the_remaining_turns(
    sigma: list[int], n: int, expected: float
) -> None:
    assert wscore(sigma, n) == pytest.approx(expected)


def test_lscore_and_mscore_edges() -> None:
    assert (lscore([5]), mscore([5])) == (1, 5)
    assert (lscore([0, 0, 0]), mscore([0, 0, 0])) == (3, 0)
    assert (lscore([4, 2]), mscore([4, 2])) == (2, 4)


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: wscore([], 3), "empty"),
        (lambda: wscore([1, 2, 3, 4], 3), "more than the turn limit"),
        (lambda: wscore([1], 0), "at least 1"),
        (lambda: wscore([-1], 3), "negative"),
        (lambda: lscore([]), "empty"),
        (lambda: mscore([]), "empty"),
    ],
)
def test_sigma_that_no_dialogue_can_give_is_rejected(
    call: Callable[[], object], message: str
) -> None:
    with pytest.raises(ValueError, match=message):
        call()


# parsing the agents -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "answer", "explanation"),
    [
        (
            "Answer: UNION drops duplicates., Explanation: from turn 2",
            "UNION drops duplicates.",
            "from turn 2",
        ),
        ("answer: lower case EXPLANATION: upper", "lower case", "upper"),
        ("Answer: no comma here Explanation: fine", "no comma here", "fine"),
        ("Answer: line one\nline two\n\nExplanation: multi", "line one\nline two", "multi"),
        ("Answer: only an answer", "only an answer", None),
        ("Answer: blank explanation, Explanation:  ", "blank explanation", None),
        ("**Answer:** bold label\n**Explanation:** too", "bold label", "too"),
        ("Sure.\nAnswer：全角のコロン、Explanation：説明", "全角のコロン", "説明"),
        ("Answer: <wrapped in brackets>, Explanation: x", "wrapped in brackets", "x"),
    ],
)
def test_composer_replies_parse_robustly(text: str, answer: str, explanation: str | None) -> None:
    parsed = parse_agent_answer(text)
    assert (parsed.answer, parsed.explanation) == (answer, explanation)


@pytest.mark.parametrize("text", ["UNION drops duplicates.", "Answer: , Explanation: none", ""])
def test_composer_reply_without_an_answer_is_a_parse_error(text: str) -> None:
    with pytest.raises(ParseError):
        parse_agent_answer(text)


@pytest.mark.parametrize(
    ("text", "query"),
    [
        (
            "Query: Does UNION remove duplicates?, Explanation: check",
            "Does UNION remove duplicates?",
        ),
        ("QUERY: Which is faster?\nExplanation: speed", "Which is faster?"),
        ("Query: , Explanation: the answer is complete", None),
        ("Query:\nExplanation: nothing is missing", None),
        ("Query: (blank), Explanation: done", None),
        ("Query: None, Explanation: done", None),
        ("Query: N/A", None),
        ("Query: No further queries are needed., Explanation: done", None),
        ("Query: なし、Explanation: 完全", None),
        ("Query: No duplicates in UNION ALL?, Explanation: confirm", "No duplicates in UNION ALL?"),
    ],
)
def test_generator_replies_and_blank_queries(text: str, query: str | None) -> None:
    assert parse_agent_query(text).query == query


def test_generator_must_not_repeat_an_earlier_question() -> None:
    with pytest.raises(ParseError, match="repeats question 1"):
        parse_agent_query("Query: what is union?  Explanation: again", ["What is UNION"])
    with pytest.raises(ParseError, match="no 'Query:' label"):
        parse_agent_query("I would ask about duplicates.")


# scripted agents --------------------------------------------------------------------

_TARGET_QUESTION = re.compile(r"<<<BEGIN (?:TARGET )?QUESTION>>>\n(.*?)\n<<<END", re.DOTALL)
_QA_ANSWER = re.compile(r"<<<BEGIN QA ANSWER \d+>>>\n(.*?)\n<<<END", re.DOTALL)


class Agents:
    """Judge, composer and generator scripted per target question, told apart by the
    distinctive text of each prompt. Each role's replies are used in order (the last
    one repeats); without composer replies the composer echoes the latest QA answer."""

    def __init__(
        self,
        *,
        judge: list[str],
        compose: list[str] | None = None,
        query: list[str] | None = None,
        rewrite: list[str] | None = None,
    ) -> None:
        self.scripts = {"judge": judge, "compose": compose, "query": query, "rewrite": rewrite}
        self.used: defaultdict[tuple[str, str], int] = defaultdict(int)
        self.calls: Counter[str] = Counter()
        self.prompts: defaultdict[str, list[str]] = defaultdict(list)

    @staticmethod
    def role(prompt: str) -> str:
        if "Query: <query>" in prompt:
            return "query"
        if "Answer: <revised answer>" in prompt:
            return "rewrite"
        if "Answer: <answer>" in prompt:
            return "compose"
        assert "[RESULT]" in prompt
        return "judge"

    def __call__(self, messages: list[dict[str, Any]]) -> str:
        prompt = prompt_text(messages)
        role = self.role(prompt)
        self.calls[role] += 1
        self.prompts[role].append(prompt)
        found = _TARGET_QUESTION.search(prompt)
        key = (role, found.group(1) if found else "")
        script = self.scripts[role]
        if not script:
            assert role == "compose", f"no script for the {role}"
            return f"Answer: {_QA_ANSWER.findall(prompt)[-1]}, Explanation: echoed"
        reply = script[min(self.used[key], len(script) - 1)]
        self.used[key] += 1
        return reply


def recorded_model(provider: ScriptedProvider, calls: list[JudgeCallRecord]) -> JudgeModel:
    async def record(call: JudgeCallRecord) -> int:
        calls.append(call)
        return len(calls)

    return JudgeModel(provider, settings=ModelSettings(cache=False), recorder=record)


class ScriptedTarget:
    """A Python target with history whose answers come from a list; it keeps the
    history it was given each time."""

    def __init__(self, answers: list[str | None]) -> None:
        self.answers = answers
        self.histories: list[list[dict[str, str]]] = []
        self.queries: list[str] = []

    def __call__(self, query: str, history: list[dict[str, str]]) -> str:
        self.queries.append(query)
        self.histories.append(history)
        answer = self.answers[len(self.queries) - 1]
        if answer is None:
            raise RuntimeError("the app crashed")
        return answer


class FixedRetriever:
    def __init__(self) -> None:
        self.queries: list[str] = []

    async def search(self, query: str, k: int = 5) -> list[ContextChunk]:
        self.queries.append(query)
        return [ContextChunk(doc_uri="union.md", content="UNION removes duplicate rows.")][:k]


class Run:
    """One sample scored by the metric with scripted agents and target."""

    def __init__(
        self,
        agents: Agents,
        target_answers: Sequence[str | None] = (),
        *,
        request: Any = QUESTION,
        models: dict[str, Any] | None = None,
    ) -> None:
        self.agents = agents
        self.provider = ScriptedProvider(ReplyScript(function=agents))
        self.records: list[JudgeCallRecord] = []
        self.judge = recorded_model(self.provider, self.records)
        self.target = ScriptedTarget(list(target_answers))
        self.retriever = FixedRetriever()
        self.sample = Sample(request_id="u1", request=request, expected_response=REFERENCE)
        self.models = models or {}

    async def score(self, metric: MultiTurn, first: str = FIRST_ANSWER) -> dict[str, Score]:
        ctx = MetricContext(
            judge=self.judge,
            retriever=self.retriever,
            target=CallableTarget(self.target),
            models=self.models,
        )
        scores = await metric.score(self.sample, Output(response=first), ctx)
        return {s.metric: s for s in scores}


def values(scores: dict[str, Score]) -> tuple[Any, ...]:
    return tuple(scores[n].value for n in ("wscore", "lscore", "mscore"))


def tasks(scores: dict[str, Score]) -> list[str]:
    return [event["task"] for event in scores["wscore"].details["transcript"]["events"]]


async def test_a_5_at_turn_1_ends_the_dialogue() -> None:
    run = Run(Agents(judge=["Feedback: correct and complete. [RESULT] 5"]))
    scores = await run.score(MultiTurn())

    assert values(scores) == (5.0, 1.0, 5.0)
    assert tasks(scores) == ["T1", "T2", "T3"]
    assert run.agents.calls == {"compose": 1, "judge": 1}
    assert run.target.queries == []  # turn 1's answer is the runner's output
    details = scores["wscore"].details
    assert details["end"] == "perfect" and details["sigma"] == [5]
    transcript = details["transcript"]
    assert transcript["events"][0]["answer"] == FIRST_ANSWER
    assert transcript["events"][2]["feedback"] == "correct and complete."
    # reference-retrieved contexts: retrieved once, with the original question and the reference
    assert run.retriever.queries == [f"{QUESTION}\n{REFERENCE}"]
    assert "CONTEXT 1 (union.md)" in run.agents.prompts["judge"][0]
    assert "Score 0: The response says that it is not sure." in run.agents.prompts["judge"][0]


async def test_improves_to_5_at_turn_2_with_the_dialogue_as_history() -> None:
    agents = Agents(
        judge=[
            "Feedback: UNION and UNION ALL are swapped. [RESULT] 3",
            "Feedback: now correct. [RESULT] 5",
        ],
        compose=[
            "Answer: UNION keeps duplicates., Explanation: turn 1",
            "Answer: UNION removes duplicates; UNION ALL keeps them., Explanation: turn 2",
        ],
        query=["Query: Does UNION eliminate duplicates or not?, Explanation: EVAL doubts it"],
    )
    run = Run(agents, ["Yes, UNION eliminates duplicates; UNION ALL keeps every row."])
    scores = await run.score(MultiTurn())

    sigma = [3, 5]
    assert values(scores) == (pytest.approx((5 * 3 + 4 * 5 + 6 * 5) / 15), 2.0, 5.0)
    assert all(s.details["sigma"] == sigma for s in scores.values())
    assert {s.rationale for s in scores.values()} == {
        "scores by turn [3, 5] with a limit of 5 turns; ended: the judge gave 5"
    }
    assert tasks(scores) == ["T1", "T2", "T3", "T4/T5", "T1", "T2", "T3"]
    assert run.target.queries == ["Does UNION eliminate duplicates or not?"]
    assert run.target.histories == [
        [{"role": "user", "content": QUESTION}, {"role": "assistant", "content": FIRST_ANSWER}]
    ]
    # the generator saw the feedback and score; the second composer saw both turns
    generator_prompt = agents.prompts["query"][0]
    assert "UNION and UNION ALL are swapped.\nScore: 3" in generator_prompt
    assert f"<<<BEGIN REFERENCE ANSWER>>>\n{REFERENCE}" in generator_prompt
    assert "<<<BEGIN QA ANSWER 2>>>" in agents.prompts["compose"][1]
    assert REFERENCE not in agents.prompts["compose"][1]  # T2 uses the history only
    # every call is linked, on all three scores
    assert scores["wscore"].judge_call_ids == [1, 2, 3, 4, 5]
    assert scores["lscore"].judge_call_ids == [1, 2, 3, 4, 5]
    assert "transcript" not in scores["lscore"].details
    assert scores["lscore"].details["transcript_on"] == "wscore"
    events = scores["wscore"].details["transcript"]["events"]
    assert events[3] == {
        "task": "T4/T5",
        "turn": 1,
        "decision": "ask",
        "query": "Does UNION eliminate duplicates or not?",
        "explanation": "EVAL doubts it",
        "call_ids": [3],
    }
    assert [r.purpose for r in run.records] == [
        "multiturn.compose",
        "multiturn.judge",
        "multiturn.query",
        "multiturn.compose",
        "multiturn.judge",
    ]


async def test_no_more_queries_leads_to_the_final_rewrite_and_judgement() -> None:
    agents = Agents(
        judge=["Feedback: incomplete. [RESULT] 3", "Feedback: largely correct. [RESULT] 4"],
        compose=["Answer: They combine results., Explanation: turn 1"],
        query=["Query: , Explanation: QA already said all it knows"],
        rewrite=["Answer: Both combine SELECT results., Explanation: reference granularity"],
    )
    run = Run(agents)
    scores = await run.score(MultiTurn())

    assert values(scores) == (pytest.approx((5 * 3 + 4 * 4 + 6 * 4) / 15), 2.0, 4.0)
    assert tasks(scores) == ["T1", "T2", "T3", "T4/T5", "T6", "T7"]
    transcript = scores["wscore"].details["transcript"]
    assert scores["wscore"].details["end"] == "no_more_queries"
    assert transcript["events"][3]["decision"] == "stop"
    assert transcript["events"][5]["answer"] == "Both combine SELECT results."
    assert transcript["events"][5]["sigma_index"] == 1
    assert run.target.queries == []
    rewrite_prompt = agents.prompts["rewrite"][0]
    assert "<<<BEGIN TENTATIVE ANSWER>>>\nThey combine results.\n<<<END" in rewrite_prompt
    assert f"<<<BEGIN REFERENCE ANSWER>>>\n{REFERENCE}" in rewrite_prompt
    final_judge = agents.prompts["judge"][1]
    assert "<<<BEGIN RESPONSE>>>\nBoth combine SELECT results.\n<<<END RESPONSE>>>" in final_judge
    assert [r.purpose for r in run.records][-2:] == ["multiturn.rewrite", "multiturn.final_judge"]


async def test_runs_to_the_turn_limit_without_a_last_generator_call() -> None:
    agents = Agents(
        judge=["[RESULT] 1", "[RESULT] 2", "[RESULT] 3"],
        query=["Query: What does UNION do?", "Query: What does UNION ALL do?"],
    )
    run = Run(agents, ["It combines rows.", "It keeps duplicates."])
    scores = await run.score(MultiTurn(max_turns=3))

    assert values(scores) == (pytest.approx(10 / 6), 3.0, 3.0)
    assert agents.calls == {"compose": 3, "judge": 3, "query": 2}
    assert scores["wscore"].details["end"] == "turn_limit"
    assert len(run.target.histories[1]) == 4  # two earlier turns, as messages


async def test_a_zero_stays_in_sigma() -> None:
    agents = Agents(
        judge=["Feedback: says it is not sure. [RESULT] 0", "[RESULT] 5"],
        query=["Query: Does UNION ALL keep duplicates?"],
    )
    run = Run(agents, ["Yes, it keeps them."])
    scores = await run.score(MultiTurn(max_turns=3), first="I am not sure.")

    assert scores["wscore"].details["sigma"] == [0, 5]
    assert values(scores) == (2.5, 2.0, 5.0)


async def test_a_repeated_query_is_asked_again() -> None:
    agents = Agents(
        judge=["[RESULT] 2", "[RESULT] 5"],
        query=[f"Query: {QUESTION}", "Query: Which of the two removes duplicates?"],
    )
    run = Run(agents, ["UNION does."])
    scores = await run.score(MultiTurn())

    assert run.target.queries == ["Which of the two removes duplicates?"]
    assert agents.calls["query"] == 2
    assert scores["wscore"].details["transcript"]["events"][3]["call_ids"] == [3, 4]
    assert "repeats question 1" in run.provider.calls[3][-1]["content"]


async def test_a_query_repeated_after_the_re_asks_ends_with_the_final_answer() -> None:
    agents = Agents(
        judge=["Feedback: partly right. [RESULT] 3", "Feedback: largely correct. [RESULT] 4"],
        compose=["Answer: UNION combines results., Explanation: turn 1"],
        query=[f"Query: {QUESTION.upper()}"],  # the target question again, every time
        rewrite=["Answer: UNION removes duplicates; UNION ALL keeps them., Explanation: done"],
    )
    run = Run(agents)
    scores = await run.score(MultiTurn(max_turns=5))

    assert agents.calls["query"] == 3  # asked, then re-asked twice
    assert [s.error for s in scores.values()] == [None, None, None]
    assert scores["wscore"].details["sigma"] == [3, 4]
    assert scores["wscore"].details["end"] == "no_more_queries"
    assert tasks(scores) == ["T1", "T2", "T3", "T4/T5", "T6", "T7"]
    stop = scores["wscore"].details["transcript"]["events"][3]
    assert stop["decision"] == "stop" and stop["query"] is None
    assert stop["repeated"] == QUESTION.upper()
    assert stop["call_ids"] == [3, 4, 5]
    assert run.target.queries == []


async def test_an_unreadable_generator_is_still_an_error() -> None:
    # a reply with no "Query:" label after a repeat: the last failure is not a repeat
    agents = Agents(
        judge=["[RESULT] 3"],
        query=[f"Query: {QUESTION}", "I would ask more.", "I would ask more."],
    )
    scores = await Run(agents).score(MultiTurn())
    assert all("generator: parse error" in (s.error or "") for s in scores.values())


async def test_several_references_reach_every_agent_and_the_e3_search() -> None:
    agents = Agents(
        judge=["[RESULT] 3", "[RESULT] 5"],
        query=["Query: , Explanation: nothing more"],
        rewrite=["Answer: UNION removes duplicates., Explanation: done"],
    )
    run = Run(agents)
    run.sample = Sample(
        request_id="u1", request=QUESTION, expected_response=[REFERENCE, "UNION dedupes."]
    )
    await run.score(MultiTurn())

    assert run.retriever.queries == [f"{QUESTION}\n{REFERENCE}\nUNION dedupes."]
    for role in ("judge", "query", "rewrite"):
        prompt = agents.prompts[role][0]
        assert f"<<<BEGIN REFERENCE ANSWER 1>>>\n{REFERENCE}" in prompt, role
        assert "<<<BEGIN REFERENCE ANSWER 2>>>\nUNION dedupes." in prompt, role


async def test_an_unparseable_agent_gives_three_error_scores() -> None:
    agents = Agents(judge=["[RESULT] 5"], compose=["I think UNION removes duplicates."])
    run = Run(agents)
    scores = await run.score(MultiTurn())

    assert agents.calls["compose"] == 3  # asked, then re-asked twice
    assert agents.calls["judge"] == 0
    for score in scores.values():
        assert score.value is None
        assert score.error is not None and "composer: parse error" in score.error
        assert score.judge_call_ids == [1, 2, 3]
    assert scores["wscore"].details["end"] == "error"


async def test_an_unparseable_judge_gives_three_error_scores() -> None:
    run = Run(Agents(judge=["Feedback: fine, four out of five"]))
    scores = await run.score(MultiTurn())

    assert [s.value for s in scores.values()] == [None, None, None]
    assert all(
        "judge of the tentative answer: parse error" in (s.error or "") for s in scores.values()
    )
    assert scores["mscore"].details["transcript_on"] == "wscore"


async def test_a_target_failure_mid_dialogue_gives_error_scores() -> None:
    agents = Agents(judge=["[RESULT] 2"], query=["Query: What about UNION ALL?"])
    run = Run(agents, [None])
    scores = await run.score(MultiTurn())

    for score in scores.values():
        assert score.value is None
        assert score.error is not None
        assert "target failed at turn 2" in score.error and "the app crashed" in score.error
    events = scores["wscore"].details["transcript"]["events"]
    assert events[-1]["task"] == "T1" and events[-1]["turn"] == 2


async def test_a_failing_model_call_gives_error_scores() -> None:
    run = Run(Agents(judge=["[RESULT] 5"]))
    run.judge.settings = ModelSettings(cache=False, max_retries=0)
    run.provider.inject(ModelError("bad request", kind="client"))
    scores = await run.score(MultiTurn())

    assert all("composer call failed" in (s.error or "") for s in scores.values())
    assert scores["wscore"].judge_call_ids == [1]


async def test_each_agent_can_have_its_own_model() -> None:
    agents = Agents(judge=["[RESULT] 5"])
    composer = ScriptedProvider(ReplyScript(default="Answer: from the composer model"))
    metric = create_metric({"metric": "multiturn", "composer_model": "openai/composer-x"})
    assert isinstance(metric, MultiTurn)
    assert metric.agent_models == {"composer": "openai/composer-x"}
    run = Run(agents, models={"composer": JudgeModel(composer)})
    scores = await run.score(metric)

    assert values(scores) == (5.0, 1.0, 5.0)
    assert len(composer.calls) == 1 and "compose" not in agents.calls
    assert "from the composer model" in agents.prompts["judge"][0]


async def test_the_samples_earlier_conversation_comes_first() -> None:
    request = {
        "messages": [
            {"role": "user", "content": "Tell me about set operators."},
            {"role": "assistant", "content": "They combine queries."},
            {"role": "user", "content": "And what about UNION vs UNION ALL?"},
        ]
    }
    agents = Agents(judge=["[RESULT] 3", "[RESULT] 5"], query=["Query: Which one dedups?"])
    run = Run(agents, ["UNION."], request=request)
    await run.score(MultiTurn())

    assert [m["content"] for m in run.target.histories[0]] == [
        "Tell me about set operators.",
        "They combine queries.",
        "And what about UNION vs UNION ALL?",
        FIRST_ANSWER,
    ]
    system = run.provider.calls[0][0]
    assert system["role"] == "system"
    assert "<<<BEGIN TARGET QUESTION>>>\nAnd what about UNION vs UNION ALL?" in system["content"]
    assert "user: Tell me about set operators." in system["content"]


def test_named_instances_prefix_their_score_names() -> None:
    assert create_metric("multiturn").score_names() == ["wscore", "lscore", "mscore"]
    named = create_metric({"metric": "multiturn", "name": "mqa", "max_turns": 3})
    assert named.score_names() == ["mqa.wscore", "mqa.lscore", "mqa.mscore"]
    assert named.requires == ("expected_response",) and named.needs_judge
    for bad in (0, 2.5, "3"):
        with pytest.raises(
            ValueError, match=r"option .max_turns. must be (a whole number|at least 1)"
        ):
            create_metric({"metric": "multiturn", "max_turns": bad})


# targets without history ------------------------------------------------------------


def single_turn(query: str) -> str:
    return "an answer"


def with_history(query: str, history: list[dict[str, str]]) -> str:
    return "an answer"


def test_targets_that_cannot_hold_a_dialogue_are_refused_up_front() -> None:
    metric = MultiTurn()
    assert "not the responses in the data" in (metric.check_target(DataTarget()) or "")
    assert "a function needs a 'history'" in (
        metric.check_target(CallableTarget(single_turn)) or ""
    )
    no_history_api = JsonApiTarget(
        "http://127.0.0.1:9/answer", body_template={"q": "{{query}}"}, response_path="a"
    )
    assert "takes the conversation history" in (metric.check_target(no_history_api) or "")
    assert metric.check_target(CallableTarget(with_history)) is None
    assert metric.check_target(OpenAIChatTarget("http://127.0.0.1:9/v1", "m")) is None


async def test_a_target_without_history_makes_no_call() -> None:
    agents = Agents(judge=["[RESULT] 5"])
    provider = ScriptedProvider(ReplyScript(function=agents))
    ctx = MetricContext(judge=JudgeModel(provider), target=CallableTarget(single_turn))
    sample = Sample(request_id="u1", request=QUESTION, expected_response=REFERENCE)
    scores = await MultiTurn().score(sample, Output(response="x"), ctx)

    assert all(
        s.value is None and "a function needs a 'history'" in (s.error or "") for s in scores
    )
    assert provider.calls == []


# dry run ----------------------------------------------------------------------------


async def test_the_dry_run_walks_the_longest_path() -> None:
    metric = MultiTurn(contexts="none")
    records: list[JudgeCallRecord] = []
    judge = StandInJudge(records)
    sample = Sample(request_id="u1", request=QUESTION, expected_response=REFERENCE)

    async def stand_in(s: Sample) -> Output:
        return Output(response=REFERENCE)

    ctx = MetricContext(judge=judge, target=stand_in)
    scores = await metric.score(sample, Output(response=REFERENCE), ctx)

    assert values({s.metric: s for s in scores}) == (3.0, 5.0, 3.0)
    assert Counter(r.purpose for r in records) == {
        "multiturn.compose": 5,
        "multiturn.judge": 5,
        "multiturn.query": 4,
    }


def test_agent_stand_ins_parse_and_never_repeat_a_question() -> None:
    asked = ["What is UNION?", "(dry run) follow-up question 2?"]
    reply = QueryReply(asked)
    assert reply.parse(reply.stand_in()).query == "(dry run) follow-up question 3?"
    assert (
        AnswerReply("UNION drops duplicates.")
        .parse(AnswerReply("UNION drops duplicates.").stand_in())
        .answer
        == "UNION drops duplicates."
    )
    assert (
        AnswerReply("Explanation: tricky")
        .parse(AnswerReply("Explanation: tricky").stand_in())
        .answer
        == "(dry run) composed answer"
    )


async def test_dry_run_over_the_mtrag_un_tasks() -> None:
    config = EvalConfig(
        data=str(shared_data("mtrag-un", "reference.jsonl").resolve()),
        format="mtrag_un",
        metrics=[{"metric": "multiturn", "contexts": "expected", "k": 5}],
        judge={"model": "openai/gpt-4o-mini", "prices": {"gpt-4o-mini": [0.15, 0.6]}},
        concurrency=32,
    )
    plan = await dry_run(config, target=with_history)

    assert plan.errors == []
    assert plan.samples == 507
    assert plan.total_calls == 507 * (3 * 5 - 1)  # n composer + n judge + n-1 generator
    calls = {p.purpose: p.calls for p in plan.purposes}
    assert calls == {
        "multiturn.compose": 507 * 5,
        "multiturn.judge": 507 * 5,
        "multiturn.query": 507 * 4,
    }  # the longest path: no 5, never stopping
    assert plan.target_calls == 507 * 5  # the first answer and four follow-ups per task
    for estimate in plan.purposes:
        assert estimate.input_tokens > estimate.calls * 300  # passages and dialogue included
    assert plan.total_cost is not None and plan.total_cost > 0


# the quickstart RAG in both variants ------------------------------------------------


@pytest.fixture(scope="module")
def serve() -> ModuleType:
    return import_quickstart("serve")


@pytest.fixture(scope="module")
def mqa() -> ModuleType:
    return import_quickstart("rag_app_mqa")


class RecordingApp:
    """An ASGI app in front of another that keeps every JSON request body."""

    def __init__(self, app: Any) -> None:
        self.app = app
        self.bodies: list[Any] = []

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        chunks: list[bytes] = []

        async def recording_receive() -> Any:
            message = await receive()
            if message["type"] == "http.request":
                chunks.append(message.get("body", b""))
                if not message.get("more_body"):
                    self.bodies.append(json.loads(b"".join(chunks) or b"null"))
            return message

        await self.app(scope, recording_receive, send)


@pytest.fixture(scope="module")
def recorded_server(serve: ModuleType) -> Iterator[tuple[Any, RecordingApp]]:
    app = RecordingApp(serve.create_app())
    with serve.BackgroundServer(app) as server:
        yield server, app


FOLLOW_UP = "Why is it faster?"
UNION_QUESTION = "What is the difference between UNION and UNION ALL in SQL?"


async def test_mqa_searches_with_the_conversation(serve: ModuleType, mqa: ModuleType) -> None:
    history = [
        {"role": "user", "content": UNION_QUESTION},
        {"role": "assistant", "content": "UNION removes duplicates."},
    ]
    multi = await mqa.answer(FOLLOW_UP, history)
    served = await serve.answer_as(serve.MQA_MODEL, FOLLOW_UP, history)
    single = await mqa.rag_app.answer(FOLLOW_UP, history)

    assert multi == served
    assert "union_vs_union_all.md" in [c["doc_uri"] for c in multi["retrieved_context"]]
    assert "union_vs_union_all.md" not in [c["doc_uri"] for c in single["retrieved_context"]]


@pytest.mark.parametrize("model", ["quickstart-rag", "quickstart-rag-mqa"])
async def test_dialogue_over_http_carries_the_history_as_messages(
    recorded_server: tuple[Any, RecordingApp], model: str
) -> None:
    server, app = recorded_server
    target = OpenAIChatTarget(server.base_url, model, context_field="retrieved_context")
    agents = Agents(
        judge=["Feedback: speed is missing. [RESULT] 4", "[RESULT] 5"],
        query=[f"Query: {FOLLOW_UP}, Explanation: ask about speed"],
    )
    provider = ScriptedProvider(ReplyScript(function=agents))
    ctx = MetricContext(judge=JudgeModel(provider), retriever=FixedRetriever(), target=target)
    sample = Sample(request_id="q01", request=UNION_QUESTION, expected_response=REFERENCE)
    app.bodies.clear()
    try:
        first = await target(sample)
        scores = {s.metric: s for s in await MultiTurn().score(sample, first, ctx)}
    finally:
        await target.aclose()

    assert values(scores) == (pytest.approx((5 * 4 + 4 * 5 + 6 * 5) / 15), 2.0, 5.0)
    assert [b["model"] for b in app.bodies] == [model, model]
    assert app.bodies[1]["messages"] == [
        {"role": "user", "content": UNION_QUESTION},
        {"role": "assistant", "content": first.response},
        {"role": "user", "content": FOLLOW_UP},
    ]
    events = scores["wscore"].details["transcript"]["events"]
    turn_2 = next(e for e in events if e["task"] == "T1" and e["turn"] == 2)
    union_doc = "union_vs_union_all.md" in turn_2["retrieved_doc_uris"]
    assert union_doc == (model == "quickstart-rag-mqa")  # only MQA searches with history


def test_evaluate_over_http_with_a_scripted_judge(
    recorded_server: tuple[Any, RecordingApp], tmp_path: Path
) -> None:
    server, _ = recorded_server
    rows = [
        {"request_id": "q01", "request": UNION_QUESTION, "expected_response": REFERENCE},
        {
            "request_id": "q03",
            "request": "What is a deadlock?",
            "expected_response": "Transactions waiting for each other's locks forever.",
        },
    ]
    agents = Agents(judge=["Feedback: partial. [RESULT] 2", "[RESULT] 4"], query=["Query: , "])
    agents.scripts["rewrite"] = ["Answer: rewritten, Explanation: final"]
    result = rj.evaluate(
        rows,
        target=OpenAIChatTarget(server.base_url, "quickstart-rag-mqa"),
        metrics=[{"metric": "multiturn", "max_turns": 3, "k": 2}],
        knowledge_base=str(QUICKSTART / "kb"),
        judge=ScriptedProvider(ReplyScript(function=agents)),
        store=tmp_path / "runs.db",
        progress=False,
    )

    means = {s.metric: s.mean for s in result.summaries}
    assert means == {
        "wscore": pytest.approx((3 * 2 + 2 * 4 + 1 * 4) / 6),
        "lscore": 2.0,
        "mscore": 4.0,
    }
    frame = result.to_pandas()
    assert set(frame["request_id"]) == {"q01", "q03"}
    with sqlite3.connect(tmp_path / "runs.db") as conn:
        purposes = Counter(r[0] for r in conn.execute("SELECT purpose FROM judge_calls"))
        details = [
            json.loads(r[0])
            for r in conn.execute("SELECT details_json FROM scores WHERE metric = 'wscore'")
        ]
    assert purposes == {
        "multiturn.compose": 2,
        "multiturn.judge": 2,
        "multiturn.query": 2,
        "multiturn.rewrite": 2,
        "multiturn.final_judge": 2,
    }
    assert all(d["end"] == "no_more_queries" for d in details)


@pytest.mark.parametrize("variant", ["rag_app:answer", "rag_app_mqa:answer"])
async def test_example_config_dry_runs_for_both_variants(
    variant: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("QUICKSTART_TARGET", variant)
    config = load_config(QUICKSTART / "eval-multiturn.yaml", limit=3)
    assert config.target is not None and config.target.path == variant
    plan = await dry_run(config)

    assert plan.errors == []
    assert plan.total_calls == 3 * (3 * 5 - 1)
