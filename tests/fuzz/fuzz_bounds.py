"""Fuzz cases of inputs that are well formed but unbounded or dishonest: JSON that a
plain reader takes silently (a key given twice, 1e400, a 5,000-digit number), fields
beyond max_field_bytes, a columns mapping that names no column or loses to a guessed
layout, YAML aliases that stand for millions of values, settings that size what a run
allocates, and rubric points or spec choice scores that are not finite numbers."""

from __future__ import annotations

import itertools

from fuzz_case import GOOD_ROW as G
from fuzz_case import Case, config_case, data_case, eval_yaml, jsonl, row_case

HUGE_INT = "9" * 5000
CONFIG = "data: set.jsonl\nmetrics: [exact_match]\n"
SPEC = 'prompt: "Acceptable? {completion}"\nchoice_strings: NY\n'


def bomb(levels: int = 9) -> str:
    """YAML lines of nine aliases each to the line before: 9**levels values."""
    names = "abcdefghi"[:levels]
    lines = ["x_a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]"]
    lines += [f"x_{n}: &{n} [{', '.join([f'*{b}'] * 9)}]" for b, n in itertools.pairwise(names)]
    return "\n".join(lines) + "\n"


def classify_config(spec: str, extra: str = "") -> str:
    """A config scoring with the inline spec ``spec`` (a YAML flow mapping)."""
    return (
        f"data: set.jsonl\njudge: scripted\nmetrics: [{{metric: classify, spec: {spec}}}]\n{extra}"
    )


def spec_case(name: str, spec_file: str, *expect: str) -> Case:
    """A spec folder whose ``checks.yaml`` holds ``spec_file``; the metric uses ``tone``."""
    config = "data: set.jsonl\njudge: scripted\nspecs: [specs]\nmetrics: [{metric: classify, spec: tone}]\n"
    files = {
        "set.jsonl": jsonl(G),
        "specs/checks.yaml": spec_file.encode(),
        "eval.yaml": config.encode(),
    }
    return Case(name, files, ("checks.yaml", *expect))


def _indented(text: str) -> str:
    return "".join(f"  {line}\n" for line in text.splitlines())


_ID_ROWS = [
    {"myid": "a1", "qid": 7, "question": "q one", "answer": "x", "reference": "x"},
    {"myid": "a1", "qid": 8, "question": "q two", "answer": "y", "reference": "x"},
]

JSON_BOUND_CASES = [
    row_case(
        "json_key_twice",
        '{"request": "q", "response": "a", "response": "b"}',
        "'response'",
        "given twice",
    ),
    row_case(
        "json_key_twice_nested",
        '{"request": "q", "metadata": {"k": 1, "k": 2}}',
        "'metadata.k'",
        "given twice",
    ),
    row_case(
        "json_key_twice_in_a_list",
        '{"request": "q", "retrieved_context": [{"doc_uri": "d", "doc_uri": "e"}]}',
        "'retrieved_context[0].doc_uri'",
        "given twice",
    ),
    row_case(
        "json_number_1e400",
        '{"request": "q", "metadata": {"weight": 1e400}}',
        "'metadata.weight'",
        "infinite",
    ),
    row_case(
        "json_number_minus_1e999",
        '{"request": "q", "response": "a", "score": -1E+999}',
        "'score'",
        "infinite",
    ),
    row_case(
        "json_digits_400_float", '{"request": "q", "n": 1' + "0" * 400 + ".5}", "'n'", "infinite"
    ),
    row_case(
        "json_int_5000_digits",
        f'{{"request": "q", "metadata": {{"x": {HUGE_INT}}}}}',
        "'metadata.x'",
        "5,000 digits",
    ),
    row_case(
        "json_int_request_id_4301_digits",
        f'{{"request_id": -{"1" * 4301}, "request": "q"}}',
        "'request_id'",
        "4,301 digits",
    ),
    row_case(
        "rubric_points_inf",
        {"request": "q", "response": "a", "rubric": [{"criterion": "c", "points": "inf"}]},
        "'rubric[0].points'",
        "finite number",
    ),
    row_case(
        "rubric_points_nan_text",
        {"request": "q", "response": "a", "rubric": [{"criterion": "c", "points": "NaN"}]},
        "'rubric[0].points'",
        "finite number",
    ),
    row_case(
        "rubric_points_overflow",
        {
            "request": "q",
            "response": "a",
            "rubric": [{"criterion": "c", "points": 1e308}, {"criterion": "d", "points": 1e308}],
        },
        "'rubric'",
        "add up beyond",
    ),
    data_case(
        "json_document_key_twice",
        "set.json",
        b'[{"request": "q", "request": "r"}]',
        "set.json",
        "row 1",
        "'request'",
        "given twice",
    ),
    data_case(
        "json_document_int_5000_digits",
        "set.json",
        f'{{"rows": [{{"request": "q", "n": {HUGE_INT}}}]}}'.encode(),
        "set.json",
        "row 1",
        "'n'",
        "digits",
    ),
    data_case(
        "csv_json_cell_key_twice",
        "set.csv",
        b'request,metadata\nq,"{""lang"": ""en"", ""lang"": ""ja""}"\n',
        "set.csv",
        "row 1",
        "'metadata.lang'",
        "given twice",
    ),
    data_case(
        "csv_json_cell_1e400",
        "set.csv",
        b'request,metadata\nq,"{""w"": 1e400}"\n',
        "set.csv",
        "row 1",
        "'metadata.w'",
        "infinite",
    ),
    data_case(
        "csv_json_cell_int_5000_digits",
        "set.csv",
        f'request,metadata\nq,"{{""n"": {HUGE_INT}}}"\n'.encode(),
        "set.csv",
        "row 1",
        "'metadata.n'",
        "digits",
    ),
]

