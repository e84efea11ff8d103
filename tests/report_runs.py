"""Runs for the report tests: the quickstart run (lexical metrics), the quickstart with
the answer-accuracy judge answered by a scripted model, and a hand-made run whose
scores hold every kind of details (rubric results, a multi-turn transcript, statement
verdicts, per-chunk ratings, an unknown metric's nested details), errors, n/a, several
trials, judge calls — and, when asked, attack strings in every text."""

from __future__ import annotations

import asyncio
import hashlib
import json
from pathlib import Path
from typing import Any

from conftest import QUICKSTART, import_quickstart
from ragjudge.config import load_config
from ragjudge.models import JudgeCallRecord
from ragjudge.models.scripted import ReplyScript, ScriptedProvider, prompt_text
from ragjudge.run._runner import run_evaluation
from ragjudge.schema import ContextChunk, Output, Sample, Score, ScoreMeaning, Usage
from ragjudge.store._store import Store

JUDGE_SYSTEM = "You grade answers."
EXAMPLES = QUICKSTART.parent


def quickstart_run(store_path: Path, **overrides: Any) -> str:
    """The quickstart evaluation (``examples/quickstart/eval.yaml``) into ``store_path``."""
    import_quickstart("rag_app")  # the folder on the import path, as the runner needs it
    config = load_config(QUICKSTART / "eval.yaml", store=str(store_path), **overrides)
    return asyncio.run(run_evaluation(config, progress=False)).run_id


def _accuracy_reply(messages: list[dict[str, Any]]) -> str:
    prompt = prompt_text(messages)
    score = 1 + int(hashlib.sha256(prompt.encode()).hexdigest(), 16) % 5
    return f"Feedback: the response covers part of the reference. [RESULT] {score}"


def judged_run(store_path: Path, limit: int | None = None) -> str:
    """The quickstart with answer accuracy (E3 and E2) judged by a scripted model."""
    import_quickstart("rag_app")
    config = load_config(
        QUICKSTART / "eval-judged.yaml", store=str(store_path), limit=limit, concurrency=4
    )
    provider = ScriptedProvider(ReplyScript(function=_accuracy_reply))
    run = run_evaluation(config, progress=False, judge_provider=provider)
    return asyncio.run(run).run_id


MEANINGS = {
    "rubric": ScoreMeaning(description="share of rubric points earned"),
    "wscore": ScoreMeaning(low=0, high=5, description="turn-weighted score"),
    "lscore": ScoreMeaning(direction="lower", low=1, high=None, description="turns needed"),
    "faithfulness": ScoreMeaning(description="share of supported statements"),
    "accuracy": ScoreMeaning(low=0, high=5, excluded=(0.0,), description="0-5, 0 is not sure"),
    "chunks": ScoreMeaning(description="share of relevant chunks"),
    "novel": ScoreMeaning(low=None, high=None, description="a metric the report does not know"),
}


def _samples(text: str) -> list[Sample]:
    return [
        Sample(
            request_id="r-en",
            request={
                "messages": [
                    {"role": "user", "content": "What is SQL?"},
                    {"role": "assistant", "content": "A query language."},
                    {"role": "user", "content": f"What does UNION do? {text}".strip()},
                ]
            },
            expected_response=f"UNION combines results and removes duplicates. {text}".strip(),
            rubric=[
                {"criterion": f"Says duplicates are removed {text}".strip(), "points": 5},
                {"criterion": "Claims UNION sorts", "points": -2, "tags": ["accuracy"]},
            ],
            metadata={"lang": "en", "note": text or "plain"},
        ),
        Sample(
            request_id="r-ja",
            request=f"トランザクションの原子性とは何か? {text}".strip(),
            expected_facts=[
                "すべて実行されるか、まったく実行されない",
                f"途中で失敗すると元に戻る {text}",
            ],
            guidelines={"tone": ["丁寧に答える"], "format": [f"三文以内 {text}".strip()]},
            metadata={"lang": "ja"},
        ),
        Sample(
            request_id="r-err",
            request="What is a deadlock?",
            expected_response="Transactions waiting for each other forever.",
            metadata={"lang": "en"},
        ),
    ]


