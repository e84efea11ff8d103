"""The answer-accuracy paper's table from one run: three judges on three local test
servers — one that grades as the human annotators did, one that adds noise to those
grades, one biased towards long answers — score the MTRAG human subset with
reference-retrieved and question-retrieved contexts; ``ragjudge meta --table`` ranks
them against the human faithfulness labels in that order, and each judge's stored
verdicts are its server's."""

from __future__ import annotations

import hashlib
import json
import statistics
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from conftest import shared_data
from ragjudge.cli import app
from ragjudge.loading import load_samples
from ragjudge.models.scripted import ReplyScript, prompt_text
from ragjudge.schema import Sample
from ragjudge.store._store import Store
from ragjudge.testing.server import OpenAITestServer

runner = CliRunner()
ROWS = 90
MTRAG = "reference_subset_with_human_evaluations.json"
JUDGES = ("agreeing", "noisy", "biased")


def human_grade(sample: Sample) -> int:
    """The annotators' mean faithfulness (1–4), rounded, moved to answer accuracy's 1–5."""
    ratings = sample.metadata["faithfulness"].values()
    return round(statistics.mean(float(r) for r in ratings)) + 1


def noise(text: str) -> int:
    """-2 … 2, fixed per answer."""
    return int(hashlib.sha256(text.encode()).hexdigest(), 16) % 5 - 2


