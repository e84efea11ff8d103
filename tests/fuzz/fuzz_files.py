"""Fuzz cases whose evaluation set is a malformed CSV or Parquet file, a file of an
unsupported type, or no file at all."""

from __future__ import annotations

import pandas as pd
from fuzz_case import FOLDER, Case, data_case, eval_yaml, nested, parquet
from fuzz_case import GOOD_ROW as G

CSV_CASES = [
    data_case(
        "csv_unclosed_quote",
        "set.csv",
        b'request,response\n"q1,r1\nq2,r2\nq3,r3\nq4,r4\n',
        "set.csv",
        "row 1",
        "'request'",
        "never closed",
    ),
    data_case(
        "csv_unclosed_quote_later",
        "set.csv",
        b'request,response\nq1,r1\nq2,"r2\nq3,r3\n',
        "set.csv",
        "row 2",
        "'response'",
        "never closed",
    ),
    data_case(
        "csv_text_after_closing_quote",
        "set.csv",
        b'request,response\n"q1,r1\nq2,"r2"\n',
        "set.csv",
        "row 1",
        "'request'",
        "closes on line 3",
    ),
    data_case(
        "csv_quote_closed_rows_late",
        "set.csv",
        b'request,response\n"q1,r1\nq2,r2\nq3,"\n',
        "set.csv",
        "row 1",
        "'request'",
        "not closed",
    ),
    data_case(
        "csv_header_unclosed_quote",
        "set.csv",
        b'"request,response\nq1,r1\n',
        "set.csv",
        "the header",
        "never closed",
    ),
    data_case("csv_header_only", "set.csv", b"request,response\n", "set.csv", "no rows"),
    data_case("csv_empty_file", "set.csv", b"", "set.csv", "no rows"),
    data_case(
        "csv_duplicate_header",
        "set.csv",
        b"request,request\nq,q\n",
        "set.csv",
        "repeats the column",
    ),
    data_case(
        "csv_too_many_cells",
        "set.csv",
        b"request,response\nq,r,extra\n",
        "set.csv",
        "row 1",
        "3 cells",
    ),
    data_case(
        "csv_no_request_column",
        "set.csv",
        b"question_text,response\nq,r\n",
        "set.csv",
        "row 1",
        "'request'",
        "field required",
    ),
    data_case(
        "csv_semicolons", "set.csv", b"request;response\nq;r\n", "set.csv", "row 1", "'request'"
    ),
    data_case(
        "csv_facts_and_response",
        "set.csv",
        b'request,expected_facts,expected_response\nq,"[""f""]",r\n',
        "set.csv",
        "row 1",
        "'expected_facts/expected_response'",
    ),
    data_case(
        "csv_chunk_without_doc_uri",
        "set.csv",
        b'request,retrieved_context\nq,"[{""content"": ""c""}]"\n',
        "set.csv",
        "row 1",
        "'retrieved_context[0].doc_uri'",
    ),
    data_case(
        "csv_metadata_not_object",
        "set.csv",
        b"request,metadata\nq,lang=ja\n",
        "set.csv",
        "row 1",
        "'metadata'",
    ),
    data_case(
        "csv_deep_json_cell",
        "set.csv",
        b'request,metadata\nq,"{""a"": ' + nested(5000).encode() + b'}"\n',
        "set.csv",
        "row 1",
        "'metadata'",
    ),
    data_case(
        "csv_surrogate_in_json_cell",
        "set.csv",
        b'request,metadata\nq,"{""a"": ""\\ud800""}"\n',
        "set.csv",
        "row 1",
        "'metadata.a'",
        "surrogate",
    ),
    data_case(
        "csv_rubric_cell_bad",
        "set.csv",
        b'request,rubric\nq,"[{""criterion"": ""c""}]"\n',
        "set.csv",
        "row 1",
        "'rubric[0].points'",
    ),
    data_case("csv_blank_rows_only", "set.csv", b"request,response\n\n,\n", "set.csv", "no rows"),
]

_GOOD_PARQUET = parquet(pd.DataFrame([G, G | {"request": "q2"}]))
OTHER_FILE_CASES = [
    data_case(
        "parquet_truncated",
        "set.parquet",
        _GOOD_PARQUET[: len(_GOOD_PARQUET) // 2],
        "set.parquet",
        "not a readable Parquet file",
    ),
    data_case(
        "parquet_middle_zeroed",
        "set.parquet",
        _GOOD_PARQUET[:8] + bytes(len(_GOOD_PARQUET) - 16) + _GOOD_PARQUET[-8:],
        "set.parquet",
        "not a readable Parquet file",
    ),
    data_case(
        "parquet_that_is_csv",
        "set.parquet",
        b"request,response\nq,r\n",
        "set.parquet",
        "not a readable Parquet file",
    ),
    data_case(
        "parquet_empty_file", "set.parquet", b"", "set.parquet", "not a readable Parquet file"
    ),
    data_case(
        "parquet_request_numbers",
        "set.parquet",
        parquet(pd.DataFrame({"request": [1, 2]})),
        "set.parquet",
        "row 1",
        "'request'",
    ),
    data_case(
        "parquet_no_rows",
        "set.parquet",
        parquet(pd.DataFrame({"request": pd.Series([], dtype=str)})),
        "set.parquet",
        "no rows",
    ),
    data_case(
        "parquet_facts_and_response",
        "set.parquet",
        parquet(
            pd.DataFrame([{"request": "q", "expected_facts": ["f"], "expected_response": "r"}])
        ),
        "set.parquet",
        "row 1",
        "'expected_facts/expected_response'",
    ),
    data_case(
        "unsupported_txt", "set.txt", b"request\nq\n", "set.txt", "unsupported file type '.txt'"
    ),
    data_case(
        "unsupported_xlsx", "set.xlsx", b"PK\x03\x04", "set.xlsx", "unsupported file type '.xlsx'"
    ),
    data_case(
        "unsupported_yaml",
        "set.yaml",
        b"- request: q\n",
        "set.yaml",
        "unsupported file type '.yaml'",
    ),
    data_case("no_extension", "set", b"request\nq\n", "set", "(no extension)"),
    Case("data_missing", {"eval.yaml": eval_yaml("absent.jsonl")}, ("absent.jsonl", "not found")),
    data_case("data_is_folder", "folder.jsonl", FOLDER, "folder.jsonl", "is a folder"),
]
