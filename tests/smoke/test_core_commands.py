"""Every ``ragjudge`` command on whatever is installed — in the core environment of
``make test`` (the core dependencies and the ``serve`` extra) and in the full one: each
command's ``--help``, and the commands a newcomer types after ``make demo``, exit as
documented and never print a traceback."""

from __future__ import annotations

import importlib.util
import json
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pytest
import typer.main
from smoke_env import Finished, copy_quickstart, run_python, run_ragjudge

from ragjudge._util.extras import EXTRA_MODULES, extra_installed
from ragjudge.cli._app import app

pytestmark = pytest.mark.smoke


@pytest.mark.skipif(
    os.environ.get("RAGJUDGE_CORE_ENV") != "1",
    reason="checks the core environment of make test (RAGJUDGE_CORE_ENV=1)",
)
def test_the_core_environment_has_the_core_install_and_serve_only() -> None:
    present = [extra for extra in EXTRA_MODULES if extra != "serve" and extra_installed(extra)]
    assert present == []
    assert importlib.util.find_spec("rouge_score") is None  # a dev dependency only
    assert extra_installed("serve")


def command_paths() -> list[list[str]]:
    """Every command and subcommand of ``ragjudge`` (``[]`` is ``ragjudge`` itself)."""
    found: list[list[str]] = []

    def walk(command: object, path: list[str]) -> None:
        found.append(path)
        for name, sub in getattr(command, "commands", {}).items():
            walk(sub, [*path, name])

    walk(typer.main.get_command(app), [])
    return found


@pytest.mark.parametrize("path", command_paths(), ids=lambda p: " ".join(p) or "ragjudge")
def test_every_command_has_help(path: list[str], tmp_path: Path) -> None:
    done = run_ragjudge([*path, "--help"], tmp_path)
    assert (done.code, done.tracebacks) == (0, 0), done.out + done.err
    assert "Usage" in done.out


@dataclass(frozen=True)
class Step:
    """One command a newcomer types, the exit statuses it documents and what its output
    must say."""

    args: str
    codes: tuple[int, ...] = (0,)
    says: str = ""
    check: Callable[[Finished, Path], None] | None = field(default=None, compare=False)


def _json_lists_every_metric(done: Finished, folder: Path) -> None:
    listed = {m["name"]: m for m in json.loads(done.out)}
    assert {"exact_match", "rouge_l", "bert_score"} <= set(listed)
    hint = listed["bert_score"]["install_hint"]
    if extra_installed("local"):
        assert hint is None
    else:
        assert hint == "needs pip install 'ragjudge[local]'"


def _rows_written(done: Finished, folder: Path) -> None:
    rows = (folder / "rows.jsonl").read_text(encoding="utf-8").splitlines()
    assert len(rows) == 31 and "rouge_l" in json.loads(rows[0])


def _report_written(done: Finished, folder: Path) -> None:
    assert (folder / "report.html").read_text(encoding="utf-8").startswith("<!DOCTYPE html>")


STEPS = [
    Step("metrics", says="exact_match"),
    Step("metrics -v", says="judge calls per sample"),
    Step("metrics --json", check=_json_lists_every_metric),
    Step("specs"),
    Step("run eval.yaml --dry-run", says="target calls: 31"),
    Step("generate --kb kb --n 10 --judge openai/gpt-4o-mini --dry-run", says="model calls"),
    Step("runs", says="{run}"),
    Step("show {run}", says="rouge_l"),
    Step("show {run} --json", says='"run_id"'),
    Step("export {run} -o rows.jsonl", check=_rows_written),
    Step("export {run} -o rows.csv", says="wrote 31 rows"),
    Step("export {run} -o rows.parquet", says="wrote 31 rows"),
    Step("export {run} --layout databricks -o eval_results.jsonl", says="wrote 31 rows"),
    Step("report {run} -o report.html", check=_report_written),
    Step("compare {run} {run}"),
    Step("show {run} --calibrated", says="No labels from people are stored"),
    Step("compare {run} {run} --calibrated --json", says='"calibrated"'),
    Step("gate {run} --fail-under rouge_l=0.1"),
    Step("gate {run} --fail-under rouge_l.calibrated=0.1", codes=(5,), says="no labels"),
    Step("repro {run}"),
    Step("methods {run}"),
    Step("counts {run}", says="no classify scores"),
    Step("stability {run}", codes=(2,), says="has one trial"),
    Step("meta {run} --human no_such_label", codes=(2,)),
    Step("view --label {run} --metric no_such_score --annotator ana", codes=(2,), says="--metric"),
    Step("align {run} --metric exact_match", codes=(2,), says="built-in metric"),
    Step("followups {run} -o replay.jsonl", codes=(2,), says="no multi-turn transcript"),
    # a lexical run has no judge reply cache; saying so may end with exit 2
    Step("cache stats", codes=(0, 2), says="cache"),
    # the stored run scored every row of the set: an incremental run has nothing new
    Step("run eval.yaml --incremental --no-progress", says="nothing new to evaluate"),
    Step("series", codes=(2,), says="no incremental run"),
    Step("show no-such-run", codes=(2,), says="no-such-run"),
    Step("run no-such-file.yaml", codes=(2,), says="no-such-file.yaml"),
]


