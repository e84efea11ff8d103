"""Tests for loading evaluation sets in every supported file type and format."""

from __future__ import annotations

import csv
import json
import tracemalloc
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from conftest import shared_data
from ragjudge.cli import app
from ragjudge.loading import (
    DatasetError,
    RowProblem,
    detect_format,
    load_samples,
    read_evaluation_set,
)

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "datasets"


def load_error(source: Any, **kwargs: Any) -> DatasetError:
    with pytest.raises(DatasetError) as info:
        load_samples(source, **kwargs)
    return info.value


def by_row(error: DatasetError) -> dict[int, list[RowProblem]]:
    rows: dict[int, list[RowProblem]] = {}
    for problem in error.problems:
        rows.setdefault(problem.row, []).append(problem)
    return rows


# --------------------------------------------------------------------------- file types


def test_jsonl_mixes_request_forms_and_counts_blank_lines() -> None:
    samples = load_samples(FIXTURES / "databricks_mixed.jsonl")

    assert len(samples) == 4
    plain, messages, split, arbitrary = samples
    assert plain.request_id == "q-1"
    assert plain.request.query == "Sparkで reduceByKey と groupByKey の違いは何ですか?"
    assert plain.guidelines == {"言語": ["回答は日本語であること"]}
    assert plain.retrieved_context is not None
    assert plain.retrieved_context[0].doc_uri == "docs/spark.md"

    assert messages.request_id == "7"
    assert messages.request.query == "How can you minimize data shuffling in Spark?"
    assert messages.response == "Use broadcast joins."

    assert split.request.query == "Explain broadcast variables."
    assert [m.role for m in split.request.history] == ["user", "assistant"]

    assert isinstance(arbitrary.request.original, dict)
    assert "last_user_request" in arbitrary.request.original
    assert arbitrary.expected_retrieved_context is not None
    assert arbitrary.expected_retrieved_context[0].doc_uri == "docs/shuffle.md"


def test_unknown_fields_merge_into_metadata() -> None:
    samples = load_samples(FIXTURES / "databricks_mixed.jsonl")

    assert samples[1].metadata == {"subset": "spark", "source": "handbook"}
    assert samples[0].metadata == {}


def test_explicit_metadata_wins_over_a_column_of_the_same_name() -> None:
    rows = [{"request": "q", "subset": "column", "metadata": {"subset": "explicit", "k": 1}}]

    (sample,) = load_samples(rows)

    assert sample.metadata == {"subset": "explicit", "k": 1}


def test_json_array() -> None:
    samples = load_samples(FIXTURES / "evalset_array.json")

    assert [s.request_id for s in samples] == ["a1", "a2"]
    assert samples[0].references == ["検索拡張生成のことです。"]
    assert samples[1].expected_facts == ["open source", "ML lifecycle"]


def test_json_object_with_data_list() -> None:
    samples = load_samples(FIXTURES / "evalset_object.json")

    assert [s.request.query for s in samples] == ["What is a vector index?", "What is BM25?"]
    assert samples[1].metadata == {"difficulty": "easy"}


def test_json_object_without_a_row_list_is_rejected(tmp_path: Path) -> None:
    path = tmp_path / "set.json"
    path.write_text(json.dumps({"items": [{"request": "q"}]}), encoding="utf-8")

    error = load_error(path)

    assert len(error.problems) == 1
    assert error.problems[0].row == 0
    assert "'data'" in error.problems[0].reason


def test_json_file_holding_json_lines_is_read_line_by_line(tmp_path: Path) -> None:
    path = tmp_path / "set.json"
    path.write_text('{"request": "a"}\n{"request": "b"}\n', encoding="utf-8")

    assert [s.request.query for s in load_samples(path)] == ["a", "b"]


def test_jsonl_keeps_unicode_line_separators_inside_strings(tmp_path: Path) -> None:
    path = tmp_path / "set.jsonl"
    rows = [{"request": "一行目\u2028二行目"}, {"request": "next"}]
    path.write_bytes("\r\n".join(json.dumps(r, ensure_ascii=False) for r in rows).encode("utf-8"))

    samples = load_samples(path)

    assert [s.request.query for s in samples] == ["一行目\u2028二行目", "next"]


