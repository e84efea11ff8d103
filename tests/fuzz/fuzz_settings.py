"""Fuzz cases whose config, store or export path is wrong."""

from __future__ import annotations

import sqlite3

from fuzz_case import FOLDER, JAPANESE, Case, config_case, eval_yaml, jsonl, nested
from fuzz_case import GOOD_ROW as G

CONFIG = "data: set.jsonl\nmetrics: [exact_match]\n"
JA_CONFIG = f"name: {JAPANESE}\n{CONFIG}"
CONFIG_CASES = [
    config_case(
        "yaml_invalid_utf8",
        CONFIG.encode() + b"name: caf\xe9\n",
        "eval.yaml",
        "line 3",
        "not UTF-8",
    ),
    config_case(
        "yaml_shift_jis",
        JA_CONFIG.encode("shift_jis"),
        "eval.yaml",
        "line 1",
        "iconv -f SHIFT_JIS -t UTF-8",
    ),
    config_case("yaml_utf16_without_mark", JA_CONFIG.encode("utf-16-le"), "eval.yaml", "NUL"),
    config_case(
        "yaml_utf16_mark_unknown_key",
        (CONFIG + "trails: 2\n").encode("utf-16"),
        "eval.yaml",
        "trails",
        "did you mean 'trials'",
    ),
    config_case(
        "yaml_duplicate_key",
        CONFIG + "data: other.jsonl\n",
        "eval.yaml",
        "line 3",
        "'data' is given twice",
    ),
    config_case(
        "yaml_duplicate_nested_key",
        CONFIG + "judge:\n  model: a\n  model: b\n",
        "eval.yaml",
        "line 5",
        "'model' is given twice",
    ),
    config_case(
        "yaml_duplicate_metric_option",
        "data: set.jsonl\nmetrics:\n  - {metric: exact_match, normalize: true, normalize: false}\n",
        "eval.yaml",
        "line 3",
        "'normalize' is given twice",
    ),
    config_case("yaml_is_a_list", "- data: set.jsonl\n", "eval.yaml", "mapping"),
    config_case("yaml_is_a_string", "just some text\n", "eval.yaml", "mapping"),
    config_case("yaml_empty", "", "eval.yaml", "mapping"),
    config_case(
        "yaml_bad_indent", CONFIG + "  bad: indent\n", "eval.yaml", "line 3", "not valid YAML"
    ),
    config_case(
        "yaml_tab_indent",
        "data: set.jsonl\nmetrics:\n\t- exact_match\n",
        "eval.yaml",
        "line 3",
        "not valid YAML",
    ),
    config_case(
        "yaml_unclosed_bracket",
        "data: set.jsonl\nmetrics: [exact_match\n",
        "eval.yaml",
        "not valid YAML",
    ),
    config_case("yaml_deep", "metrics: " + nested(5000) + "\n", "eval.yaml", "nested too deeply"),
    config_case(
        "yaml_lone_surrogate", CONFIG + 'name: "x\\ud800"\n', "eval.yaml", "name", "lone surrogate"
    ),
    config_case(
        "unknown_key",
        "data: set.jsonl\nmetric: [exact_match]\n",
        "eval.yaml",
        "metric:",
        "did you mean 'metrics'",
    ),
    config_case("base_dir_key", CONFIG + "base_dir: /\n", "eval.yaml", "base_dir"),
    config_case("trials_negative", CONFIG + "trials: -1\n", "eval.yaml", "trials"),
    config_case("trials_text", CONFIG + "trials: many\n", "eval.yaml", "trials"),
    config_case("concurrency_zero", CONFIG + "concurrency: 0\n", "eval.yaml", "concurrency"),
    config_case("limit_zero", CONFIG + "limit: 0\n", "eval.yaml", "limit"),
    config_case("by_a_list", CONFIG + "by: [a, b]\n", "eval.yaml", "by"),
    config_case("metrics_empty", "data: set.jsonl\nmetrics: []\n", "eval.yaml", "metrics"),
    config_case("metrics_missing", "data: set.jsonl\n", "eval.yaml", "metrics"),
    config_case(
        "metrics_a_string", "data: set.jsonl\nmetrics: exact_match\n", "eval.yaml", "metrics"
    ),
    config_case(
        "metric_unknown",
        "data: set.jsonl\nmetrics: [no_such_metric]\n",
        "metrics",
        "no_such_metric",
    ),
    config_case(
        "metric_bad_option",
        "data: set.jsonl\nmetrics: [{metric: exact_match, normalise: true}]\n",
        "metrics",
        "normalise",
    ),
    config_case(
        "metric_named_response",
        "data: set.jsonl\nmetrics: [{metric: exact_match, name: response}]\n",
        "metric 'response'",
        "reserved",
    ),
    config_case(
        "metric_named_request_id",
        "data: set.jsonl\nmetrics: [{metric: rouge_l, name: request_id}]\n",
        "metric 'request_id'",
        "reserved",
    ),
    config_case(
        "metric_named_metadata_x",
        "data: set.jsonl\nmetrics: [{metric: rouge_l, name: metadata.lang}]\n",
        "metric 'metadata.lang'",
        "reserved",
    ),
    config_case(
        "metric_named_like_an_error_column",
        "data: set.jsonl\nmetrics: [rouge_l, {metric: exact_match, name: rouge_l.error}]\n",
        "metric 'rouge_l.error'",
        "reserved",
    ),
    config_case(
        "metric_names_repeated",
        "data: set.jsonl\nmetrics: [rouge_l, rouge_l]\n",
        "repeated: rouge_l",
    ),
    config_case("format_unknown", CONFIG + "format: xml\n", "eval.yaml", "format", "'xml'"),
    config_case("format_a_number", CONFIG + "format: 3\n", "eval.yaml", "format"),
    Case(
        "format_mismatch",
        {
            "set.jsonl": jsonl({"question": "q", "answer": "a"}),
            "eval.yaml": eval_yaml(extra="format: ragas\n"),
        },
        ("set.jsonl", "row 1", "'user_input'", "field required"),
    ),
    config_case(
        "format_benchmark_on_other_file", CONFIG + "format: mtrag_un\n", "set.jsonl", "row 1"
    ),
    config_case(
        "env_var_unset",
        "data: ${RJ_FUZZ_UNSET}\nmetrics: [exact_match]\n",
        "eval.yaml",
        "RJ_FUZZ_UNSET",
    ),
    config_case("data_key_missing", "metrics: [exact_match]\n", "no evaluation set", "'data'"),
    config_case("target_unknown_kind", CONFIG + "target: {kind: grpc}\n", "target kind 'grpc'"),
    config_case(
        "target_stray_key", CONFIG + "target: {kind: data, timout: 3}\n", "eval.yaml", "timout"
    ),
    config_case(
        "target_module_missing",
        CONFIG + "target: no_such_module_xyz:answer\n",
        "no_such_module_xyz",
    ),
    config_case(
        "judge_temperature_text",
        CONFIG + "judge: {model: scripted, temperature: warm}\n",
        "eval.yaml",
        "judge.temperature",
    ),
    config_case(
        "knowledge_base_chunk_size_negative",
        CONFIG + "knowledge_base: {path: docs, chunk_size: -5}\n",
        "eval.yaml",
        "knowledge_base.chunk_size",
    ),
    config_case(
        "cli_trials_negative",
        CONFIG,
        "eval.yaml",
        "trials",
        args=("run", "eval.yaml", "--trials", "-1", "--no-progress"),
    ),
    config_case(
        "cli_limit_zero",
        CONFIG,
        "eval.yaml",
        "limit",
        args=("run", "eval.yaml", "--limit", "0", "--no-progress"),
    ),
    config_case(
        "config_missing", CONFIG, "absent.yaml", "no such file", args=("run", "absent.yaml")
    ),
    config_case(
        "resume_unknown_run", CONFIG, "nope", args=("run", "eval.yaml", "--resume", "nope")
    ),
]


