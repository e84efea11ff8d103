"""A judge matrix in a run: two judges on two local test servers that answer
differently give different stored verdicts per judge, each equal to its server's
scripted replies; an ensemble stores the combined verdict beside them; each judge's
calls are recorded under its name; an interrupted matrix run resumes each judge's
scores."""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import ragjudge as rj
from ragjudge.config import ConfigError
from ragjudge.models.scripted import ReplyScript, prompt_text
from ragjudge.run._matrix import EnsembleMetric, combine_verdicts, judge_of
from ragjudge.run._preparation import build_metrics
from ragjudge.schema import Score
from ragjudge.store._store import Store
from ragjudge.testing.server import OpenAITestServer

ROWS = [
    {"request_id": f"q{i}", "request": f"question {i}", "response": f"answer {i}",
     "expected_response": f"reference {i}"}
    for i in range(6)
]  # fmt: skip


def row_number(messages: list[Any]) -> int:
    found = re.search(r"question (\d+)", prompt_text(messages))
    assert found is not None
    return int(found.group(1))


def agreeing(messages: list[Any]) -> str | None:
    """Judge ``a``: grade (row % 5) + 1."""
    if "question" not in prompt_text(messages):
        return None
    return f"Feedback: a. [RESULT] {row_number(messages) % 5 + 1}"


def contrary(messages: list[Any]) -> str | None:
    """Judge ``b``: grade 5 - (row % 5)."""
    if "question" not in prompt_text(messages):
        return None
    return f"Feedback: b. [RESULT] {5 - row_number(messages) % 5}"


@pytest.fixture
def servers() -> Iterator[tuple[OpenAITestServer, OpenAITestServer]]:
    first = OpenAITestServer(replies=ReplyScript(function=agreeing))
    second = OpenAITestServer(replies=ReplyScript(function=contrary))
    with first, second:
        yield first, second


def judges(servers: tuple[OpenAITestServer, OpenAITestServer]) -> dict[str, Any]:
    # the same model name on both: the reply cache keys by endpoint and model
    first, second = servers
    return {
        "a": {"model": "openai/judge-x", "base_url": first.base_url},
        "b": {"model": "openai/judge-x", "base_url": second.base_url},
    }


def stored(result: rj.EvaluationResult) -> dict[str, dict[str, tuple[float | None, str | None]]]:
    """Per score name, per request id: (value, judge)."""
    found: dict[str, dict[str, tuple[float | None, str | None]]] = {}
    with Store(result.store_path) as store:
        for rid, _, score in store.scores(result.run_id):
            found.setdefault(score.metric, {})[rid] = (score.value, score.judge)
    return found


def test_each_judge_stores_its_own_servers_verdicts(
    tmp_path: Path, servers: tuple[OpenAITestServer, OpenAITestServer]
) -> None:
    result = rj.evaluate(
        ROWS,
        metrics=[{"metric": "answer_accuracy", "contexts": "none"}],
        judges=judges(servers),
        store=str(tmp_path / "runs.db"),
        progress=False,
    )
    scores = stored(result)
    assert sorted(scores) == ["answer_accuracy@a", "answer_accuracy@b"]
    for i in range(6):
        assert scores["answer_accuracy@a"][f"q{i}"] == (i % 5 + 1, "a")
        assert scores["answer_accuracy@b"][f"q{i}"] == (5 - i % 5, "b")
    meaning = result.meanings["answer_accuracy@b"]
    assert (meaning.judge, meaning.metric, meaning.contexts) == ("b", "answer_accuracy", "none")


def test_each_judges_calls_are_recorded_under_its_name(
    tmp_path: Path, servers: tuple[OpenAITestServer, OpenAITestServer]
) -> None:
    result = rj.evaluate(
        ROWS,
        metrics=[{"metric": "answer_accuracy", "contexts": "none"}],
        judges=judges(servers),
        store=str(tmp_path / "runs.db"),
        progress=False,
    )
    with sqlite3.connect(result.store_path) as conn:
        per_judge = dict(
            conn.execute(
                "SELECT judge, COUNT(*) FROM judge_calls WHERE purpose != 'preflight'"
                " GROUP BY judge"
            ).fetchall()
        )
    assert per_judge == {"a": 6, "b": 6}
    with Store(result.store_path) as store:
        usage = {row["purpose"]: row["calls"] for row in store.judge_usage(result.run_id)}
    assert usage == {
        "preflight@a": 1,
        "preflight@b": 1,
        "answer_accuracy@a": 6,
        "answer_accuracy@b": 6,
    }
    assert servers[0].stats.requests == servers[1].stats.requests == 6 + 1  # + pre-flight