def test_csv_with_json_cells() -> None:
    samples = load_samples(FIXTURES / "evalset.csv")

    assert [s.request_id for s in samples] == ["c1", "c2", "c3"]
    c1, c2, c3 = samples
    assert c1.request.query == "東京の人口は?"
    assert c1.guidelines == ["回答は日本語であること"]
    assert c1.retrieved_context is not None
    assert c1.retrieved_context[0].doc_uri == "wiki/tokyo"
    assert c1.retrieved_context[0].content == "東京都の人口は約1400万人。"
    assert c1.metadata == {"annotator": "a", "subset": "geo"}
    assert c1.expected_facts is None

    assert c2.request.query == "Capital of France?"
    assert c2.expected_response == ["Paris", "It is Paris"]
    assert c2.metadata == {}

    # A string request that merely starts with "[" stays a string; "NA" is not missing.
    assert c3.request.query == "[draft] What is NA?"
    assert c3.response == "NA"
    assert c3.expected_facts == ["fact one", "fact two"]


def test_csv_problem_rows_count_data_rows_after_the_header(tmp_path: Path) -> None:
    path = tmp_path / "set.csv"
    path.write_text("request,response\nq1,a1\n,a2\n", encoding="utf-8")

    error = load_error(path)

    assert [(p.row, p.field, p.reason) for p in error.problems] == [
        (2, "request", "field required")
    ]


def test_parquet_with_lists_and_missing_cells(tmp_path: Path) -> None:
    frame = pd.DataFrame(
        {
            "request_id": ["p1", "p2"],
            "request": ["質問その一", "Question two"],
            "expected_facts": [["事実A", "事実B"], None],
            "expected_response": [None, "answer two"],
            "retrieved_context": [
                [{"doc_uri": "d1", "content": "c1"}, {"doc_uri": "d2", "content": "c2"}],
                None,
            ],
            "score": [0.5, np.nan],
        }
    )
    path = tmp_path / "set.parquet"
    frame.to_parquet(path)

    first, second = load_samples(path)

    assert first.expected_facts == ["事実A", "事実B"]
    assert first.expected_response is None
    assert first.retrieved_context is not None
    assert [c.doc_uri for c in first.retrieved_context] == ["d1", "d2"]
    assert first.metadata == {"score": 0.5}
    assert second.expected_facts is None
    assert second.expected_response == "answer two"
    assert second.metadata == {}


def test_dataframe_with_python_objects_and_json_strings() -> None:
    frame = pd.DataFrame(
        {
            "request": [
                "What is RAG?",
                {"messages": [{"role": "user", "content": "How to shard?"}]},
                '{"query": "Why?", "history": []}',
            ],
            "guidelines": [["Must be short"], np.nan, '{"tone": ["polite"]}'],
            "request_id": [1, 2, 3],
        }
    )

    samples = load_samples(frame)

    assert [s.request_id for s in samples] == ["1", "2", "3"]
    assert samples[0].guidelines == ["Must be short"]
    assert samples[1].request.query == "How to shard?"
    assert samples[1].guidelines is None
    assert samples[2].request.query == "Why?"
    assert samples[2].guidelines == {"tone": ["polite"]}


def test_dataframe_problems_name_the_dataframe_and_position() -> None:
    frame = pd.DataFrame({"request": ["ok", None], "response": ["a", "b"]})

    error = load_error(frame)

    assert str(error) == "<dataframe>, row 2, field 'request': field required"


def test_list_of_dicts() -> None:
    samples = load_samples(
        [
            {"request": "一つ目", "expected_facts": ["a"]},
            {"request": "二つ目", "response": "答え", "rubric": [{"criterion": "c", "points": 2}]},
        ]
    )

    assert [s.request.query for s in samples] == ["一つ目", "二つ目"]
    assert samples[1].rubric is not None
    assert samples[1].rubric[0].points == 2


def test_unsupported_extension_and_missing_file(tmp_path: Path) -> None:
    text_file = tmp_path / "set.txt"
    text_file.write_text("request\n", encoding="utf-8")

    with pytest.raises(ValueError, match="unsupported file type"):
        load_samples(text_file)
    with pytest.raises(FileNotFoundError):
        load_samples(tmp_path / "absent.jsonl")


