"""Fuzz cases whose evaluation set is malformed text: bad encodings, broken JSON, and
rows with wrong values in every field."""

from __future__ import annotations

import codecs

from fuzz_case import GOOD_ROW as G
from fuzz_case import JAPANESE, data_case, jsonl, nested, row_case

JA_ROW = {"request": JAPANESE, "response": "行を一意に識別する列です。"}
JA_JSONL = jsonl(JA_ROW).decode()
JA_CSV = f"request,response\n{JAPANESE},行を一意に識別する列です。\n"
BAD_SECOND_ROW = jsonl(G, {"request": 42}).decode()

ENCODING_CASES = [
    data_case(
        "jsonl_invalid_utf8",
        "set.jsonl",
        jsonl(G) + b'{"request": "caf\xe9"}\n',
        "set.jsonl",
        "line 2",
        "not UTF-8",
    ),
    data_case(
        "jsonl_shift_jis",
        "set.jsonl",
        JA_JSONL.encode("shift_jis"),
        "set.jsonl",
        "line 1",
        "iconv -f SHIFT_JIS -t UTF-8",
    ),
    data_case(
        "jsonl_euc_jp", "set.jsonl", JA_JSONL.encode("euc_jp"), "set.jsonl", "line 1", "not UTF-8"
    ),
    data_case(
        "jsonl_latin1",
        "set.jsonl",
        '{"request": "Straße"}\n'.encode("latin-1"),
        "set.jsonl",
        "line 1",
        "not UTF-8",
    ),
    data_case(
        "jsonl_cp1252_quotes",
        "set.jsonl",
        '{"request": "“quoted”"}\n'.encode("cp1252"),
        "set.jsonl",
        "not UTF-8",
    ),
    data_case(
        "jsonl_utf16_without_mark",
        "set.jsonl",
        JA_JSONL.encode("utf-16-le"),
        "set.jsonl",
        "NUL",
        "UTF-16",
    ),
    data_case("jsonl_utf32", "set.jsonl", JA_JSONL.encode("utf-32"), "set.jsonl", "UTF-32"),
    data_case(
        "jsonl_utf16_mark_bad_row",
        "set.jsonl",
        BAD_SECOND_ROW.encode("utf-16"),
        "set.jsonl",
        "row 2",
        "'request'",
    ),
    data_case(
        "jsonl_utf8_mark_bad_row",
        "set.jsonl",
        BAD_SECOND_ROW.encode("utf-8-sig"),
        "set.jsonl",
        "row 2",
        "'request'",
    ),
    data_case(
        "jsonl_utf16_be_mark_bad_row",
        "set.jsonl",
        codecs.BOM_UTF16_BE + BAD_SECOND_ROW.encode("utf-16-be"),
        "set.jsonl",
        "row 2",
        "'request'",
    ),
    data_case(
        "jsonl_nul_byte",
        "set.jsonl",
        jsonl(G) + b'{"request": "a\x00b"}\n',
        "set.jsonl",
        "NUL",
        "line 2",
    ),
    data_case("jsonl_mark_only", "set.jsonl", codecs.BOM_UTF8, "set.jsonl", "no rows"),
    data_case(
        "csv_invalid_utf8",
        "set.csv",
        b"request,response\nq,caf\xe9\n",
        "set.csv",
        "line 2",
        "not UTF-8",
    ),
    data_case(
        "csv_shift_jis",
        "set.csv",
        JA_CSV.encode("shift_jis"),
        "set.csv",
        "iconv -f SHIFT_JIS -t UTF-8",
    ),
    data_case(
        "csv_utf16_mark_bad_row",
        "set.csv",
        "request,response\nq1,a\n,a\n".encode("utf-16"),
        "set.csv",
        "row 2",
        "'request'",
    ),
    data_case("csv_utf16_without_mark", "set.csv", JA_CSV.encode("utf-16-le"), "set.csv", "NUL"),
    data_case(
        "csv_nul_byte", "set.csv", b"request,response\nq\x00,a\n", "set.csv", "NUL", "line 2"
    ),
    data_case(
        "csv_encoded_surrogate",
        "set.csv",
        b"request,response\nq\xed\xa0\x80,a\n",
        "set.csv",
        "line 2",
        "not UTF-8",
    ),
    data_case(
        "json_invalid_utf8",
        "set.json",
        b'[{"request": "caf\xe9"}]',
        "set.json",
        "line 1",
        "not UTF-8",
    ),
    data_case(
        "json_shift_jis", "set.json", f"[{JA_JSONL}]".encode("shift_jis"), "set.json", "SHIFT_JIS"
    ),
]