def _other_programs_database() -> bytes:
    conn = sqlite3.connect(":memory:")
    conn.execute("CREATE TABLE responses (key TEXT, value TEXT)")
    data = conn.serialize()
    conn.close()
    return data


def _store_case(name: str, store: str, content: bytes | None, *expect: str) -> Case:
    files = {
        "set.jsonl": jsonl(G),
        store: content,
        "eval.yaml": eval_yaml(extra=f"store: {store}\n"),
    }
    return Case(name, files, expect)


NOTES = b"these are notes, not runs\n" * 40
STORE_CASES = [
    _store_case("store_is_a_folder", "runs", FOLDER, "runs is a folder"),
    _store_case("store_not_sqlite", "notes.txt", NOTES, "notes.txt: it is not a SQLite database"),
    _store_case(
        "store_other_database",
        "cache.db",
        _other_programs_database(),
        "cache.db",
        "another program's database (responses)",
    ),
    Case(
        "store_under_a_file",
        {
            "set.jsonl": jsonl(G),
            "results": b"",
            "eval.yaml": eval_yaml(extra="store: results/runs.db\n"),
        },
        ("results is a file, not a folder",),
    ),
    config_case(
        "cli_store_folder",
        CONFIG,
        "is a folder",
        args=("run", "eval.yaml", "--store", ".", "--no-progress"),
    ),
    Case(
        "runs_store_folder",
        {"runs.db": FOLDER},
        ("runs.db is a folder",),
        ("runs", "--store", "runs.db"),
    ),
    Case(
        "runs_store_not_sqlite",
        {"notes.txt": NOTES},
        ("notes.txt: it is not a SQLite database",),
        ("runs", "--store", "notes.txt"),
    ),
    Case(
        "show_store_not_sqlite",
        {"notes.txt": NOTES},
        ("notes.txt: it is not a SQLite database",),
        ("show", "r1", "--store", "notes.txt"),
    ),
    Case(
        "meta_store_other_database",
        {"cache.db": _other_programs_database()},
        ("cache.db", "another program's database (responses)"),
        ("meta", "r1", "--human", "h", "--store", "cache.db"),
    ),
    Case(
        "compare_store_b_not_sqlite",
        {"notes.txt": NOTES},
        ("notes.txt: it is not a SQLite database",),
        ("compare", "{run}", "{run}", "--store", ".ragjudge/runs.db", "--store-b", "notes.txt"),
        stored_run=True,
    ),
    Case(
        "export_store_not_sqlite",
        {"notes.txt": NOTES},
        ("notes.txt: it is not a SQLite database",),
        ("export", "r1", "--store", "notes.txt", "-o", "out.jsonl"),
    ),
]

