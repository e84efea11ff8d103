"""An evaluation set given as a dict of columns (``Dataset.from_dict``'s input) loads as
the same rows given as a list of dicts; columns that do not line up are named."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from ragjudge.errors import DatasetError
from ragjudge.loading import read_evaluation_set
from ragjudge.loading._column_dict import rows_of_columns

COLUMNS = {
    "question": ["What does UNION do?", "UNIONとは?"],
    "answer": ["It removes duplicate rows.", "重複行を除きます。"],
    "contexts": [["UNION removes duplicate rows."], ["UNION は重複行を除きます。"]],
    "ground_truth": ["UNION removes duplicates.", "重複行を除く。"],
}


def test_row_i_holds_the_ith_value_of_every_column() -> None:
    rows = rows_of_columns(COLUMNS)
    assert rows[1] == {
        "question": "UNIONとは?",
        "answer": "重複行を除きます。",
        "contexts": ["UNION は重複行を除きます。"],
        "ground_truth": "重複行を除く。",
    }


def test_a_dict_of_columns_loads_as_the_same_rows_in_a_list() -> None:
    by_columns = read_evaluation_set(COLUMNS)
    by_rows = read_evaluation_set(rows_of_columns(COLUMNS))
    assert by_columns.samples == by_rows.samples
    assert by_columns.report.format == by_rows.report.format
    first = by_columns.samples[0]
    assert first.request.query == "What does UNION do?"
    assert first.response == "It removes duplicate rows."
    assert first.expected_response == "UNION removes duplicates."
    assert [c.content for c in first.retrieved_context or []] == ["UNION removes duplicate rows."]


def test_arrays_and_series_are_columns_too() -> None:
    columns = {"question": np.array(["q1", "q2"]), "answer": pd.Series(["a1", "a2"])}
    assert rows_of_columns(columns) == [
        {"question": "q1", "answer": "a1"},
        {"question": "q2", "answer": "a2"},
    ]


def test_columns_of_unequal_length_are_named_with_their_lengths() -> None:
    with pytest.raises(DatasetError) as caught:
        read_evaluation_set({**COLUMNS, "answer": ["only one"]})
    message = str(caught.value)
    assert "unequal length" in message
    assert "'question' has 2" in message and "'answer' has 1" in message


def test_a_column_that_is_not_a_list_is_named() -> None:
    with pytest.raises(DatasetError) as caught:
        read_evaluation_set({"question": "What does UNION do?", "answer": ["a"]})
    (problem,) = caught.value.problems
    assert problem.field == "question"
    assert "not a list of values" in problem.reason