def _call(store: Store, run_id: str, purpose: str, prompt: str, reply: str, **extra: Any) -> int:
    record = JudgeCallRecord(
        provider="openai",
        model="judge-model",
        messages=[
            {"role": "system", "content": JUDGE_SYSTEM},
            {"role": "user", "content": prompt},
        ],
        config={"temperature": 0.0},
        text=reply,
        parsed=extra.pop("parsed", None),
        usage=Usage(input_tokens=120, output_tokens=30),
        latency=0.8,
        attempts=extra.pop("attempts", 1),
        cached=extra.pop("cached", False),
        purpose=purpose,
        trial=extra.pop("trial", 0),
    )
    return store.save_judge_call(run_id, record, cost=0.0001)


def _transcript(calls: list[int], text: str) -> dict[str, Any]:
    return {
        "target_question": "What does UNION do?",
        "context_doc_uris": ["union.md"],
        "events": [
            {
                "task": "T1",
                "turn": 1,
                "query": "What does UNION do?",
                "answer": f"It merges rows. {text}",
                "retrieved_doc_uris": ["union.md"],
                "latency": 0.1,
                "call_ids": [],
            },
            {
                "task": "T2",
                "turn": 1,
                "answer": "UNION merges rows.",
                "explanation": "from turn 1",
                "call_ids": [calls[0]],
            },
            {
                "task": "T3",
                "turn": 1,
                "answer": "UNION merges rows.",
                "score": 3,
                "feedback": f"Duplicates are not mentioned. {text}",
                "sigma_index": 0,
                "call_ids": [calls[1]],
            },
            {
                "task": "T4/T5",
                "turn": 1,
                "decision": "ask",
                "query": "Are duplicates kept?",
                "explanation": "the feedback asks for duplicates",
                "call_ids": [calls[2]],
            },
            {
                "task": "T1",
                "turn": 2,
                "query": "Are duplicates kept?",
                "answer": "No, they are removed.",
                "call_ids": [],
            },
            {
                "task": "T3",
                "turn": 2,
                "answer": "UNION merges rows and removes duplicates.",
                "score": 5,
                "feedback": "complete",
                "sigma_index": 1,
                "call_ids": [calls[3]],
            },
        ],
    }


def synthetic_run(
    store_path: Path, text: str = "", *, name: str = "synthetic", trials: int = 2
) -> str:
    """A hand-made run over three samples (English with history and a rubric, Japanese
    with facts and named guidelines, one whose scores fail), ``trials`` trials. ``text``
    (an attack string) is added to every evaluated text, label and key."""
    with Store(store_path) as store:
        run_id = store.create_run(
            name=f"{name} {text}".strip(),
            config={
                "metrics": list(MEANINGS),
                "by": "metadata.lang",
                "judge": {"model": "openai/judge-model"},
            },
            versions={"ragjudge": "test"},
            samples=_samples(text),
            trials=trials,
            meanings=MEANINGS,
        )
        _outputs(store, run_id, text)
        for trial in range(trials):
            _scores_en(store, run_id, text, trial)
            _scores_ja(store, run_id, text, trial)
            _scores_err(store, run_id, text, trial)
        store.set_status(run_id, "completed")
    return run_id


def _outputs(store: Store, run_id: str, text: str) -> None:
    context = [
        ContextChunk(
            doc_uri=f"union.md{text}", content=f"UNION removes duplicate rows. {text}", score=1.5
        ),
        ContextChunk(doc_uri="sort.md", content="ORDER BY sorts rows."),
    ]
    store.save_output(
        run_id,
        "r-en",
        Output(
            response=f"UNION merges rows. {text}".strip(),
            retrieved_context=context,
            latency=0.2,
            usage=Usage(input_tokens=50, output_tokens=12),
        ),
    )
    store.save_output(
        run_id,
        "r-ja",
        Output(
            response=f"原子性とは、すべて実行されるか全く実行されないことです。{text}",
            retrieved_context=[
                ContextChunk(doc_uri="transaction_ja.md", content="原子性(Atomicity)は …")
            ],
        ),
    )
    store.save_output(
        run_id, "r-err", Output(response=None, error=f"target failed: timeout {text}".strip())
    )