def test_empty_set_is_an_error(tmp_path: Path) -> None:
    path = tmp_path / "empty.jsonl"
    path.write_text("\n\n", encoding="utf-8")

    error = load_error(path)

    assert "no rows" in str(error)


LFS_POINTER = (
    "version https://git-lfs.github.com/spec/v1\n"
    "oid sha256:4d7a214614ab2935c943f9e0ff69d22eadbb8f32b1258daaa5e2ca24d17e2393\n"
    "size 12345\n"
)


@pytest.mark.parametrize("name", ["set.jsonl", "set.json", "set.csv", "set.parquet"])
def test_a_git_lfs_pointer_in_place_of_the_set_says_to_pull_it(tmp_path: Path, name: str) -> None:
    path = tmp_path / name
    path.write_text(LFS_POINTER, encoding="utf-8")
    error = load_error(path)
    assert [(p.row, p.reason) for p in error.problems] == [
        (0, "is a Git LFS pointer, not the data: run `git lfs pull`")
    ]
    assert str(path) in str(error) and "JSON" not in str(error)


def test_a_git_lfs_pointer_in_a_folder_of_parquet_files_is_named(tmp_path: Path) -> None:
    pd.DataFrame({"request": ["q"], "response": ["a"]}).to_parquet(tmp_path / "a.parquet")
    (tmp_path / "b.parquet").write_text(LFS_POINTER, encoding="utf-8")
    error = load_error(tmp_path)
    assert f"{tmp_path / 'b.parquet'}: is a Git LFS pointer" in str(error)


def test_the_command_line_names_a_git_lfs_pointer_and_exits_2(tmp_path: Path) -> None:
    path = tmp_path / "set.jsonl"
    path.write_text(LFS_POINTER, encoding="utf-8")
    config = tmp_path / "eval.yaml"
    config.write_text(f"data: {path}\nmetrics: [exact_match]\n", encoding="utf-8")
    result = CliRunner().invoke(app, ["run", str(config), "--dry-run"])
    assert result.exit_code == 2, result.output
    assert "is a Git LFS pointer, not the data: run `git lfs pull`" in result.output
    assert "not valid JSON" not in result.output


# --------------------------------------------------------------------------- peers' formats


def test_ragas_current_columns() -> None:
    single, multi = load_samples(FIXTURES / "ragas.jsonl")

    assert single.request.query == "When was the first super bowl?"
    assert single.response == "The first superbowl was held on Jan 15, 1967."
    assert single.expected_response == "The first superbowl was held on January 15, 1967."
    assert single.retrieved_context is not None
    assert [c.doc_uri for c in single.retrieved_context] == [
        "retrieved_contexts[0]",
        "retrieved_contexts[1]",
    ]
    assert single.retrieved_context[1].content == "It was held in Los Angeles."
    assert single.expected_retrieved_context is not None
    assert single.expected_retrieved_context[0].doc_uri == "reference_contexts[0]"

    assert multi.request.query == "世界で何番目?"
    assert [m.role for m in multi.request.history] == ["user", "assistant"]
    assert multi.metadata == {"rubrics": {"score1_description": "wrong"}}


def test_ragas_csv_written_by_pandas(tmp_path: Path) -> None:
    frame = pd.DataFrame(
        {
            "user_input": ["q"],
            "retrieved_contexts": [["first 'quoted' chunk", "二つ目"]],
            "reference": ["ref"],
        }
    )
    path = tmp_path / "ragas.csv"
    frame.to_csv(path, index=False)  # lists land in the CSV as Python literals

    (sample,) = load_samples(path)

    assert sample.retrieved_context is not None
    assert [c.content for c in sample.retrieved_context] == ["first 'quoted' chunk", "二つ目"]
    assert sample.expected_response == "ref"


def test_ragas_legacy_columns() -> None:
    single, multiple = load_samples(FIXTURES / "ragas_legacy.json")

    assert single.request.query == "Who wrote Hamlet?"
    assert single.response == "Shakespeare."
    assert single.expected_response == "William Shakespeare"
    assert single.retrieved_context is not None
    assert single.retrieved_context[0].doc_uri == "contexts[0]"
    assert multiple.references == ["100 °C", "212 °F"]
    assert multiple.retrieved_context == []


