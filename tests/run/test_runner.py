import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

import ragjudge as rj
from ragjudge.analysis._results import summarize_run
from ragjudge.config import ConfigError, EvalConfig
from ragjudge.metrics import Metric, MetricContext
from ragjudge.run._run_notes import record_notes
from ragjudge.run._runner import RequirementError, run_evaluation
from ragjudge.schema import Output, Sample, Score
from ragjudge.store._events import NOTE
from ragjudge.store._store import Store

ROWS = [
    {
        "request_id": "q1",
        "request": "What does UNION ALL keep?",
        "expected_response": "UNION ALL keeps duplicate rows.",
        "metadata": {"lang": "en"},
    },
    {
        "request_id": "q2",
        "request": "デッドロックとは何か?",
        "expected_response": "二つのトランザクションが互いのロックを待ち続ける状態です。",
        "metadata": {"lang": "ja"},
    },
    {
        "request_id": "q3",
        "request": "What is an index?",
        "expected_response": "A structure that speeds up lookups.",
        "metadata": {"lang": "en"},
    },
]
ANSWERS = {
    "What does UNION ALL keep?": "UNION ALL keeps duplicate rows.",
    "デッドロックとは何か?": "トランザクションが互いのロックを待つ状態です。",
    "What is an index?": "I do not know.",
}


def answer(query: str) -> str:
    return ANSWERS[query]


class CountingMetric(Metric):
    """Counts how often it is asked, to prove resume does not redo work."""

    requires = ("response",)

    def __init__(self) -> None:
        self.name = "counting"
        self.calls = 0

    async def score(self, sample: Sample, output: Output, ctx: MetricContext) -> Score:
        self.calls += 1
        return Score(metric=self.name, value=float(ctx.trial), details={"trial": ctx.trial})


def test_evaluate_with_callable_target(tmp_path: Path) -> None:
    result = rj.evaluate(
        ROWS,
        target=answer,
        metrics=["exact_match", "rouge_l", "word_recall"],
        store=tmp_path / "runs.db",
        by="metadata.lang",
        progress=False,
    )
    summary = result.summary().set_index("metric")
    assert summary.loc["exact_match", "mean"] == pytest.approx(1 / 3)
    assert summary.loc["exact_match", "n"] == 3
    assert 0 < summary.loc["rouge_l", "mean"] < 1
    assert set(result.subsets) == {"en", "ja"}
    frame = result.to_pandas()
    assert len(frame) == 3 and "rouge_l" in frame.columns
    # the Japanese pair shares words, so the tokenised metrics see overlap
    ja = frame.set_index("request_id").loc["q2"]
    assert 0 < ja["word_recall"] < 1 and 0 < ja["rouge_l"] < 1


def test_evaluate_inside_running_event_loop(tmp_path: Path) -> None:
    async def notebook_cell() -> float:
        result = rj.evaluate(
            ROWS, target=answer, metrics=["exact_match"], store=tmp_path / "r.db", progress=False
        )
        return float(result.summary()["mean"].iloc[0])

    assert asyncio.run(notebook_cell()) == pytest.approx(1 / 3)


def test_requirements_checked_before_any_work(tmp_path: Path) -> None:
    rows = [dict(ROWS[0]), {"request_id": "x", "request": "no reference here", "response": "r"}]
    rows[0]["response"] = "r"
    with pytest.raises(RequirementError) as info:
        rj.evaluate(
            rows, metrics=["rouge_l", "exact_match"], store=tmp_path / "r.db", progress=False
        )
    text = str(info.value)
    assert "metric 'rouge_l' needs 'expected_response'" in text
    assert "row 2 (x)" in text
    with Store(tmp_path / "r.db") as store:
        assert store.runs() == []


def test_missing_response_without_target_is_reported(tmp_path: Path) -> None:
    with pytest.raises(RequirementError, match="needs 'response'"):
        rj.evaluate(ROWS, metrics=["exact_match"], store=tmp_path / "r.db", progress=False)