def _scores_en(store: Store, run_id: str, text: str, trial: int) -> None:
    rubric_call = _call(
        store,
        run_id,
        "rubric",
        f"Grade the rubric items.\nRESPONSE: UNION merges rows. {text}",
        f'{{"criteria_met": true, "explanation": "ok {text}"}}',
        parsed={"criteria_met": True},
        trial=trial,
    )
    agent_calls = [
        _call(
            store,
            run_id,
            f"multiturn.{p}",
            f"Prompt for {p} {text}",
            f"Reply of {p} {text}",
            trial=trial,
        )
        for p in ("compose", "judge", "query", "judge")
    ]
    faith_call = _call(
        store,
        run_id,
        "faithfulness.verdicts",
        f"Check each statement.\n{text}",
        '{"verdicts": [{"verdict": "yes"}, {"verdict": "no"}]}',
        cached=trial > 0,
        trial=trial,
    )
    value = 0.5 if trial == 0 else 1.0
    scores = [
        Score(
            metric="rubric",
            value=value,
            rationale=f"one criterion met {text}".strip(),
            judge_call_ids=[rubric_call],
            details={
                "result_by_rubrics": [
                    {
                        "criterion": f"Says duplicates are removed {text}".strip(),
                        "points": 5.0,
                        "tags": ["completeness"],
                        "criteria_met": True,
                        "explanation": f"it says so {text}".strip(),
                        "signed_score": 5.0,
                    },
                    {
                        "criterion": "Claims UNION sorts",
                        "points": -2.0,
                        "tags": ["accuracy"],
                        "criteria_met": False,
                        "explanation": "no such claim",
                        "signed_score": 0.0,
                    },
                ],
                "total_score": 5.0,
                "theoretical_score": 5.0,
                "score_rate": 1.0,
            },
        ),
        Score(
            metric="wscore",
            value=3.5 + trial,
            rationale="σ = [3, 5] with n = 3 turns",
            judge_call_ids=agent_calls,
            details={
                "sigma": [3, 5],
                "max_turns": 3,
                "end": "perfect",
                "transcript": _transcript(agent_calls, text),
            },
        ),
        Score(
            metric="lscore",
            value=2.0,
            judge_call_ids=agent_calls,
            details={"sigma": [3, 5], "transcript_on": "wscore"},
        ),
        Score(
            metric="faithfulness",
            value=0.5,
            rationale="1 of 2 statements supported",
            judge_call_ids=[faith_call],
            details={
                "statements": [
                    {
                        "statement": f"UNION merges rows. {text}".strip(),
                        "verdict": "yes",
                        "reason": "context 1",
                    },
                    {
                        "statement": "UNION sorts.",
                        "verdict": "no",
                        "reason": f"not in the contexts {text}".strip(),
                    },
                ],
                "size": 2,
            },
        ),
        Score(
            metric="accuracy",
            value=0.0 if trial == 0 else 4.0,
            rationale="not sure" if trial == 0 else "good",
            details={"contexts": "reference", "context_doc_uris": ["union.md", f"sort.md{text}"]},
        ),
        Score(
            metric="chunks",
            value=0.5,
            details={
                "relevant": 1,
                "chunks": [
                    {
                        "position": 1,
                        "doc_uri": "union.md",
                        "rating": "yes",
                        "rationale": "about UNION",
                    },
                    {
                        "position": 2,
                        "doc_uri": "sort.md",
                        "rating": "no",
                        "rationale": f"about sorting {text}".strip(),
                    },
                ],
            },
        ),
        Score(
            metric="novel",
            value=-1.25,
            details={
                f"nested{text}": {"level": {"deeper": [1, 2, {"k": f"v {text}".strip()}]}},
                "flags": [True, False, None],
                "ratio": 0.125,
            },
        ),
    ]
    store.save_scores(run_id, "r-en", trial, scores)