def test_openai_evals_ideal_string_and_list() -> None:
    chat, plain = load_samples(FIXTURES / "openai_evals.jsonl")

    assert chat.request.query == "2 + 2 = ?"
    assert [m.role for m in chat.request.messages] == ["system", "user"]
    assert chat.expected_response == "4"
    assert plain.request.query == "日本の首都は?"
    assert plain.references == ["東京", "Tokyo"]


def test_peer_format_problems_name_the_source_column() -> None:
    error = load_error(
        [
            {"input": [{"role": "robot", "content": "hi"}], "ideal": "x"},
            {"ideal": "no input"},
        ]
    )

    assert [(p.row, p.field) for p in error.problems] == [(1, "input[0].role"), (2, "input")]


def test_healthbench_real_file() -> None:
    healthbench = shared_data("healthbench", "healthbench_30.jsonl")
    samples = load_samples(healthbench)

    assert len(samples) == 30
    rubric_items = [item for s in samples for item in s.rubric or []]
    assert len(rubric_items) == 352
    assert sum(1 for item in rubric_items if item.points < 0) == 102
    assert all(s.expected_response is None for s in samples)

    first_line = json.loads(healthbench.read_text(encoding="utf-8").splitlines()[0])
    first = samples[0]
    assert first.request_id == first_line["prompt_id"]
    assert first.request.query == first_line["prompt"][-1]["content"]
    assert first.metadata["example_tags"] == first_line["example_tags"]
    assert first.metadata["canary"] == first_line["canary"]
    assert "ideal_completion" not in first.metadata  # its ideal_completions_data is null

    with_ideal = [s for s in samples if "ideal_completion" in s.metadata]
    assert len(with_ideal) == 24
    assert all(isinstance(s.metadata["ideal_completion"], str) for s in with_ideal)
    assert all("ideal_completions_group" in s.metadata for s in with_ideal)


def test_format_argument_overrides_detection() -> None:
    rows = [{"question": "q", "answer": "a", "request": "r"}]

    (detected,) = load_samples(rows)
    (forced,) = load_samples(rows, format="ragas-legacy")

    assert detected.request.query == "r"
    assert detected.metadata == {"question": "q", "answer": "a"}
    assert forced.request.query == "q"
    assert forced.response == "a"
    assert forced.metadata == {"request": "r"}


def test_unknown_format_name() -> None:
    with pytest.raises(ValueError, match=r"unknown evaluation-set format.*mtrag_un.*langsmith"):
        load_samples([{"request": "q"}], format="braintrust")


def test_benchmark_format_names_use_the_benchmark_loader(tmp_path: Path) -> None:
    line = {
        "conversation_id": "c1",
        "task_id": "c1<::>1",
        "input": [{"speaker": "user", "text": "申請はどこで?"}],
        "targets": [{"speaker": "agent", "text": "市役所です。"}],
    }
    path = tmp_path / "reference.jsonl"
    path.write_text(json.dumps(line, ensure_ascii=False) + "\n", encoding="utf-8")

    (sample,) = load_samples(path, format="MTRAG-UN")

    assert sample.request_id == "c1<::>1"
    assert sample.metadata["conversation_id"] == "c1"
    with pytest.raises(ValueError, match="pass its path"):
        load_samples([line], format="mtrag_un")


@pytest.mark.parametrize(
    ("columns", "expected"),
    [
        (["request", "response", "user_input"], "databricks"),
        (["user_input", "response", "retrieved_contexts"], "ragas"),
        (["question", "answer", "contexts", "ground_truth"], "ragas_legacy"),
        (["input", "ideal"], "openai_evals"),
        (["prompt", "prompt_id", "rubrics", "example_tags"], "healthbench"),
        (["something", "else"], "databricks"),
    ],
)
def test_detect_format(columns: list[str], expected: str) -> None:
    assert detect_format(columns) == expected


# --------------------------------------------------------------------------- schema rules


