from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from conftest import shared_data
from ragjudge.datasets import (
    DATASET_LOADERS,
    HUMAN_SCORES,
    MTRAG_HUMAN_FILE,
    MTRAG_UN_FILE,
    load_mtrag_human,
    load_mtrag_un,
    mtrag_human_documents,
)
from ragjudge.loading import DatasetError
from ragjudge.schema import Sample


@pytest.fixture(scope="module")
def human_file() -> Path:
    return shared_data("mtrag-human", MTRAG_HUMAN_FILE)


@pytest.fixture(scope="module")
def un_file() -> Path:
    return shared_data("mtrag-un", MTRAG_UN_FILE)


@pytest.fixture(scope="module")
def human(human_file: Path) -> list[Sample]:
    return load_mtrag_human(human_file)


@pytest.fixture(scope="module")
def un(un_file: Path) -> list[Sample]:
    return load_mtrag_un(un_file)


def per_task(samples: list[Sample]) -> dict[str, Sample]:
    return {s.metadata["task_id"]: s for s in samples}


# --- MTRAG human evaluations --------------------------------------------------------------


def test_human_subset_counts(human: list[Sample]) -> None:
    assert len(human) == 477
    assert len({s.request_id for s in human}) == 477
    tasks = per_task(human)
    assert len(tasks) == 159
    assert len({s.metadata["conversation_id"] for s in human}) == 20
    assert Counter(s.metadata["model_id"] for s in human) == {
        "reference": 159,
        "llama-3.1-405b-instruct": 159,
        "gpt-4o": 159,
    }
    annotators = Counter(len(s.metadata["faithfulness"]) for s in human)
    assert annotators == {3: 465, 2: 12}


def test_human_task_labels_match_the_readme(human: list[Sample]) -> None:
    tasks = per_task(human).values()
    assert Counter(t.metadata["answerability"] for t in tasks) == {
        "ANSWERABLE": 135,
        "PARTIAL": 15,
        "UNANSWERABLE": 7,
        "CONVERSATIONAL": 2,
    }
    assert Counter(t.metadata["collection"] for t in tasks) == {
        "ibmcloud": 43,
        "clapnq": 41,
        "fiqa": 38,
        "govt": 37,
    }
    assert all(isinstance(t.metadata["question_type"], list) for t in tasks)
    assert {t.metadata["multi_turn"] for t in tasks} == {"Follow-up", "Clarification", None}
    assert {type(t.metadata["turn"]) for t in tasks} == {int}


def test_human_ratings_are_integer_annotator_dicts(human: list[Sample]) -> None:
    faithfulness = Counter(v for s in human for v in s.metadata["faithfulness"].values())
    completeness = Counter(v for s in human for v in s.metadata["completeness"].values())
    assert faithfulness == {1: 109, 2: 159, 3: 261, 4: 890}
    assert completeness == {1: 110, 2: 70, 3: 140, 4: 1091}
    first = human[0].metadata
    assert set(HUMAN_SCORES) <= set(first)
    assert all(isinstance(v, float) for v in first["win_rate"].values())
    auto = {k for k in first if k.startswith("auto.")}
    assert auto == {
        "auto.RougeL",
        "auto.Bert-Rec",
        "auto.Bert-KPrec",
        "auto.rb_agg",
        "auto.rb_llm",
        "auto.rl_f",
        "auto.conditional_idk",
    }
    assert all(isinstance(first[k], float) for k in auto)


def test_human_sample_fields(human: list[Sample], human_file: Path) -> None:
    raw = json.loads(human_file.read_text(encoding="utf-8"))
    task = raw["tasks"][1]
    evaluation = next(e for e in raw["evaluations"] if e["task_id"] == task["task_id"])
    sample = next(
        s for s in human if s.request_id == f"{task['task_id']}::{evaluation['model_id']}"
    )
    assert sample.response == evaluation["model_response"]
    assert sample.expected_response == task["targets"][0]["text"]
    assert sample.request.query == task["input"][-1]["text"]
    roles = [m.role for m in sample.request.messages]
    speakers = [t["speaker"] for t in task["input"]]
    assert roles == [{"user": "user", "agent": "assistant"}[s] for s in speakers]
    assert sample.retrieved_context is not None
    assert [c.doc_uri for c in sample.retrieved_context] == [
        c["document_id"] for c in task["contexts"]
    ]
    documents = {d["document_id"]: d for d in raw["documents"]}
    first = sample.retrieved_context[0]
    assert first.content == documents[first.doc_uri]["text"]


def test_human_tasks_without_passages_were_given_none(human: list[Sample]) -> None:
    # the system was given no passage: an empty list (it retrieved nothing), which the
    # context metrics score, not a missing field that refuses the run
    without = [s for s in human if s.retrieved_context == []]
    assert len(without) == 27  # 9 tasks × 3 models
    assert all(s.retrieved_context is not None and s.has_field("retrieved_context") for s in human)


def test_human_documents_resolve_every_context(human: list[Sample], human_file: Path) -> None:
    documents = mtrag_human_documents(human_file.parent)
    assert len(documents) == 350
    uris = {d.doc_uri for d in documents}
    assert len(uris) == 350
    used = {c.doc_uri for s in human for c in s.retrieved_context or []}
    assert used <= uris
    assert all(d.content and "title" in d.metadata for d in documents)