def test_an_ensemble_stores_the_combined_verdict_beside_each_judges(
    tmp_path: Path, servers: tuple[OpenAITestServer, OpenAITestServer]
) -> None:
    result = rj.evaluate(
        ROWS,
        metrics=[{"metric": "answer_accuracy", "contexts": "none", "ensemble": "mean"}],
        judges=judges(servers),
        store=str(tmp_path / "runs.db"),
        progress=False,
    )
    with Store(result.store_path) as store:
        combined = {
            rid: s for rid, _, s in store.scores(result.run_id) if s.metric == "answer_accuracy"
        }
    for i in range(6):
        a, b = i % 5 + 1, 5 - i % 5
        score = combined[f"q{i}"]
        assert score.value == (a + b) / 2 and score.judge is None
        assert score.details == {"verdicts": {"a": a, "b": b}, "agreement": a == b}
    assert result.meanings["answer_accuracy"].ensemble == ("a", "b")
    assert result.meanings["answer_accuracy@a"].judge == "a"


def test_a_metric_may_use_some_of_the_judges(
    tmp_path: Path, servers: tuple[OpenAITestServer, OpenAITestServer]
) -> None:
    result = rj.evaluate(
        ROWS,
        metrics=[
            {"metric": "answer_accuracy", "contexts": "none", "judges": ["b"]},
            "exact_match",
        ],
        judges=judges(servers),
        store=str(tmp_path / "runs.db"),
        progress=False,
    )
    assert sorted(stored(result)) == ["answer_accuracy@b", "exact_match"]  # not multiplied
    # judge a makes no call, so it is not asked the pre-flight question either
    assert servers[0].stats.requests == 0


def test_an_interrupted_matrix_run_resumes_each_judges_missing_scores(
    tmp_path: Path, servers: tuple[OpenAITestServer, OpenAITestServer]
) -> None:
    store_path = tmp_path / "runs.db"
    result = rj.evaluate(
        ROWS,
        metrics=[{"metric": "answer_accuracy", "contexts": "none"}],
        judges=judges(servers),
        store=str(store_path),
        cache=False,
        progress=False,
    )
    with sqlite3.connect(store_path) as conn:  # as if stopped before these were scored
        conn.execute(
            "DELETE FROM scores WHERE (metric = 'answer_accuracy@a' AND request_id IN ('q1', 'q2'))"
            " OR (metric = 'answer_accuracy@b' AND request_id = 'q5')"
        )
        conn.execute("UPDATE runs SET status = 'interrupted'")
    asked = servers[0].stats.requests, servers[1].stats.requests
    resumed = rj.evaluate(
        ROWS,
        metrics=[{"metric": "answer_accuracy", "contexts": "none"}],
        judges=judges(servers),
        store=str(store_path),
        cache=False,
        resume=result.run_id,
        progress=False,
    )
    asked_again = servers[0].stats.requests - asked[0], servers[1].stats.requests - asked[1]
    assert asked_again == (2 + 1, 1 + 1)  # the missing scores, and the pre-flight question
    scores = stored(resumed)
    assert scores["answer_accuracy@a"]["q2"] == (3.0, "a")
    assert scores["answer_accuracy@b"]["q5"] == (5.0, "b")
    assert all(len(by_row) == 6 for by_row in scores.values())


# which metrics run under which judges ---------------------------------------------------


def test_every_judged_metric_runs_under_each_judge_and_the_others_once() -> None:
    metrics = build_metrics(
        ["correctness", {"metric": "answer_accuracy", "name": "acc"}, "exact_match"],
        judges=["mini", "big"],
    )
    assert [(m.name, judge_of(m)) for m in metrics] == [
        ("correctness", "mini"), ("correctness", "big"), ("acc", "mini"), ("acc", "big"),
        ("exact_match", None),
    ]  # fmt: skip
    assert metrics[1].score_names() == ["response/llm_judged/correctness/rating@big"]
    meaning = metrics[3].meanings()["acc@big"]
    assert (meaning.judge, meaning.metric, meaning.contexts) == ("big", "acc", "reference")


def test_a_multi_score_metric_gets_the_judge_at_the_end_of_each_score() -> None:
    (bound,) = build_metrics([{"metric": "databricks", "judges": ["big"]}], judges=["mini", "big"])
    names = bound.score_names()
    assert len(names) > 1 and "response/llm_judged/safety/rating@big" in names
    assert all(n.endswith("@big") and n.count("@") == 1 for n in names)
    assert {m.metric for m in bound.meanings().values()} == {n[:-4] for n in names}