def test_bad_rows_are_all_reported_with_row_and_field() -> None:
    error = load_error(FIXTURES / "bad_rows.jsonl")
    rows = by_row(error)

    assert sorted(rows) == [2, 4, 5, 6]
    assert [p.field for p in rows[2]] == ["expected_facts/expected_response"]
    assert "both given" in rows[2][0].reason
    assert [(p.field, p.reason) for p in rows[4]] == [("request", "field required")]
    assert rows[5][0].field == "<row>"
    assert rows[5][0].reason.startswith("invalid JSON")
    assert [(p.field, p.reason) for p in rows[6]] == [
        ("retrieved_context[1].doc_uri", "field required")
    ]
    lines = str(error).splitlines()
    assert len(lines) == 4
    assert lines[1] == "{}, row 4, field 'request': field required".format(
        FIXTURES / "bad_rows.jsonl"
    )


def test_rule_violations_in_one_file_are_reported_together(tmp_path: Path) -> None:
    path = tmp_path / "evalset.jsonl"
    rows = [
        {"request": "fine"},
        {"request": "q", "expected_facts": ["f"], "expected_response": "r"},
        {"response": "no request"},
    ]
    path.write_text("\n".join(json.dumps(r) for r in rows), encoding="utf-8")

    error = load_error(path)

    assert [(p.row, p.field) for p in error.problems] == [
        (2, "expected_facts/expected_response"),
        (3, "request"),
    ]
    assert all(p.source == str(path) for p in error.problems)


def test_union_fields_report_the_matching_shape() -> None:
    error = load_error(
        [
            {"request": "q", "guidelines": ["ok", 3]},
            {"request": "q", "guidelines": {"style": ["ok", 4]}},
            {"request": "q", "expected_response": 5},
            {"request": "q", "expected_response": []},
        ]
    )

    assert [(p.row, p.field) for p in error.problems] == [
        (1, "guidelines[1]"),
        (2, "guidelines.style[1]"),
        (3, "expected_response"),
        (4, "expected_response"),
    ]
    assert "string or a non-empty list of strings" in error.problems[2].reason
    assert error.problems[3].reason == "expected_response is an empty list"


def test_bad_message_inside_a_request_is_located() -> None:
    request = {"messages": [{"role": "user", "content": "hi"}, {"role": "bot", "content": "x"}]}

    error = load_error([{"request": request}])

    assert [p.field for p in error.problems] == ["request.messages[1].role"]
    assert "'bot'" in error.problems[0].reason


def test_empty_string_request() -> None:
    error = load_error([{"request": "  "}])

    assert [(p.field, p.reason) for p in error.problems] == [
        ("request", "request is an empty string")
    ]


def test_duplicate_request_id_names_both_rows() -> None:
    error = load_error(FIXTURES / "duplicate_ids.jsonl")

    (problem,) = error.problems
    assert (problem.row, problem.field) == (3, "request_id")
    assert "row 1" in problem.reason
    assert "row 3" in problem.reason
    assert "'same'" in problem.reason


def test_duplicate_request_id_across_types_is_detected() -> None:
    error = load_error([{"request_id": 5, "request": "a"}, {"request_id": "5", "request": "b"}])

    assert [(p.row, p.field) for p in error.problems] == [(2, "request_id")]


def test_derived_request_ids_are_stable_and_unique(tmp_path: Path) -> None:
    rows = [
        {"request": "同じ質問"},
        {"request": "another"},
        {"request": "同じ質問"},
        {"request": "同じ質問"},
    ]
    path = tmp_path / "set.jsonl"
    path.write_text("\n".join(json.dumps(r, ensure_ascii=False) for r in rows), encoding="utf-8")

    first_load = [s.request_id for s in load_samples(path)]
    second_load = [s.request_id for s in load_samples(path)]

    assert first_load == second_load
    base = first_load[0]
    assert len(base) == 12
    assert all(c in "0123456789abcdef" for c in base)
    assert first_load[2:] == [f"{base}-2", f"{base}-3"]
    assert first_load[1] != base
    assert [s.request_id for s in load_samples(rows)] == first_load


def test_derived_id_skips_ids_given_explicitly() -> None:
    (derived_alone,) = load_samples([{"request": "q"}])
    rows = [{"request": "q"}, {"request_id": derived_alone.request_id, "request": "other"}]

    samples = load_samples(rows)

    assert samples[1].request_id == derived_alone.request_id
    assert samples[0].request_id == f"{derived_alone.request_id}-2"