@pytest.fixture(scope="module")
def quickstart_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """A copy of the quickstart with one run of its ``eval.yaml`` stored."""
    folder = copy_quickstart(tmp_path_factory.mktemp("newcomer"))
    done = run_ragjudge(["run", "eval.yaml", "--json"], folder)
    assert (done.code, done.tracebacks) == (0, 0), done.out + done.err
    return folder, json.loads(done.out)["run_id"]


@pytest.mark.parametrize("step", STEPS, ids=lambda s: s.args)
def test_a_newcomers_command_exits_as_documented(
    step: Step, quickstart_run: tuple[Path, str]
) -> None:
    folder, run_id = quickstart_run
    args = step.args.format(run=run_id).split()
    done = run_ragjudge(args, folder)
    said = done.out + done.err
    assert done.tracebacks == 0, said
    assert done.code in step.codes, said
    assert step.says.format(run=run_id) in said
    if step.check is not None:
        step.check(done, folder)


NEEDS_AN_EXTRA = [
    ("local", "metrics: [bert_score]", "metric 'bert_score' needs the 'local' extra"),
    ("local", "metrics: [answer_similarity]", "pip install 'ragjudge[local]'"),
    (
        "local",
        "metrics: [exact_match]\nknowledge_base: {path: kb, retriever: dense}",
        "ragjudge[local]",
    ),
    (
        "litellm",
        "metrics: [faithfulness]\njudge: {model: litellm/anthropic/claude-3-5-haiku}",
        "ragjudge[litellm]",
    ),
    ("ray", "metrics: [exact_match]\nexecutor: ray", "ragjudge[ray]"),
    (
        "delta",
        "metrics: [exact_match]\nresults_table: {path: table, format: delta}",
        "ragjudge[delta]",
    ),
    (
        "jsonschema",
        "metrics: [{metric: json_schema, json_schema: {type: object}}]",
        "ragjudge[jsonschema]",
    ),
]


@pytest.mark.parametrize(("extra", "settings", "says"), NEEDS_AN_EXTRA, ids=lambda v: str(v)[:40])
def test_a_run_needing_a_missing_extra_names_it(
    extra: str, settings: str, says: str, tmp_path: Path
) -> None:
    if extra_installed(extra):
        pytest.skip(f"the {extra!r} extra is installed here (the core environment checks this)")
    folder = copy_quickstart(tmp_path)
    (folder / "needs.yaml").write_text(
        f"data: evalset.jsonl\ntarget: rag_app:answer\n{settings}\n", encoding="utf-8"
    )
    done = run_ragjudge(["run", "needs.yaml"], folder)
    assert (done.code, done.tracebacks) == (2, 0), done.out + done.err
    assert says in done.err


def test_a_results_table_is_written_and_read_back_on_the_core_install(tmp_path: Path) -> None:
    folder = copy_quickstart(tmp_path)
    (folder / "table.yaml").write_text(
        "data: evalset.jsonl\ntarget: rag_app:answer\nmetrics: [exact_match]\n"
        "results_table: table\n",
        encoding="utf-8",
    )
    for args, says in [
        (["run", "table.yaml", "--no-progress"], "exact_match"),
        (["show", "latest", "--table", "table"], "exact_match"),
        (["export", "latest", "--table", "table", "-o", "rows.csv"], "wrote 31 rows"),
        (["compare", "latest", "latest", "--table", "table"], "exact_match"),
    ]:
        done = run_ragjudge(args, folder)
        assert (done.code, done.tracebacks) == (0, 0), done.out + done.err
        assert says in done.out + done.err