def test_folder_and_file_paths_load_the_same(human: list[Sample], human_file: Path) -> None:
    from_folder = load_mtrag_human(human_file.parent)
    assert [s.request_id for s in from_folder] == [s.request_id for s in human]


# --- MTRAG-UN -------------------------------------------------------------------------------


def test_un_counts_match_the_readme(un: list[Sample]) -> None:
    assert len(un) == 507
    assert len({s.request_id for s in un}) == 507
    assert Counter(s.metadata["answerability"] for s in un) == {
        "ANSWERABLE": 285,
        "UNANSWERABLE": 97,
        "UNDERSPECIFIED": 78,
        "PARTIAL": 47,
    }
    assert Counter(s.metadata["multi_turn"] for s in un) == {
        "Follow-up": 330,
        "N/A": 103,
        "Clarification": 74,
    }
    assert Counter(s.metadata["collection"] for s in un) == {
        "govt": 157,
        "clapnq": 142,
        "ibmcloud": 131,
        "fiqa": 77,
    }


def test_un_rows_without_contexts_load(un: list[Sample]) -> None:
    without = [s for s in un if s.expected_retrieved_context is None]
    assert len(without) == 130
    kinds = Counter(s.metadata["answerability"] for s in without)
    assert kinds == {"UNANSWERABLE": 97, "UNDERSPECIFIED": 33}


def test_un_sample_fields(un: list[Sample], un_file: Path) -> None:
    record = json.loads(un_file.read_text(encoding="utf-8").splitlines()[0])
    sample = un[0]
    assert sample.request_id == record["task_id"]
    assert sample.metadata["conversation_id"] == record["conversation_id"]
    assert sample.metadata["turn"] == int(record["turn"])
    assert sample.request.query == record["input"][-1]["text"]
    assert len(sample.request.messages) == len(record["input"])
    assert sample.expected_response == record["targets"][0]["text"]
    assert sample.expected_retrieved_context is not None
    chunk = sample.expected_retrieved_context[0]
    assert chunk.doc_uri == record["contexts"][0]["document_id"]
    assert chunk.content == record["contexts"][0]["text"]
    assert sample.response is None


# --- by name and on bad files -------------------------------------------------------------


def test_loaders_are_found_by_format_name() -> None:
    assert DATASET_LOADERS["mtrag_human"] is load_mtrag_human
    assert DATASET_LOADERS["mtrag_un"] is load_mtrag_un


def un_line(**changes: Any) -> str:
    record: dict[str, Any] = {
        "conversation_id": "c1",
        "task_id": "c1<::>1",
        "turn": "1",
        "contexts": [],
        "input": [{"speaker": "user", "text": "どこで申請できますか？"}],
        "targets": [{"speaker": "agent", "text": "市役所の窓口で申請できます。"}],
        "answerability": ["ANSWERABLE"],
        "Question Type": ["Factoid"],
        "Multi-Turn": ["N/A"],
        "Collection": "govt",
    }
    record.update(changes)
    return json.dumps(record, ensure_ascii=False)


def test_un_bad_lines_are_all_reported(tmp_path: Path) -> None:
    file = tmp_path / "reference.jsonl"
    lines = [
        un_line(),
        "{not json",
        un_line(task_id="c2<::>1", input=[{"speaker": "bot", "text": "hi"}]),
        un_line(task_id="c3<::>1", targets=[]),
        un_line(),
    ]
    file.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(DatasetError) as caught:
        load_mtrag_un(tmp_path)
    found = {(p.row, p.field) for p in caught.value.problems}
    assert found == {(2, ""), (3, "input.speaker"), (4, "targets"), (5, "task_id")}


def test_un_japanese_row_loads(tmp_path: Path) -> None:
    file = tmp_path / "un.jsonl"
    file.write_text(un_line() + "\n", encoding="utf-8")
    (sample,) = load_mtrag_un(file)
    assert sample.request.query == "どこで申請できますか？"
    assert sample.metadata["answerability"] == "ANSWERABLE"


def test_human_evaluation_of_an_unknown_task_is_reported(tmp_path: Path) -> None:
    data = {
        "documents": [{"document_id": "d1", "title": "T", "text": "passage"}],
        "tasks": [
            {
                "task_id": "c<::>1",
                "input": [{"speaker": "user", "text": "q"}],
                "contexts": [{"document_id": "d1"}],
                "targets": [{"speaker": "agent", "text": "ref"}],
                "Answerability": ["ANSWERABLE"],
                "Collection": "mt-rag-govt-elser-512-100-20240611",
                "Turn": "1",
            }
        ],
        "evaluations": [
            {
                "task_id": "c<::>1",
                "model_id": "m",
                "model_response": "r",
                "annotations": {"faithfulness": {"a1": {"value": "4"}, "a2": {"value": "x"}}},
            },
            {"task_id": "gone", "model_id": "m", "model_response": "r", "annotations": {}},
        ],
    }
    file = tmp_path / "h.json"
    file.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(DatasetError) as caught:
        load_mtrag_human(file)
    found = {(p.row, p.field) for p in caught.value.problems}
    assert found == {(1, "evaluations.annotations.faithfulness"), (2, "evaluations.task_id")}


def test_missing_file_is_reported(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        load_mtrag_human(tmp_path)
    with pytest.raises(FileNotFoundError):
        load_mtrag_un(tmp_path / "nope.jsonl")