# --------------------------------------------------------------------------- bad files

JAPANESE_ROWS = [
    {"request": "主キーとは何ですか?", "response": "行を一意に識別する列です。"},
    {"request": "索引の利点は?", "response": "検索が速くなります。"},
]


def _jsonl_text(rows: list[dict[str, Any]]) -> str:
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows)


def _csv_text(rows: list[dict[str, Any]]) -> str:
    return "request,response\n" + "".join(f"{r['request']},{r['response']}\n" for r in rows)


@pytest.mark.parametrize(
    "encoding", ["utf-8", "utf-8-sig", "utf-16", "utf-16-le-bom", "utf-16-be-bom"]
)
@pytest.mark.parametrize("suffix", [".jsonl", ".csv", ".json"])
def test_utf8_and_marked_utf16_files_are_read(tmp_path: Path, encoding: str, suffix: str) -> None:
    if suffix == ".csv":
        text = _csv_text(JAPANESE_ROWS)
    elif suffix == ".json":
        text = json.dumps(JAPANESE_ROWS, ensure_ascii=False)
    else:
        text = _jsonl_text(JAPANESE_ROWS)
    path = tmp_path / f"set{suffix}"
    if encoding.endswith("-bom"):
        codec = encoding.removesuffix("-bom")
        path.write_bytes("\ufeff".encode(codec) + text.encode(codec))
    else:
        path.write_bytes(text.encode(encoding))

    samples = load_samples(path)

    assert [s.request.query for s in samples] == [r["request"] for r in JAPANESE_ROWS]
    assert [s.response for s in samples] == [r["response"] for r in JAPANESE_ROWS]


@pytest.mark.parametrize("suffix", [".jsonl", ".csv", ".json"])
def test_shift_jis_file_is_refused_with_a_conversion_hint(tmp_path: Path, suffix: str) -> None:
    path = tmp_path / f"set{suffix}"
    path.write_bytes(_jsonl_text(JAPANESE_ROWS).encode("shift_jis"))

    error = load_error(path)

    message = str(error)
    assert message.startswith(f"{path}: is not UTF-8 text")
    assert "line 1, column 14" in message and "looks like Shift_JIS" in message
    assert f"iconv -f SHIFT_JIS -t UTF-8 set{suffix}" in message


def test_invalid_utf8_names_line_column_and_byte(tmp_path: Path) -> None:
    path = tmp_path / "set.jsonl"
    path.write_bytes(b'{"request": "q1"}\n{"request": "caf\xe9"}\n')

    error = load_error(path)

    assert [(p.row, p.field) for p in error.problems] == [(0, "<file>")]
    assert "byte 0xe9 at line 2, column 17 (byte offset 34)" in str(error)
    assert "iconv -f ITS_ENCODING -t UTF-8 set.jsonl" in str(error)


def test_utf16_without_mark_utf32_and_nul_bytes_are_refused(tmp_path: Path) -> None:
    no_mark = tmp_path / "no_mark.jsonl"
    no_mark.write_bytes(_jsonl_text(JAPANESE_ROWS).encode("utf-16-le"))
    utf32 = tmp_path / "utf32.csv"
    utf32.write_bytes(_csv_text(JAPANESE_ROWS).encode("utf-32"))
    nul = tmp_path / "nul.csv"
    nul.write_bytes(b"request,response\nq\x00,a\n")

    assert "holds a NUL character at line 1, column 2" in str(load_error(no_mark))
    assert "is UTF-32 text" in str(load_error(utf32))
    assert "holds a NUL character at line 2, column 2" in str(load_error(nul))


def test_deep_nesting_is_a_row_problem_not_a_crash(tmp_path: Path) -> None:
    path = tmp_path / "set.jsonl"
    deep = "[" * 100_000 + "]" * 100_000
    path.write_text(
        f'{{"request": "q1", "metadata": {{"x": {"[" * 150}{"]" * 150}}}}}\n'
        f'{{"request": {deep}}}\n{{"request": "q3"}}\n',
        encoding="utf-8",
    )
    nested: list[Any] = []
    for _ in range(5000):
        nested = [nested]

    rows = by_row(load_error(path))
    in_memory = load_error([{"request": "q", "trace": nested}])

    assert [p.field for p in rows[1]] == ["metadata"]
    assert "nested more than 100 levels deep" in rows[1][0].reason
    assert rows[2][0].reason == "invalid JSON: arrays or objects are nested too deeply to read"
    assert 3 not in rows
    assert [(p.row, p.field) for p in in_memory.problems] == [(1, "trace")]


