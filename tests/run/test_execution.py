"""The executor scores samples whose metrics never wait on the spot (no task per sample
or metric): the stored rows — values, errors, details, their order — are those of
every metric scoring every sample on its own, as the awaited path does."""

from __future__ import annotations

import asyncio
import importlib.util
import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from conftest import import_quickstart
from ragjudge.config import EvalConfig
from ragjudge.metrics import Metric, MetricContext, create_metric
from ragjudge.metrics.lexical.token_f1 import TokenF1
from ragjudge.run._execution import Execution
from ragjudge.run._row_skipping import skip_rows_lacking_inputs
from ragjudge.run._runner import run_evaluation
from ragjudge.schema import Output, Sample, Score
from ragjudge.targets._targets import output_of_row

ROOT = Path(__file__).resolve().parents[2]
QUICKSTART = ROOT / "examples" / "quickstart"
LEXICAL = ["exact_match", "match", "includes", "fuzzy_match", "word_recall", "token_f1", "rouge_l"]

StoredRow = tuple[str, int, str, float | None, str | None, str | None, Any, Any, str | None]


def benchmark_rows(count: int) -> list[dict[str, Any]]:
    """The benchmark's lexical rows (English and Japanese, some with two references)."""
    spec = importlib.util.spec_from_file_location("_corpus", ROOT / "benchmarks" / "_corpus.py")
    assert spec is not None and spec.loader is not None
    corpus = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(corpus)
    rows: list[dict[str, Any]] = corpus.lexical_rows(count, seed=3)
    if count > 11:
        rows[7]["response"] = ""  # an empty answer scores 0
        rows[11]["expected_response"] = "。"  # nothing left to compare for token metrics
    return rows


def stored_rows(store: Path) -> list[StoredRow]:
    """Every stored score in the order it was written."""
    with sqlite3.connect(store) as conn:
        rows = conn.execute(
            "SELECT request_id, trial, metric, value, error, rationale, details_json,"
            " judge_call_ids_json, skipped FROM scores ORDER BY rowid"
        ).fetchall()
    return [(*r[:6], json.loads(r[6]), json.loads(r[7]), r[8]) for r in rows]


def as_row(request_id: str, trial: int, score: Score) -> StoredRow:
    return (
        request_id,
        trial,
        score.metric,
        score.value,
        score.error,
        score.rationale,
        score.details,
        score.judge_call_ids,
        score.skipped,
    )


async def one_by_one(
    samples: list[Sample], outputs: dict[str, Output], names: list[str], trials: int = 1
) -> list[StoredRow]:
    """Each metric's awaited ``score`` on each sample, with a context of its own."""
    metrics = [create_metric(name) for name in names]
    rows = []
    for sample in samples:
        for trial in range(trials):
            for metric in metrics:
                context = MetricContext(trial=trial)
                scores = await metric.score(sample, outputs[sample.request_id], context)
                rows += [as_row(sample.request_id, trial, s) for s in scores]
    return rows


def evaluate(tmp_path: Path, names: list[str], **given: Any) -> Path:
    store = tmp_path / "runs.db"
    config = EvalConfig(
        metrics=names, store=str(store), concurrency=4, trials=given.pop("trials", 1)
    )
    asyncio.run(run_evaluation(config, progress=False, **given))
    return store


def test_benchmark_rows_store_what_each_metric_gives_on_its_own(tmp_path: Path) -> None:
    rows = benchmark_rows(300)
    store = evaluate(tmp_path, LEXICAL, data=rows, trials=2)
    samples = [Sample.model_validate(row) for row in rows]
    outputs = {s.request_id: output_of_row(s) for s in samples}
    expected = asyncio.run(one_by_one(samples, outputs, LEXICAL, trials=2))
    assert len(expected) == 300 * 2 * len(LEXICAL)
    assert stored_rows(store) == expected
    assert any(r[4] for r in expected)  # the row with nothing to compare is an error


def test_quickstart_stores_what_each_metric_gives_on_its_own(tmp_path: Path) -> None:
    answer = import_quickstart("rag_app").answer
    rows = [json.loads(line) for line in (QUICKSTART / "evalset.jsonl").read_text().splitlines()]
    store = evaluate(tmp_path, LEXICAL, data=rows, target=answer)
    with sqlite3.connect(store) as conn:
        written = conn.execute("SELECT request_id, output_json FROM outputs").fetchall()
    outputs = {rid: Output.model_validate_json(text) for rid, text in written}
    samples = [Sample.model_validate(row) for row in rows]
    expected = asyncio.run(one_by_one(samples, outputs, LEXICAL))
    assert sorted(stored_rows(store)) == sorted(expected)
    assert len(expected) == len(rows) * len(LEXICAL)


class Waiting(Metric):
    """A metric that waits (as a judged one does), scored beside inline ones."""

    async def compute(self, sample: Sample, output: Output, ctx: MetricContext) -> float:
        await asyncio.sleep(0)
        return float(len(output.response or ""))


def test_metrics_that_wait_and_inline_ones_keep_the_metrics_order(tmp_path: Path) -> None:
    rows = benchmark_rows(20)
    store = evaluate(
        tmp_path,
        ["w"],
        data=rows,
        metrics=[create_metric("token_f1"), Waiting(name="w"), create_metric("rouge_l")],
    )
    names = [r[2] for r in stored_rows(store)]
    assert names == ["token_f1", "w", "rouge_l"] * 20


class Broken(TokenF1):
    def compute_now(self, sample: Sample, output: Output, ctx: MetricContext) -> Any:
        raise ZeroDivisionError("broken on purpose")