def test_mlflow_export_without_the_extra_names_it(quickstart_run: tuple[Path, str]) -> None:
    if extra_installed("mlflow"):
        pytest.skip("the 'mlflow' extra is installed here (the core environment checks this)")
    folder, run_id = quickstart_run
    done = run_ragjudge(["export", run_id, "--to", "mlflow"], folder)
    assert (done.code, done.tracebacks) == (2, 0)
    assert "pip install 'ragjudge[mlflow]'" in done.err


def test_a_wide_tsv_of_two_systems_runs_once_per_system(tmp_path: Path) -> None:
    (tmp_path / "wide.tsv").write_text(
        "question\tgold\tanswer_a\tanswer_b\nWhat is SQL?\tA query language/SQL\tSQL\tA language\n",
        encoding="utf-8",
    )
    (tmp_path / "eval.yaml").write_text(
        "data: wide.tsv\ncolumns: {request: question, expected_response: gold}\n"
        'separators: {expected_response: "/"}\nsystems: {a: answer_a, b: answer_b}\n'
        "metrics: [exact_match]\n",
        encoding="utf-8",
    )
    done = run_ragjudge(["run", "eval.yaml"], tmp_path)
    assert (done.code, done.tracebacks) == (0, 0), done.out + done.err
    assert "2 runs, one per system:" in done.out and "ragjudge compare" in done.out


def test_a_wide_tsv_of_two_systems_evaluates_and_resumes_from_python(tmp_path: Path) -> None:
    (tmp_path / "wide.tsv").write_text(
        "question\tgold\tanswer_a\tanswer_b\n"
        "What is SQL?\tSQL\tSQL\tA language\nWhat is 2+2?\t4\t4\t4\n",
        encoding="utf-8",
    )
    (tmp_path / "systems.py").write_text(
        "import ragjudge as rj\n"
        "settings = dict(columns={'request': 'question', 'expected_response': 'gold'},\n"
        "    systems={'a': 'answer_a', 'b': 'answer_b'}, metrics=['exact_match'],\n"
        "    store='runs.db', progress=False)\n"
        "runs = rj.evaluate_systems('wide.tsv', **settings)\n"
        "print(list(runs), runs.compare('a', 'b').rows[0].paired.n)\n"
        "again = rj.evaluate_systems('wide.tsv', resume=runs['b'].run_id, **settings)\n"
        "print(list(again), again['b'].run_id == runs['b'].run_id)\n",
        encoding="utf-8",
    )
    done = run_python(["systems.py"], tmp_path)
    assert (done.code, done.tracebacks) == (0, 0), done.out + done.err
    assert done.out.splitlines() == ["['a', 'b'] 2", "['b'] True"]


def test_a_parquet_folder_read_in_pages_runs_and_resumes_locally(tmp_path: Path) -> None:
    (tmp_path / "paged.py").write_text(
        "import dataclasses, sys\n"
        "import pyarrow as pa, pyarrow.parquet as pq\n"
        "import ragjudge as rj\n"
        "from ragjudge.run import _executors\n"
        "from ragjudge.run._paged import PagedExecution\n"
        "local = _executors.executor_kind('local')\n"
        "_executors._KINDS['local'] = dataclasses.replace(local, held_whole_up_to=0)\n"
        "PagedExecution.page_rows = 2\n"
        "rows = [{'request': f'q{i}', 'response': f'a{i}', 'expected_response': 'a1'}\n"
        "    for i in range(5)]\n"
        "import pathlib; pathlib.Path('set').mkdir()\n"
        "pq.write_table(pa.Table.from_pylist(rows), 'set/part.parquet')\n"
        "settings = dict(metrics=['exact_match'], store='runs.db', progress=False)\n"
        "result = rj.evaluate('set', **settings)\n"
        "again = rj.evaluate(None, resume=result.run_id, **settings)\n"
        "print(result.n_samples, result.summaries[0].mean, again.status)\n",
        encoding="utf-8",
    )
    done = run_python(["paged.py"], tmp_path)
    assert (done.code, done.tracebacks) == (0, 0), done.out + done.err
    assert done.out.splitlines() == ["5 0.2 completed"]