FIELD_CASES = [
    data_case(
        "field_over_the_default_cap",
        "set.jsonl",
        jsonl(G, {**G, "response": "x" * 10_000_001}),
        "set.jsonl",
        "row 2",
        "'response'",
        "more than 10,000,000 bytes",
        "max_field_bytes",
    ),
    data_case(
        "field_over_a_set_cap",
        "set.csv",
        b"request,response\nq," + b"r" * 101 + b"\n",
        "set.csv",
        "row 1",
        "'response'",
        "more than 100 bytes",
        extra="max_field_bytes: 100\n",
    ),
    data_case(
        "contexts_over_a_set_cap",
        "set.jsonl",
        jsonl(
            {
                **G,
                "retrieved_context": [{"doc_uri": f"d{i}", "content": "c" * 60} for i in range(20)],
            }
        ),
        "set.jsonl",
        "row 1",
        "'retrieved_context'",
        "max_field_bytes",
        extra="max_field_bytes: 1000\n",
    ),
    data_case(
        "field_cap_counts_utf8_bytes",
        "set.jsonl",
        jsonl({**G, "response": "日本語" * 20}),
        "set.jsonl",
        "row 1",
        "'response'",
        "more than 100 bytes",
        extra="max_field_bytes: 100\n",
    ),
    config_case(
        "max_field_bytes_zero", CONFIG + "max_field_bytes: 0\n", "eval.yaml", "max_field_bytes"
    ),
]

COLUMNS_CASES = [
    data_case(
        "columns_no_such_column",
        "set.jsonl",
        jsonl(G),
        "set.jsonl",
        "columns.response",
        "no column 'no_such_column'",
        "its columns: request, response, expected_response",
        extra="columns: {response: no_such_column}\n",
    ),
    data_case(
        "columns_no_such_key_in_a_json_column",
        "set.jsonl",
        jsonl({"payload": {"text": "q"}, "response": "a"}),
        "set.jsonl",
        "columns.request",
        "no column 'payload.q'",
        extra="columns: {request: payload.q}\n",
    ),
    data_case(
        "columns_request_id_over_a_guessed_id",
        "set.jsonl",
        jsonl(*_ID_ROWS),
        "set.jsonl",
        "row 2",
        "'myid'",
        "duplicate request_id 'a1'",
        extra="columns: {request_id: myid}\n",
    ),
    data_case(
        "columns_response_over_a_guessed_answer",
        "set.jsonl",
        jsonl({"question": "q", "answer": "guess", "mine": 5}),
        "set.jsonl",
        "row 1",
        "'mine'",
        extra="columns: {response: mine}\n",
    ),
]

YAML_CASES = [
    config_case(
        "yaml_alias_bomb",
        CONFIG + bomb() + "junk: *i\n",
        "eval.yaml",
        "line 8",
        "aliases",
        "beyond 100,000",
    ),
    config_case(
        "yaml_alias_bomb_in_a_metric_option",
        CONFIG.replace("[exact_match]", "[{metric: exact_match, x: *i}]").replace(
            "data", bomb() + "data", 1
        ),
        "eval.yaml",
        "aliases",
        "beyond 100,000",
    ),
    config_case(
        "yaml_alias_inside_its_value",
        CONFIG + "loop: &l [1, [2, *l]]\n",
        "eval.yaml",
        "line 3",
        "stands inside the value it names",
    ),
    config_case(
        "yaml_int_5000_digits",
        CONFIG + f"seed: {HUGE_INT}\n",
        "eval.yaml",
        "line 3",
        "5,000 digits",
    ),
    config_case(
        "yaml_infinite_timeout",
        CONFIG + "judge: {model: scripted, timeout: .inf}\n",
        "eval.yaml",
        "judge.timeout",
        "infinite",
    ),
]