def test_an_inline_metric_that_raises_gives_error_scores(tmp_path: Path) -> None:
    store = evaluate(tmp_path, ["b"], data=benchmark_rows(3), metrics=[Broken(name="b")])
    assert [(r[3], r[4]) for r in stored_rows(store)] == [
        (None, "ZeroDivisionError: broken on purpose")
    ] * 3


class AwaitedCompute(TokenF1):
    async def compute(self, sample: Sample, output: Output, ctx: MetricContext) -> Any:
        return 0.5


class ScoredItsOwnWay(TokenF1):
    async def score(self, sample: Sample, output: Output, ctx: MetricContext) -> list[Score]:
        return [Score(metric=self.name, value=0.25)]


class BothAgain(AwaitedCompute):
    inline = True

    async def compute(self, sample: Sample, output: Output, ctx: MetricContext) -> Any:
        return 0.75

    def compute_now(self, sample: Sample, output: Output, ctx: MetricContext) -> Any:
        return 0.75


def test_which_metrics_are_scored_on_the_spot() -> None:
    assert all(create_metric(name).scored_inline for name in LEXICAL)
    assert not Waiting(name="w").scored_inline
    assert not AwaitedCompute().scored_inline  # its own compute is what it means
    assert not ScoredItsOwnWay().scored_inline  # so is its own score
    assert BothAgain().scored_inline  # compute and compute_now declared together again


def test_rows_lacking_inputs_are_not_applicable_and_the_rest_scored_on_the_spot(
    tmp_path: Path,
) -> None:
    rows = benchmark_rows(3)
    first, lacking, last = (row["request_id"] for row in rows)
    skipping = TokenF1(name="t")
    skip_rows_lacking_inputs(skipping, {lacking: "no reference"})
    assert skipping.scored_inline
    store = evaluate(tmp_path, ["t"], data=rows, metrics=[skipping])
    stored = {r[0]: r for r in stored_rows(store)}
    assert stored[lacking][3:5] == (None, None)
    assert stored[lacking][8] == "no reference"
    assert stored[first][3] is not None and stored[last][3] is not None


def test_an_overridden_compute_is_used(tmp_path: Path) -> None:
    store = evaluate(tmp_path, ["a"], data=benchmark_rows(2), metrics=[AwaitedCompute(name="a")])
    assert [r[3] for r in stored_rows(store)] == [0.5, 0.5]


@pytest.mark.parametrize("inline", [True, False])
def test_a_failure_of_the_store_stops_the_run(inline: bool) -> None:
    metric = create_metric("token_f1") if inline else Waiting(name="w")

    class Failing(Execution):
        def stored_results(self) -> tuple[set[tuple[str, int, str]], dict[str, Output]]:
            return set(), {}

        def _record(self, sample: Sample, trial: int, scores: list[Score]) -> None:
            raise OSError("disk full")

    execution = object.__new__(Failing)
    execution.run_id, execution.metrics, execution.trials = "r", [metric], 1
    execution.context, execution.agent_models = MetricContext(target=_RowTarget()), {}
    execution.writer = _NoWriter()  # type: ignore[assignment]
    samples = [Sample.model_validate(row) for row in benchmark_rows(5)]
    with pytest.raises(OSError, match="disk full"):
        asyncio.run(execution.run(samples, concurrency=2, progress=False))


class _RowTarget:
    supplies_response = False

    async def __call__(self, sample: Sample) -> Output:
        return output_of_row(sample)

    def output_now(self, sample: Sample) -> Output:
        return output_of_row(sample)


class _NoWriter:
    def output(self, request_id: str, output: Output) -> None:
        pass

    def flush(self) -> None:
        pass


def test_the_progress_status_counts_judge_calls_done_and_in_flight() -> None:
    from ragjudge.analysis._rate_limits import calls_status
    from ragjudge.models._model import JudgeModel
    from ragjudge.models.scripted import ReplyScript, ScriptedProvider

    judge = JudgeModel(ScriptedProvider(ReplyScript(default="fine")))
    assert calls_status([judge]) == ""

    async def two_calls() -> None:
        for _ in range(2):
            await judge.generate([{"role": "user", "content": "hi"}])

    asyncio.run(two_calls())
    assert calls_status([judge, judge]) == "judge calls: 2 done, 0 in flight"
    assert calls_status([judge], counted_by_the_bar=True) == "0 judge calls in flight"


def test_each_named_judge_has_its_own_context_and_shared_work(tmp_path: Path) -> None:
    from ragjudge.run._preparation import build_metrics
    from ragjudge.store._store import Store

    metrics = build_metrics(["correctness", "groundedness", "exact_match"], judges=["a", "b"])
    judge_a, judge_b = object(), object()
    context = MetricContext(
        judge=judge_a,  # type: ignore[arg-type]
        judges={
            "a": MetricContext(judge=judge_a),  # type: ignore[arg-type]
            "b": MetricContext(judge=judge_b),  # type: ignore[arg-type]
        },
    )
    with Store(tmp_path / "runs.db") as store:
        execution = Execution(store, "run", metrics, 1, context, {})
        contexts = execution._contexts(metrics, trial=0)
    by_metric = {
        (m.name, getattr(m, "judge_name", None)): c for m, c in zip(metrics, contexts, strict=True)
    }
    a1, a2 = by_metric["correctness", "a"], by_metric["groundedness", "a"]
    b1, b2 = by_metric["correctness", "b"], by_metric["groundedness", "b"]
    assert a1.judge is judge_a and b1.judge is judge_b
    # one judge's metrics share their work on the sample; two judges never do
    assert a1.shared is a2.shared and b1.shared is b2.shared
    assert a1.shared is not b1.shared and a1.computed is not b1.computed
    assert by_metric["exact_match", None].shared is not a1.shared
    assert a1.shared is not context.judges["a"].shared  # fresh for each sample and trial