def test_target_failures_become_errors_not_zeros(tmp_path: Path) -> None:
    def flaky(query: str) -> str:
        if "index" in query:
            raise RuntimeError("backend down")
        return ANSWERS[query]

    result = rj.evaluate(
        ROWS, target=flaky, metrics=["exact_match"], store=tmp_path / "r.db", progress=False
    )
    s = result.summaries[0]
    assert s.errors == 1 and s.n == 2
    assert s.mean == pytest.approx(0.5)
    frame = result.to_pandas().set_index("request_id")
    assert "backend down" in frame.loc["q3", "exact_match.error"]


def test_trials_are_kept_apart_and_resume_skips_finished_work(tmp_path: Path) -> None:
    metric = CountingMetric()
    config = EvalConfig(metrics=["counting"], trials=3, store=str(tmp_path / "r.db"))
    result = asyncio.run(
        run_evaluation(config, data=ROWS, target=answer, metrics=[metric], progress=False)
    )
    assert metric.calls == 9
    assert result.summaries[0].trials == 3
    with Store(tmp_path / "r.db") as store:
        trials = sorted({t for _, t, _ in store.scores(result.run_id)})
        assert trials == [0, 1, 2]
        # drop one sample's last trial, as if the run had been killed there
        store._conn.execute("DELETE FROM scores WHERE request_id = 'q2' AND trial = 2")
        store._conn.commit()
    # a resumed run keeps its trials; a breakdown may be asked for anew
    changed = config.model_copy(update={"trials": 1, "by": "lang"})
    again = asyncio.run(
        run_evaluation(
            changed, target=answer, metrics=[metric], resume=result.run_id, progress=False
        )
    )
    assert metric.calls == 10
    assert again.run_id == result.run_id and again.status == "completed"
    assert again.trials == 3 and set(again.subsets) == {"en", "ja"}


def test_duplicate_metric_names_are_rejected(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="unique"):
        rj.evaluate(
            ROWS,
            target=answer,
            metrics=["rouge_l", "rouge_l"],
            store=tmp_path / "r.db",
            progress=False,
        )


def test_two_instances_of_one_metric_with_names(tmp_path: Path) -> None:
    result = rj.evaluate(
        ROWS,
        target=answer,
        metrics=[
            {"metric": "exact_match", "name": "em_strict", "normalize": False},
            {"metric": "exact_match", "name": "em"},
        ],
        store=tmp_path / "r.db",
        progress=False,
    )
    assert [s.metric for s in result.summaries] == ["em_strict", "em"]


def test_json_summary_shape(tmp_path: Path) -> None:
    result = rj.evaluate(
        ROWS, target=answer, metrics=["token_f1"], store=tmp_path / "r.db", progress=False
    )
    data: dict[str, Any] = json.loads(json.dumps(result.to_dict()))
    metric = data["metrics"][0]
    assert data["run_id"] == result.run_id
    assert set(metric) >= {"metric", "mean", "ci95", "n", "errors"}
    assert metric["ci95"][0] <= metric["mean"] <= metric["ci95"][1]


def test_dialogue_metric_rejects_a_target_without_history_before_any_call(tmp_path: Path) -> None:
    calls: list[str] = []

    def single_turn(query: str) -> str:
        calls.append(query)
        return "answer"

    with pytest.raises(RequirementError, match="takes the conversation history"):
        rj.evaluate(
            ROWS,
            target=single_turn,
            metrics=["multiturn"],
            judge="scripted",
            store=tmp_path / "r.db",
            progress=False,
        )
    assert calls == []


def test_instances_with_one_name_are_rejected_like_specs(tmp_path: Path) -> None:
    config = EvalConfig(metrics=["counting"], store=str(tmp_path / "r.db"))
    with pytest.raises(ConfigError, match="repeated: counting"):
        asyncio.run(
            run_evaluation(
                config,
                data=ROWS,
                target=answer,
                metrics=[CountingMetric(), CountingMetric()],
                progress=False,
            )
        )


def test_an_unknown_metric_or_option_is_a_config_error(tmp_path: Path) -> None:
    for spec in ("no_such_metric", {"metric": "rouge_l", "no_such_option": 1}):
        with pytest.raises(ConfigError, match="no_such"):
            rj.evaluate(ROWS, target=answer, metrics=[spec], store=tmp_path / "r.db")