def test_deep_json_document_is_a_file_problem(tmp_path: Path) -> None:
    path = tmp_path / "set.json"
    path.write_text("[" * 50_000 + "]" * 50_000, encoding="utf-8")

    assert "nested too deeply" in str(load_error(path))


def test_lone_surrogate_is_refused_naming_the_field(tmp_path: Path) -> None:
    path = tmp_path / "set.jsonl"
    path.write_text(
        '{"request": "q\\ud800"}\n'
        '{"request": "q", "metadata": {"tags": ["a", "\\udfff"]}}\n'
        '{"request": "q", "\\ud83d": 1}\n'
        '{"request": "絵文字 \\ud83d\\ude00 は対になっていれば文字です"}\n',
        encoding="utf-8",
    )

    rows = by_row(load_error(path))

    assert [(n, rows[n][0].field) for n in sorted(rows)] == [
        (1, "request"),
        (2, "metadata.tags[1]"),
        (3, "<row>"),
    ]
    assert "lone surrogate '\\ud800'" in rows[1][0].reason
    assert rows[3][0].reason.startswith("a field name holds the lone surrogate '\\ud83d'")


def test_nan_is_not_json(tmp_path: Path) -> None:
    path = tmp_path / "set.jsonl"
    path.write_text('{"request": "q", "metadata": {"human": NaN}}\n', encoding="utf-8")

    error = load_error(path)

    assert [(p.row, p.field) for p in error.problems] == [(1, "<row>")]
    assert "NaN is not a JSON value (write null for a missing value)" in str(error)


def test_corrupt_or_fake_parquet_is_a_file_problem(tmp_path: Path) -> None:
    good = tmp_path / "good.parquet"
    pd.DataFrame({"request": ["q1", "q2"]}).to_parquet(good)
    truncated = tmp_path / "truncated.parquet"
    truncated.write_bytes(good.read_bytes()[:-20])
    fake = tmp_path / "fake.parquet"
    fake.write_text("request\nq1\n", encoding="utf-8")

    for path in (truncated, fake):
        error = load_error(path)
        assert str(error).startswith(f"{path}: is not a readable Parquet file")


def test_unsupported_file_and_folder_are_dataset_errors(tmp_path: Path) -> None:
    (tmp_path / "set.xlsx").write_bytes(b"PK\x03\x04")
    (tmp_path / "set").write_text("request\nq\n", encoding="utf-8")
    (tmp_path / "folder.jsonl").mkdir()

    assert "unsupported file type '.xlsx'" in str(load_error(tmp_path / "set.xlsx"))
    assert "unsupported file type '(no extension)'" in str(load_error(tmp_path / "set"))
    assert "is a folder" in str(load_error(tmp_path / "folder.jsonl"))


@pytest.mark.parametrize(
    ("text", "row", "field", "says"),
    [
        # the tester's file: four rows that loaded as one
        (
            'request,response\n"q1,r1\nq2,r2\nq3,r3\nq4,r4\n',
            1,
            "request",
            "opened on line 2 is never",
        ),
        ('request,response\nq1,r1\nq2,"r2\nq3,r3\n', 2, "response", "opened on line 3 is never"),
        ('request,response\n"q1,r1\nq2,r2\nq3,"r3"\n', 1, "request", "closes on line 4 with text"),
        ('request,response\n"q1,r1\nq2,r2\nq3,"\n', 1, "request", "runs from line 2 to line 4"),
        ('"request,response\nq1,r1\n', 0, "<file>", "the header: the quote opened on line 1"),
    ],
)
def test_csv_with_a_broken_quote_is_refused(
    tmp_path: Path, text: str, row: int, field: str, says: str
) -> None:
    path = tmp_path / "set.csv"
    path.write_text(text, encoding="utf-8")

    error = load_error(path)

    assert [(p.row, p.field) for p in error.problems] == [(row, field)]
    assert says in error.problems[0].reason