_EXPORT = ("export", "{run}", "--store", ".ragjudge/runs.db")
EXPORT_CASES = [
    Case(
        "export_to_a_folder",
        {"out": FOLDER},
        ("cannot write out", "it is a folder"),
        (*_EXPORT, "-o", "out"),
        stored_run=True,
    ),
    Case(
        "export_csv_to_a_folder",
        {"out": FOLDER},
        ("cannot write out", "it is a folder"),
        (*_EXPORT, "--format", "csv", "-o", "out"),
        stored_run=True,
    ),
    Case(
        "export_under_a_file",
        {"file": b""},
        ("cannot write file/x.jsonl", "file is a file, not a folder"),
        (*_EXPORT, "-o", "file/x.jsonl"),
        stored_run=True,
    ),
    Case(
        "export_parquet_deep_under_a_file",
        {"file": b""},
        ("cannot write file/a/b/x.parquet", "file is a file"),
        (*_EXPORT, "--format", "parquet", "-o", "file/a/b/x.parquet"),
        stored_run=True,
    ),
    Case(
        "export_unknown_run",
        {},
        ("no run 'nope'",),
        ("export", "nope", "--store", ".ragjudge/runs.db", "-o", "x.jsonl"),
        stored_run=True,
    ),
    Case(
        "export_unknown_format",
        {},
        ("--format",),
        (*_EXPORT, "--format", "xlsx", "-o", "x.xlsx"),
        stored_run=True,
    ),
]