def _scores_ja(store: Store, run_id: str, text: str, trial: int) -> None:
    call = _call(
        store, run_id, "rubric", f"以下の回答を評価してください。{text}", "[RESULT] 4", trial=trial
    )
    scores = [
        Score(
            metric="rubric",
            value=0.8,
            rationale=f"ほぼ満たしている {text}".strip(),
            judge_call_ids=[call],
        ),
        Score(
            metric="faithfulness",
            value=1.0,
            details={
                "statements": [
                    {
                        "statement": "原子性とは、すべて実行されるか全く実行されないことです。",
                        "verdict": "yes",
                        "reason": "文脈1に記載",
                    }
                ],
                "size": 1,
            },
        ),
        Score(metric="accuracy", value=5.0),
        Score.not_applicable("chunks", f"no retrieved context to rate {text}".strip()),
        Score(metric="novel", value=2.5),
    ]
    store.save_scores(run_id, "r-ja", trial, scores)


def _scores_err(store: Store, run_id: str, text: str, trial: int) -> None:
    call = _call(
        store,
        run_id,
        "rubric",
        f"Grade this. {text}",
        f"I cannot decide. {text}",
        attempts=3,
        trial=trial,
    )
    error = f"parse error: no verdict in the judge's reply {text}".strip()
    scores = [
        Score.failed("rubric", error).model_copy(update={"judge_call_ids": [call]}),
        Score.failed("faithfulness", f"target failed: timeout {text}".strip()),
        Score.failed("accuracy", "no response"),
        Score.not_applicable("chunks", "no retrieved context"),
        Score(metric="novel", value=0.75),
    ]
    store.save_scores(run_id, "r-err", trial, scores)


def improved_run(store_path: Path) -> str:
    """The quickstart questions answered by the quickstart app, except every third,
    answered with its reference: run B of a comparison with :func:`quickstart_run`."""
    rag_app = import_quickstart("rag_app")

    async def answer(query: str, sample: Sample) -> Any:
        if int(sample.request_id[1:]) % 3 == 0:
            return sample.references[0]
        return await rag_app.answer(query, [])

    config = load_config(
        QUICKSTART / "eval.yaml", store=str(store_path), name="quickstart-improved"
    )
    return asyncio.run(run_evaluation(config, target=answer, progress=False)).run_id


def _databricks_reply(messages: list[dict[str, Any]]) -> str:
    prompt = prompt_text(messages)
    word = "yes" if int(hashlib.sha256(prompt.encode()).hexdigest(), 16) % 3 else "no"
    return json.dumps({"rationale": "scripted verdict", "result": word, "rating": word})


def databricks_run(store_path: Path) -> str:
    """``examples/databricks`` (17 scores on a sample) judged by a scripted model."""
    config = load_config(EXAMPLES / "databricks" / "eval.yaml", store=str(store_path))
    provider = ScriptedProvider(ReplyScript(function=_databricks_reply))
    return asyncio.run(run_evaluation(config, progress=False, judge_provider=provider)).run_id


def _rubric_reply(messages: list[dict[str, Any]]) -> str:
    prompt = prompt_text(messages)
    if "criteria_met" in prompt:  # every item met: the penalties apply too
        return json.dumps({"explanation": "scripted verdict", "criteria_met": True})
    return json.dumps({"explanation": "scripted verdict", "rating": 3})


def rubric_run(store_path: Path) -> str:
    """``examples/rubric`` in one trial, a scripted judge meeting every item (its
    penalty items included)."""
    config = load_config(EXAMPLES / "rubric" / "eval.yaml", store=str(store_path), trials=1)
    provider = ScriptedProvider(ReplyScript(function=_rubric_reply))
    return asyncio.run(run_evaluation(config, progress=False, judge_provider=provider)).run_id