def test_csv_multiline_cells_and_inner_quotes_still_load(tmp_path: Path) -> None:
    path = tmp_path / "set.csv"
    path.write_text(
        'request,response\n"two\nlines","say ""hi"""\n27" screen?,"a,b"\n', encoding="utf-8"
    )

    samples = load_samples(path)

    assert [(s.request.query, s.response) for s in samples] == [
        ("two\nlines", 'say "hi"'),
        ('27" screen?', "a,b"),
    ]


def test_csv_cells_longer_than_the_csv_modules_limit_load(tmp_path: Path) -> None:
    path = tmp_path / "set.csv"
    path.write_text("request,response\nq," + "x" * 300_000 + "\n", encoding="utf-8")
    limit = csv.field_size_limit()

    samples = load_samples(path)

    assert samples[0].response == "x" * 300_000
    assert csv.field_size_limit() == limit


# --------------------------------------------------------------------------- field size

DEFAULT_FIELD_CAP = 10_000_000
"""The documented default of ``max_field_bytes``."""


# big-field: a data field of any size was read, at about 20 times its size in memory
def test_a_field_longer_than_the_default_cap_is_refused_naming_file_row_and_field(
    tmp_path: Path,
) -> None:
    field = "word " * (DEFAULT_FIELD_CAP // 5 + 1)
    path = tmp_path / "set.jsonl"
    rows = [{"request": "q", "response": "short"}, {"request": "q", "response": field}]
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n", encoding="utf-8")
    del field, rows

    tracemalloc.start()
    try:
        with pytest.raises(DatasetError) as caught:
            load_samples(path)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()

    (problem,) = caught.value.problems
    assert (problem.source, problem.row, problem.field) == (str(path), 2, "response")
    assert "max_field_bytes" in problem.reason
    # read a line at a time: the long line as text and its parsed field, not the file
    # as bytes, as text and as lines besides
    assert peak < 2.5 * DEFAULT_FIELD_CAP


def test_the_cap_counts_all_the_text_of_a_field_in_utf8(tmp_path: Path) -> None:
    # 76 bytes each: doc_uri, d0, content (the keys count) and 30 two-byte characters
    contexts = [{"doc_uri": f"d{i}", "content": "é" * 30} for i in range(3)]
    rows = [{"request": "q", "retrieved_context": contexts, "metadata": {"a": "x" * 150}}]

    with pytest.raises(DatasetError) as caught:
        load_samples(rows, max_field_bytes=150)

    (problem,) = caught.value.problems
    assert problem.field == "retrieved_context" and "more than 150 bytes" in problem.reason
    assert load_samples(rows, max_field_bytes=250)[0].metadata == {"a": "x" * 150}


@pytest.mark.parametrize("suffix", [".jsonl", ".json", ".csv"])
def test_every_text_format_applies_the_cap(tmp_path: Path, suffix: str) -> None:
    frame = pd.DataFrame([{"request": "q", "response": "r" * 101}])
    path = tmp_path / f"set{suffix}"
    if suffix == ".csv":
        frame.to_csv(path, index=False)
    else:
        frame.to_json(path, orient="records", lines=suffix == ".jsonl")

    with pytest.raises(DatasetError, match=r"row 1, field 'response': holds more than 100"):
        read_evaluation_set(path, max_field_bytes=100)
    assert read_evaluation_set(path, max_field_bytes=101).samples[0].response == "r" * 101


# big-field: a data field of any size was read, at about 20 times its size in memory
def test_the_setting_reaches_the_loader_from_the_config(tmp_path: Path) -> None:
    (tmp_path / "set.jsonl").write_text(
        json.dumps({"request": "q", "response": "r" * 300}) + "\n", encoding="utf-8"
    )
    config = tmp_path / "eval.yaml"
    config.write_text("data: set.jsonl\nmetrics: [exact_match]\nmax_field_bytes: 200\n")

    result = CliRunner().invoke(app, ["run", str(config), "--no-progress"])

    assert result.exit_code == 2, result.output
    assert "set.jsonl, row 1, field 'response': holds more than 200 bytes" in result.output
    assert "Traceback" not in result.output