def test_an_opentelemetry_trace_file_without_the_extra_names_it(tmp_path: Path) -> None:
    if extra_installed("traces"):
        pytest.skip("the 'traces' extra is installed here (the core environment checks this)")
    span = {
        "traceId": "ab" * 16,
        "spanId": "cd" * 8,
        "name": "agent",
        "startTimeUnixNano": "1",
        "attributes": [{"key": "output.value", "value": {"stringValue": "a"}}],
    }
    (tmp_path / "traces.json").write_text(
        json.dumps({"resourceSpans": [{"scopeSpans": [{"spans": [span]}]}]}), encoding="utf-8"
    )
    (tmp_path / "eval.yaml").write_text("data: traces.json\nmetrics: [agent_usage]\n")
    done = run_ragjudge(["run", "eval.yaml"], tmp_path)
    assert (done.code, done.tracebacks) == (2, 0), done.out + done.err
    assert "pip install 'ragjudge[traces]'" in done.err


def test_a_per_sample_threshold_runs_shows_and_exports_its_passes(tmp_path: Path) -> None:
    folder = copy_quickstart(tmp_path)
    (folder / "passes.yaml").write_text(
        "data: evalset.jsonl\ntarget: rag_app:answer\n"
        "metrics: [{metric: token_f1, threshold: 0.5}]\n",
        encoding="utf-8",
    )
    done = run_ragjudge(["run", "passes.yaml", "--json"], folder)
    assert (done.code, done.tracebacks) == (0, 0), done.out + done.err
    [rate] = json.loads(done.out)["pass_rates"]
    assert rate["metric"] == "token_f1" and rate["passed"] + rate["failed"] == 31
    run_id = json.loads(done.out)["run_id"]
    shown = run_ragjudge(["show", run_id], folder)
    assert "per-sample thresholds" in shown.out and shown.tracebacks == 0
    exported = run_ragjudge(["export", run_id, "-o", "rows.jsonl"], folder)
    assert exported.code == 0, exported.err
    rows = (folder / "rows.jsonl").read_text(encoding="utf-8").splitlines()
    passes = [json.loads(row)["token_f1.passed"] for row in rows]
    assert passes.count(True) == rate["passed"] and passes.count(False) == rate["failed"]


def test_a_pass_rate_gate_fails_the_run_and_compare_pairs_the_passes(tmp_path: Path) -> None:
    folder = copy_quickstart(tmp_path)
    (folder / "passes.yaml").write_text(
        "data: evalset.jsonl\ntarget: rag_app:answer\n"
        "metrics: [{metric: token_f1, threshold: 0.5}]\n",
        encoding="utf-8",
    )
    done = run_ragjudge(["run", "passes.yaml", "--fail-under", "token_f1.passed=1"], folder)
    assert (done.code, done.tracebacks) == (5, 0), done.out + done.err
    assert "gate failed (--fail-under token_f1.passed=1): share of samples with token_f1" in (
        done.out + done.err
    )
    listed = run_ragjudge(["runs", "--json"], folder)
    run_id = json.loads(listed.out)[0]["run_id"]
    compared = run_ragjudge(["compare", run_id, run_id], folder)
    assert (compared.code, compared.tracebacks) == (0, 0), compared.out + compared.err
    assert "pass rates, paired by request_id" in compared.out


def test_a_threshold_outside_the_range_exits_2_naming_the_metric(tmp_path: Path) -> None:
    folder = copy_quickstart(tmp_path)
    (folder / "bad.yaml").write_text(
        "data: evalset.jsonl\ntarget: rag_app:answer\n"
        "metrics: [{metric: token_f1, threshold: 5}]\n",
        encoding="utf-8",
    )
    done = run_ragjudge(["run", "bad.yaml"], folder)
    assert (done.code, done.tracebacks) == (2, 0), done.out + done.err
    assert "metric 'token_f1': 'threshold' 5 is outside the range" in done.err


def test_traces_of_an_mlflow_experiment_without_the_extra_name_it(tmp_path: Path) -> None:
    if extra_installed("mlflow"):
        pytest.skip("the 'mlflow' extra is installed here (the core environment checks this)")
    folder = copy_quickstart(tmp_path)
    (folder / "traces.yaml").write_text(
        'data: "mlflow:rag-app"\nmetrics: [exact_match]\n', encoding="utf-8"
    )
    done = run_ragjudge(["run", "traces.yaml"], folder)
    assert (done.code, done.tracebacks) == (2, 0), done.out + done.err
    assert "pip install 'ragjudge[mlflow]'" in done.err