def grades(samples: list[Sample]) -> dict[str, dict[str, int]]:
    """Per judge, the grade it gives each answer."""
    lengths = sorted(len(s.response or "") for s in samples)
    long_answer = lengths[len(lengths) // 2]
    found: dict[str, dict[str, int]] = {name: {} for name in JUDGES}
    for s in samples:
        answer = s.response or ""
        found["agreeing"][answer] = human_grade(s)
        found["noisy"][answer] = min(5, max(1, human_grade(s) + noise(answer)))
        found["biased"][answer] = 5 if len(answer) > long_answer else 2
    return found


def grader(grade_of: dict[str, int]) -> Callable[[list[Any]], str | None]:
    """A scripted judge giving ``grade_of[answer]`` to the answer its prompt shows (the
    longest known answer in the prompt); None (the script's default) to anything else."""
    answers = sorted(grade_of, key=len, reverse=True)

    def reply(messages: list[Any]) -> str | None:
        prompt = prompt_text(messages)
        for answer in answers:
            if answer and answer in prompt:
                return f"Feedback: graded. [RESULT] {grade_of[answer]}"
        return None

    return reply


@pytest.fixture(scope="module")
def samples() -> list[Sample]:
    loaded = load_samples(mtrag(), format="mtrag_human")
    return [s for s in loaded if s.response][:ROWS]


def mtrag() -> Path:
    """The subset's file under ``../shared/data`` (the test skips when it is not there)."""
    return shared_data("mtrag-human", MTRAG)


@pytest.fixture(scope="module")
def servers(samples: list[Sample]) -> Iterator[dict[str, OpenAITestServer]]:
    per_judge = grades(samples)
    started = {
        name: OpenAITestServer(replies=ReplyScript(function=grader(per_judge[name])))
        for name in JUDGES
    }
    for server in started.values():
        server.start()
    try:
        yield started
    finally:
        for server in started.values():
            server.stop()


def knowledge_base(path: Path) -> Path:
    """The subset's 350 passages as a JSON Lines knowledge base."""
    documents = json.loads(mtrag().read_text(encoding="utf-8"))["documents"]
    with path.open("w", encoding="utf-8") as out:
        for d in documents:
            row = {"doc_uri": d["document_id"], "content": d["text"]}
            out.write(json.dumps(row, ensure_ascii=False) + "\n")
    return path


def config(tmp_path: Path, servers: dict[str, OpenAITestServer]) -> Path:
    prices = {"agreeing": 5.0, "noisy": 1.0, "biased": 0.2}
    judges = {
        name: {
            "model": f"openai/{name}-model",
            "base_url": servers[name].base_url,
            "prices": {f"{name}-model": {"input": prices[name], "output": prices[name]}},
        }
        for name in JUDGES
    }
    text = {
        "data": str(mtrag()),
        "format": "mtrag_human",
        "target": "data",
        "limit": ROWS,
        "knowledge_base": {"path": str(knowledge_base(tmp_path / "kb.jsonl"))},
        "judges": judges,
        "metrics": [
            {"metric": "answer_accuracy", "contexts": "reference", "k": 3},
            {"metric": "answer_accuracy", "name": "answer_accuracy_q", "contexts": "question",
             "k": 3},
        ],
        "store": str(tmp_path / "runs.db"),
    }  # fmt: skip
    path = tmp_path / "eval.yaml"
    path.write_text(json.dumps(text), encoding="utf-8")  # JSON is YAML
    return path


@pytest.fixture(scope="module")
def matrix_run(
    tmp_path_factory: pytest.TempPathFactory, servers: dict[str, OpenAITestServer]
) -> tuple[Path, str]:
    tmp_path = tmp_path_factory.mktemp("matrix")
    ran = runner.invoke(app, ["run", str(config(tmp_path, servers)), "--json", "--no-progress"])
    assert ran.exit_code == 0, ran.output
    return tmp_path / "runs.db", json.loads(ran.stdout)["run_id"]


def test_each_judge_stores_its_servers_verdicts(
    matrix_run: tuple[Path, str], samples: list[Sample]
) -> None:
    store_path, run_id = matrix_run
    expected = grades(samples)
    by_id = {s.request_id: s.response or "" for s in samples}
    with Store(store_path) as store:
        scores = store.scores(run_id)
        meanings = store.run(run_id).meanings or {}
    seen: dict[str, int] = {}
    for request_id, _trial, score in scores:
        judge = meanings[score.metric].judge
        assert judge in JUDGES and score.judge == judge
        assert score.value == expected[judge][by_id[request_id]], (score.metric, request_id)
        seen[score.metric] = seen.get(score.metric, 0) + 1
    assert seen == {
        f"{m}@{j}": ROWS for m in ("answer_accuracy", "answer_accuracy_q") for j in JUDGES
    }
    contexts = {meanings[f"answer_accuracy_q@{j}"].contexts for j in JUDGES}
    assert contexts == {"question"}
    assert meanings["answer_accuracy@noisy"].contexts == "reference"


def test_the_table_ranks_the_judges_in_one_command(matrix_run: tuple[Path, str]) -> None:
    store_path, run_id = matrix_run
    meta = runner.invoke(
        app,
        ["meta", run_id, "--human", "faithfulness", "--table", "--json", "--store",
         str(store_path), "--within", "0.3"],
    )  # fmt: skip
    assert meta.exit_code == 0, meta.output
    table = json.loads(meta.stdout)
    rows = {(r["metric"], r["judge"], r["contexts"]) for r in table["rows"]}
    assert rows == {
        (m, j, c)
        for m, c in (("answer_accuracy", "reference"), ("answer_accuracy_q", "question"))
        for j in JUDGES
    }
    for row in table["rows"]:
        label = row["labels"]["faithfulness"]
        assert label["n"] == ROWS and row["calls"] == ROWS
        kendall = label["kendall"]
        assert kendall["ci_low"] <= kendall["value"] <= kendall["ci_high"]
    rankings = {(r["metric"], r["contexts"]): r for r in table["rankings"]}
    assert set(rankings) == {("answer_accuracy", "reference"), ("answer_accuracy_q", "question")}
    for ranking in rankings.values():
        assert [j["judge"] for j in ranking["judges"]] == list(JUDGES)
        costs = [j["cost_per_1000"] for j in ranking["judges"]]
        assert costs[0] > costs[1] > costs[2] > 0
        assert ranking["best"] == "agreeing"
        assert ranking["cheapest_within"] in JUDGES
    printed = runner.invoke(
        app, ["meta", run_id, "--human", "faithfulness", "--table", "--store", str(store_path)]
    )
    assert printed.exit_code == 0, printed.output
    assert "cheapest judge within" in printed.output