@pytest.mark.parametrize(
    ("spec", "judges", "says"),
    [
        ({"metric": "correctness", "judges": ["bigg"]}, ["mini", "big"],
         "metrics: metric 'correctness': unknown judge 'bigg'; did you mean 'big'?"),
        ({"metric": "correctness", "judges": "big"}, ["big"], "'judges' must be a list"),
        ({"metric": "correctness", "ensemble": "vote"}, ["a", "b"], "'ensemble' must be one of"),
        ({"metric": "correctness", "ensemble": "majority", "judges": ["a"]}, ["a", "b"],
         "an ensemble combines at least two judges"),
        ({"metric": "correctness", "ensemble": "mean"}, ["a", "b"],
         "a yes/no score is combined by 'ensemble: majority'"),
        ({"metric": "exact_match", "judges": ["a"]}, ["a", "b"], "calls no judge"),
        ({"metric": "correctness", "judges": ["a"]}, [], "the config names none"),
    ],
)  # fmt: skip
def test_a_judge_choice_that_cannot_apply_is_named(
    spec: dict[str, Any], judges: list[str], says: str
) -> None:
    with pytest.raises(ConfigError) as info:
        build_metrics([spec], judges=judges)
    assert says in str(info.value)


def test_an_ensemble_gives_each_judges_scores_and_the_combined_one() -> None:
    (ensemble,) = build_metrics(
        [{"metric": "correctness", "ensemble": "majority"}], judges=["a", "b", "c"]
    )
    assert isinstance(ensemble, EnsembleMetric)
    name = "response/llm_judged/correctness/rating"
    assert ensemble.score_names() == [f"{name}@a", f"{name}@b", f"{name}@c", name]
    assert ensemble.meanings()[name].ensemble == ("a", "b", "c")
    assert ensemble.meanings()[name].binary


# combining verdicts ---------------------------------------------------------------------


def verdicts(**values: float | None) -> dict[str, Score | None]:
    return {
        judge: Score(metric=f"m@{judge}", value=v, judge=judge, judge_call_ids=[i])
        if v is not None
        else Score.failed(f"m@{judge}", "judge timed out")
        for i, (judge, v) in enumerate(values.items())
    }


def test_majority_takes_the_verdict_most_judges_gave() -> None:
    combined = combine_verdicts("m", verdicts(a=1.0, b=0.0, c=1.0), "majority")
    assert combined.value == 1.0 and combined.judge_call_ids == [0, 1, 2]
    assert combined.details == {"verdicts": {"a": 1.0, "b": 0.0, "c": 1.0}, "agreement": False}


def test_a_majority_tie_is_that_samples_error_never_a_pick() -> None:
    combined = combine_verdicts("m", verdicts(a=1.0, b=0.0), "majority")
    assert combined.value is None
    assert combined.error == "the judges' verdicts tie (0, 1, 1 each): no majority"
    assert combined.details["agreement"] is False


def test_mean_and_median_combine_scales() -> None:
    given = verdicts(a=1.0, b=2.0, c=5.0)
    assert combine_verdicts("m", given, "mean").value == pytest.approx(8 / 3)
    assert combine_verdicts("m", given, "median").value == 2.0
    agreed = combine_verdicts("m", verdicts(a=4.0, b=4.0), "mean")
    assert agreed.value == 4.0 and agreed.details["agreement"] is True


def test_a_judge_without_a_verdict_makes_the_combined_score_an_error_naming_it() -> None:
    combined = combine_verdicts("m", verdicts(a=1.0, b=None, c=1.0), "majority")
    assert combined.value is None
    assert combined.error == "judge 'b' gave no verdict (judge timed out)"
    assert combined.details == {"verdicts": {"a": 1.0, "b": None, "c": 1.0}}


def test_a_row_every_judge_skipped_is_skipped() -> None:
    skipped = {j: Score.not_applicable(f"m@{j}", "no reference") for j in ("a", "b")}
    combined = combine_verdicts("m", skipped, "mean")
    assert combined.skipped == "no reference" and combined.value is None


def test_a_judge_object_beside_named_judges_is_refused(tmp_path: Path) -> None:
    from ragjudge.models.scripted import ScriptedProvider

    with pytest.raises(ConfigError, match="give a judge model object as 'judge' or name 'judges'"):
        rj.evaluate(
            ROWS,
            metrics=[{"metric": "answer_accuracy", "contexts": "none"}],
            judge=ScriptedProvider(ReplyScript(default="[RESULT] 3")),
            judges={"a": "openai/judge-x"},
            store=str(tmp_path / "runs.db"),
            progress=False,
        )