def test_batch_mode_for_a_judge_without_a_batch_api_exits_2_naming_the_key(
    tmp_path: Path,
) -> None:
    folder = copy_quickstart(tmp_path)
    (folder / "batch.yaml").write_text(
        "data: evalset.jsonl\ntarget: rag_app:answer\nmetrics: [token_f1]\n"
        "judge: {model: scripted, mode: batch}\n",
        encoding="utf-8",
    )
    done = run_ragjudge(["run", "batch.yaml"], folder)
    assert (done.code, done.tracebacks) == (2, 0), done.out + done.err
    assert "judge.mode: batch" in done.err and "'openai/<model>'" in done.err


def test_a_delta_table_without_the_extra_names_it(tmp_path: Path) -> None:
    if extra_installed("delta"):
        pytest.skip("the 'delta' extra is installed here (the core environment checks this)")
    (tmp_path / "requests" / "_delta_log").mkdir(parents=True)
    (tmp_path / "eval.yaml").write_text("data: requests\nmetrics: [exact_match]\n")
    done = run_ragjudge(["run", "eval.yaml", "--where", "date >= '2026-11-01'"], tmp_path)
    assert (done.code, done.tracebacks) == (2, 0), done.out + done.err
    assert "pip install 'ragjudge[delta]'" in done.err


def test_a_partitioned_folder_runs_with_a_row_filter(tmp_path: Path) -> None:
    for day in ("2026-10-31", "2026-11-01"):
        (tmp_path / "logs" / f"date={day}").mkdir(parents=True)
    (tmp_path / "make.py").write_text(
        "import pyarrow as pa, pyarrow.parquet as pq\n"
        "rows = {'request': ['What is SQL?'], 'response': ['SQL'], 'expected_response': ['SQL']}\n"
        "pq.write_table(pa.table(rows), 'logs/date=2026-11-01/part-0.parquet')\n"
        "open('logs/date=2026-10-31/part-0.parquet', 'wb').write(b'unreadable')\n",
        encoding="utf-8",
    )
    assert run_python(["make.py"], tmp_path).code == 0
    (tmp_path / "eval.yaml").write_text("data: logs\nmetrics: [exact_match]\n")
    done = run_ragjudge(["run", "eval.yaml", "--where", "date >= '2026-11-01'"], tmp_path)
    assert (done.code, done.tracebacks) == (0, 0), done.out + done.err
    unknown = run_ragjudge(["run", "eval.yaml", "--where", "day = 1"], tmp_path)
    assert (unknown.code, unknown.tracebacks) == (2, 0), unknown.out + unknown.err
    assert "'day'" in unknown.err


def test_labels_are_imported_listed_and_agreed_on_with_the_core_install(
    quickstart_run: tuple[Path, str],
) -> None:
    folder, run_id = quickstart_run
    rows = [
        {"request_id": f"q0{i}", "metric": "rouge_l", "annotator": who, "label": label}
        for i, (ann, bob) in enumerate([(4, 4), (2, 3), (5, 5), (1, 1)], start=1)
        for who, label in (("ann", ann), ("bob", bob))
    ]
    labels = folder / "labels.jsonl"
    labels.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    for args, says in [
        (["labels", "import", run_id, "labels.jsonl"], "stored 8 label(s)"),
        (["labels", "list", run_id], "ann 4, bob 4"),
        (["labels", "agreement", run_id, "--resamples", "50"], "ann – bob"),
        (["labels", "export", run_id, "-o", "labels.csv"], "wrote 8 label(s)"),
    ]:
        done = run_ragjudge(args, folder)
        assert (done.code, done.tracebacks) == (0, 0), done.out + done.err
        assert says in done.out + done.err
    done = run_ragjudge(["labels", "import", run_id, "labels.jsonl", "--metric", "nope"], folder)
    assert (done.code, done.tracebacks) == (0, 0)  # rows name their metric: the option fills none
    labels.write_text('{"request_id": "q99", "annotator": "ann", "label": "yes"}\n', "utf-8")
    done = run_ragjudge(["labels", "import", run_id, "labels.jsonl"], folder)
    assert (done.code, done.tracebacks) == (2, 0)
    assert "labels.jsonl, line 1, field 'request_id'" in done.err