JSON_CASES = [
    row_case("truncated_line", '{"request": "What is', "invalid JSON"),
    row_case("trailing_comma", '{"request": "q",}', "invalid JSON"),
    row_case("single_quotes", "{'request': 'q'}", "invalid JSON"),
    row_case("nan", '{"request": "q", "metadata": {"human": NaN}}', "NaN is not a JSON value"),
    row_case(
        "infinity",
        '{"request": "q", "metadata": {"human": -Infinity}}',
        "-Infinity is not a JSON value",
    ),
    row_case("deep_nesting_100k", f'{{"request": {nested(100_000)}}}', "nested too deeply"),
    row_case(
        "deep_nesting_in_metadata",
        f'{{"request": "q", "metadata": {{"x": {nested(150)}}}}}',
        "'metadata'",
        "nested more than 100",
    ),
    row_case(
        "deep_nesting_in_trace",
        f'{{"request": "q", "trace": {nested(900)}}}',
        "'trace'",
        "nested more than 100",
    ),
    row_case("lone_surrogate_request", '{"request": "q\\ud800"}', "'request'", "lone surrogate"),
    row_case(
        "lone_surrogate_response",
        '{"request": "q", "response": "\\udc00"}',
        "'response'",
        "lone surrogate",
    ),
    row_case(
        "lone_surrogate_in_metadata",
        '{"request": "q", "metadata": {"tag": "\\ud83d"}}',
        "'metadata.tag'",
        "lone surrogate",
    ),
    row_case(
        "lone_surrogate_key",
        '{"request": "q", "\\ud800": 1}',
        "'<row>'",
        "field name holds the lone surrogate",
    ),
    row_case("row_is_list", "[1, 2]", "'<row>'", "object"),
    row_case("row_is_string", '"just text"', "'<row>'", "object"),
    row_case("row_is_number", "42", "'<row>'", "object"),
    row_case("row_is_null", "null", "'<row>'", "object"),
    row_case("request_number", {"request": 42}, "'request'"),
    row_case("request_null", {"request": None, "response": "r"}, "'request'", "field required"),
    row_case("request_missing", {"response": "r"}, "'request'", "field required"),
    row_case("request_empty", {"request": ""}, "'request'", "empty"),
    row_case("request_whitespace", {"request": "   "}, "'request'", "empty"),
    row_case("request_list_of_strings", {"request": ["a", "b"]}, "'request'"),
    row_case("request_bool", {"request": True}, "'request'"),
    row_case("messages_not_list", {"request": {"messages": "hi"}}, "'request.messages'"),
    row_case(
        "messages_bad_role",
        {"request": {"messages": [{"role": "boss", "content": "q"}]}},
        "'request.messages[0].role'",
    ),
    row_case(
        "messages_without_user",
        {"request": {"messages": [{"role": "assistant", "content": "a"}]}},
        "'request'",
        "no user message",
    ),
    row_case(
        "message_content_number",
        {"request": {"messages": [{"role": "user", "content": 3}]}},
        "'request.messages[0].content'",
    ),
    row_case("query_empty", {"request": {"query": ""}}, "'request'", "request.query"),
    row_case(
        "history_not_list", {"request": {"query": "q", "history": "earlier"}}, "'request.history'"
    ),
    row_case("response_number", {"request": "q", "response": 42}, "'response'"),
    row_case("response_list", {"request": "q", "response": ["a"]}, "'response'"),
    row_case(
        "response_bad_choices",
        {"request": "q", "response": {"choices": []}},
        "'response'",
        "choices",
    ),
    row_case(
        "response_dict_without_text", {"request": "q", "response": {"text": "a"}}, "'response'"
    ),
    row_case(
        "expected_response_number", {"request": "q", "expected_response": 3}, "'expected_response'"
    ),
    row_case(
        "expected_response_empty_list",
        {"request": "q", "expected_response": []},
        "'expected_response'",
        "empty list",
    ),
    row_case(
        "expected_response_numbers",
        {"request": "q", "expected_response": [1, 2]},
        "'expected_response[0]'",
    ),
    row_case(
        "expected_facts_string", {"request": "q", "expected_facts": "a fact"}, "'expected_facts'"
    ),
    row_case(
        "expected_facts_numbers", {"request": "q", "expected_facts": [1]}, "'expected_facts[0]'"
    ),
    row_case(
        "facts_and_response",
        {"request": "q", "expected_facts": ["f"], "expected_response": "r"},
        "'expected_facts/expected_response'",
        "both given",
    ),
    row_case("guidelines_string", {"request": "q", "guidelines": "be nice"}, "'guidelines'"),
    row_case(
        "guidelines_dict_of_strings",
        {"request": "q", "guidelines": {"tone": "nice"}},
        "'guidelines.tone'",
    ),
    row_case(
        "retrieved_context_number",
        {"request": "q", "retrieved_context": 5},
        "'retrieved_context'",
    ),
    row_case(
        "chunk_without_doc_uri",
        {"request": "q", "retrieved_context": [{"content": "c"}]},
        "'retrieved_context[0].doc_uri'",
    ),
    row_case(
        "chunk_empty_doc_uri",
        {"request": "q", "retrieved_context": [{"doc_uri": "", "content": "c"}]},
        "'retrieved_context[0].doc_uri'",
    ),
    row_case(
        "expected_context_numbers",
        {"request": "q", "expected_retrieved_context": [1]},
        "'expected_retrieved_context[0]'",
    ),
    row_case(
        "rubric_without_points",
        {"request": "q", "rubric": [{"criterion": "c"}]},
        "'rubric[0].points'",
    ),
    row_case(
        "rubric_points_text",
        {"request": "q", "rubric": [{"criterion": "c", "points": "five"}]},
        "'rubric[0].points'",
    ),
    row_case("rubric_not_list", {"request": "q", "rubric": "be right"}, "'rubric'"),
    row_case("metadata_string", {"request": "q", "metadata": "lang=ja"}, "'metadata'"),
    row_case("metadata_list", {"request": "q", "metadata": ["ja"]}, "'metadata'"),
    row_case("request_id_bool", {"request": "q", "request_id": True}, "'request_id'"),
    row_case("request_id_object", {"request": "q", "request_id": {"id": 1}}, "'request_id'"),
    row_case("request_id_empty", {"request": "q", "request_id": "  "}, "'request_id'"),
    data_case(
        "request_id_duplicate",
        "set.jsonl",
        jsonl({**G, "request_id": "a"}, {**G, "request_id": "a"}),
        "set.jsonl",
        "row 2",
        "'request_id'",
        "duplicate",
    ),
    data_case("empty_file", "set.jsonl", b"", "set.jsonl", "no rows"),
    data_case("blank_lines_only", "set.jsonl", b"\n\n  \n", "set.jsonl", "no rows"),
    data_case(
        "very_long_truncated_line",
        "set.jsonl",
        jsonl(G) + b'{"request": "' + b"x" * 2_000_000 + b"\n",
        "set.jsonl",
        "row 2",
        "invalid JSON",
    ),
    data_case(
        "missing_response",
        "set.jsonl",
        jsonl(G, {"request": "q", "expected_response": "r"}),
        "needs 'response'",
        "row 2",
    ),
    data_case(
        "missing_reference",
        "set.jsonl",
        jsonl(G, {"request": "q", "response": "r"}),
        "needs 'expected_response'",
        "row 2",
    ),
    data_case(
        "ragas_user_input_number",
        "set.jsonl",
        jsonl({"user_input": 5, "response": "r"}),
        "set.jsonl",
        "row 1",
        "'user_input'",
    ),
    data_case(
        "ragas_contexts_number",
        "set.jsonl",
        jsonl({"user_input": "q", "retrieved_contexts": 5}),
        "set.jsonl",
        "row 1",
        "'retrieved_contexts'",
    ),
    data_case(
        "ragas_legacy_answer_number",
        "set.jsonl",
        jsonl({"question": "q", "answer": 1}),
        "set.jsonl",
        "row 1",
        "'answer'",
    ),
    data_case(
        "openai_evals_input_number",
        "set.jsonl",
        jsonl({"input": 7, "ideal": "x"}),
        "set.jsonl",
        "row 1",
        "'input'",
    ),
    data_case(
        "healthbench_rubric_without_points",
        "set.jsonl",
        jsonl({"prompt": [{"role": "user", "content": "q"}], "rubrics": [{"criterion": "c"}]}),
        "set.jsonl",
        "row 1",
        "'rubrics[0].points'",
    ),
    data_case(
        "json_truncated", "set.json", b'[{"request": "q"}, {"request": ', "set.json", "invalid JSON"
    ),
    data_case("json_scalar", "set.json", b"42", "set.json", "array"),
    data_case("json_object_without_rows", "set.json", b'{"items": []}', "set.json", "array"),
    data_case("json_deep", "set.json", nested(50_000).encode(), "set.json", "nested too deeply"),
    data_case(
        "json_row_not_object",
        "set.json",
        b'[{"request": "q"}, "q2"]',
        "set.json",
        "row 2",
        "object",
    ),
    data_case(
        "json_lone_surrogate",
        "set.json",
        b'[{"request": "\\ud800"}]',
        "set.json",
        "row 1",
        "'request'",
        "surrogate",
    ),
    data_case("json_empty_array", "set.json", b"[]", "set.json", "no rows"),
    data_case("json_nan", "set.json", b'[{"request": "q", "response": NaN}]', "set.json", "NaN"),
]