def test_an_unknown_judge_spec_is_a_config_error_and_stores_no_run(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="unknown judge model 'gpt-4o'"):
        rj.evaluate(
            ROWS,
            target=answer,
            metrics=[{"metric": "answer_accuracy", "contexts": "none"}],
            judge="gpt-4o",
            store=tmp_path / "r.db",
            progress=False,
        )
    with Store(tmp_path / "r.db") as store:
        assert store.runs() == []


def test_a_stored_run_is_summarised_with_its_own_seed(tmp_path: Path) -> None:
    values = [0.05 * i for i in range(20)]
    with Store(tmp_path / "r.db") as store:
        samples = [Sample(request_id=f"s{i}", request=f"q{i}") for i in range(len(values))]
        run_id = store.create_run(
            name=None, config={"seed": 7}, versions={}, samples=samples, trials=1
        )
        for sample, value in zip(samples, values, strict=True):
            store.save_scores(run_id, sample.request_id, 0, [Score(metric="m", value=value)])
        stored = summarize_run(store, run_id).summaries[0].ci
        assert stored == summarize_run(store, run_id, seed=7).summaries[0].ci
        assert stored != summarize_run(store, run_id, seed=0).summaries[0].ci


def test_a_knowledge_base_may_be_given_as_a_path(tmp_path: Path) -> None:
    config = EvalConfig(metrics=["rouge_l"], knowledge_base=tmp_path)
    assert config.knowledge_base is not None and config.knowledge_base.path == tmp_path


def test_metric_searching_for_contexts_needs_a_knowledge_base_up_front(tmp_path: Path) -> None:
    calls: list[str] = []

    def target(query: str) -> str:
        calls.append(query)
        return "answer"

    with pytest.raises(ConfigError, match="retrieves evaluation contexts"):
        rj.evaluate(
            ROWS,
            target=target,
            metrics=["answer_accuracy"],
            judge="scripted",
            store=tmp_path / "r.db",
            progress=False,
        )
    assert calls == []


def test_a_note_of_the_execution_is_stored_once_per_run(tmp_path: Path) -> None:
    note = "the judge endpoint http://x/v1 refused reply schemas (HTTP 400)"
    with Store(tmp_path / "r.db") as store:
        run_id = store.create_run(
            name=None,
            config={},
            versions={},
            samples=[Sample(request_id="s", request="q")],
            trials=1,
        )
        record_notes(store, run_id, [note])
        record_notes(store, run_id, [note, "another"])  # a resumed execution says it again

        assert [event["text"] for event in store.run_events(run_id, NOTE)] == [note, "another"]


# base-url-query: a base URL with a query string got the path appended after the query
def test_base_urls_with_a_query_string_keep_it_after_the_path(tmp_path: Path) -> None:
    # Azure OpenAI's form: the judge and the openai_chat target post to
    # /v1/chat/completions?api-version=..., not to /v1?api-version=.../chat/completions
    from ragjudge.testing import BackgroundASGIServer
    from served import PathRecorder

    recorder = PathRecorder()
    (tmp_path / "set.jsonl").write_text("\n".join(json.dumps(row) for row in ROWS[:2]))
    with BackgroundASGIServer(recorder.app) as served:
        base_url = f"{served.url}/v1?api-version=2024-10-21"
        config = EvalConfig(
            data="set.jsonl",
            base_dir=tmp_path,
            target={"kind": "openai_chat", "base_url": base_url, "model": "my-rag"},
            judge={"model": "openai/judge", "base_url": base_url},
            metrics=[{"metric": "answer_accuracy", "contexts": "none"}],
        )
        result = asyncio.run(run_evaluation(config, progress=False))
    assert result.summary().set_index("metric").loc["answer_accuracy", "errors"] == 0
    assert len(recorder.requests) == 5  # the pre-flight question, two answers, two verdicts
    assert set(recorder.requests) == {("/v1/chat/completions", "api-version=2024-10-21")}