SIZE_CASES = [
    config_case(
        "trials_a_billion",
        CONFIG + "trials: 1000000000\n",
        "eval.yaml",
        "trials",
        "less than or equal to 1000",
    ),
    config_case(
        "cli_trials_a_billion",
        CONFIG,
        "eval.yaml",
        "trials (given as --trials)",
        "less than or equal to 1000",
        args=("run", "eval.yaml", "--trials", "1000000000", "--no-progress"),
    ),
    config_case(
        "concurrency_a_million",
        CONFIG + "concurrency: 1000000\n",
        "eval.yaml",
        "concurrency",
        "less than or equal to 1000",
    ),
    config_case(
        "cli_concurrency_a_million",
        CONFIG,
        "eval.yaml",
        "concurrency (given as --concurrency)",
        args=("run", "eval.yaml", "--concurrency", "1000000", "--no-progress"),
    ),
    config_case(
        "processes_a_hundred_thousand",
        CONFIG + "processes: 100000\n",
        "eval.yaml",
        "processes",
        "less than or equal to 1024",
    ),
    config_case(
        "ray_workers_a_hundred_thousand",
        CONFIG + "executor: ray\nray: {workers: 100000}\n",
        "eval.yaml",
        "ray.workers",
        "less than or equal to 1024",
    ),
    Case(
        "trials_times_rows",
        {
            "set.jsonl": jsonl(*[{**G, "request": f"q{i}"} for i in range(1001)]),
            "eval.yaml": eval_yaml(extra="trials: 1000\n"),
        },
        ("trials: 1,000 trials of 1,001 rows", "at most 1,000,000"),
    ),
]

SPEC_CASES = [
    config_case(
        "spec_choice_score_nan",
        classify_config(
            "{prompt: 'Acceptable? {completion}', choice_strings: NY, choice_scores: {Y: .nan, N: 0}}"
        ),
        "choice_scores.Y",
        "not a finite number (nan)",
    ),
    config_case(
        "spec_choice_score_too_large",
        classify_config(
            "{prompt: 'Acceptable? {completion}', choice_strings: NY, choice_scores: {Y: 1"
            + "0" * 400
            + ", N: 0}}"
        ),
        "choice_scores.Y",
        "not a finite number (too large)",
    ),
    config_case(
        "spec_choices_from_strings_nan",
        classify_config(
            "{prompt: 'Acceptable? {completion}', choice_strings: ['1', 'nan'], choice_scores: from_strings}"
        ),
        "choice_scores.nan",
        "not a finite number",
    ),
    config_case(
        "spec_slot_no_row_fills",
        classify_config(
            "{prompt: 'Given {note}: acceptable? {completion}', choice_strings: NY, choice_scores: {Y: 1, N: 0}}"
        ),
        "the prompt's {note} is filled by no row",
        "'metadata.note'",
    ),
    config_case(
        "metric_choice_scores_nan",
        "data: set.jsonl\njudge: scripted\nmetrics: [{metric: classify, spec: fact, choice_scores: {A: .nan, B: 1, C: 1, D: 0, E: 1}}]\n",
        "spec 'fact'",
        "choice_scores.A",
        "not a finite number",
    ),
    config_case(
        "metric_rubric_points_nan",
        "data: set.jsonl\njudge: scripted\nmetrics: [{metric: rubric, rubric: [{criterion: c, points: .nan}]}]\n",
        "metrics",
        "rubric.0.points",
        "finite number",
    ),
    config_case(
        "metric_rubric_points_inf",
        "data: set.jsonl\njudge: scripted\nmetrics: [{metric: rubric, rubric: [{criterion: c, points: .inf}]}]\n",
        "eval.yaml",
        "metrics[0].rubric[0].points",
        "infinite",
    ),
    spec_case(
        "spec_file_choice_score_inf",
        "tone:\n" + _indented(SPEC + "choice_scores: {Y: .inf, N: 0}"),
        "spec 'tone'",
        "choice_scores.Y",
        "not a finite number (inf)",
    ),
    spec_case(
        "spec_file_scorings_nan",
        "tone:\n" + _indented(SPEC + "scorings: {strict: {Y: .nan, N: 0}}"),
        "spec 'tone'",
        "scorings.strict.Y",
    ),
    spec_case(
        "spec_file_alias_bomb",
        bomb() + "tone:\n" + _indented(SPEC + "description: *i"),
        "line 6",
        "beyond 100,000",
    ),
    spec_case(
        "spec_file_int_5000_digits",
        "tone:\n" + _indented(SPEC + f"choice_scores: {{Y: {HUGE_INT}, N: 0}}"),
        "line 4",
        "5,000 digits",
    ),
]

BOUND_CASES: list[Case] = [
    *JSON_BOUND_CASES,
    *FIELD_CASES,
    *COLUMNS_CASES,
    *YAML_CASES,
    *SIZE_CASES,
    *SPEC_CASES,
]
"""Every case of this module."""
