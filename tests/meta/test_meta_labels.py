"""Reading human labels of every kind and combining annotators."""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pandas as pd
import pytest

from ragjudge.meta._labels import (
    HumanLabel,
    combine_values,
    detect_kind,
    label_column,
    parse_human,
    positive_class,
    read_annotations,
)


@pytest.mark.parametrize(
    ("value", "values", "boolean"),
    [
        (True, (1.0,), True),
        (np.bool_(False), (0.0,), True),
        ("Yes", (1.0,), True),
        (" no. ", (0.0,), True),
        ("PASS", (1.0,), True),
        ("はい", (1.0,), True),
        ("いいえ", (0.0,), True),
        ("不正解", (0.0,), True),
        ("ｙｅｓ", (1.0,), True),
        ("4", (4.0,), False),
        ([True, "no", 1], (1.0, 0.0, 1.0), True),
        ({"a": {"value": "3"}, "b": 2}, (3.0, 2.0), False),
        (json.dumps({"a": "yes", "b": "no"}), (1.0, 0.0), True),
        (None, (), False),
        ("", (), False),
    ],
)
def test_every_kind_of_value_reads(value: Any, values: tuple[float, ...], boolean: bool) -> None:
    found = read_annotations(value)
    assert found.values == values and found.boolean is boolean


def test_parse_human_names_annotator_keys() -> None:
    assert parse_human("completeness") == HumanLabel("completeness", ("completeness",))
    assert parse_human("ok=ann1, ann2,ann3") == HumanLabel("ok", ("ann1", "ann2", "ann3"))
    with pytest.raises(ValueError, match="NAME=KEY1,KEY2"):
        parse_human("ok=")


def test_combining_annotators() -> None:
    assert combine_values([1, 0, 1], "mean") == pytest.approx(2 / 3)
    assert combine_values([1, 2, 4], "median") == 2.0
    assert combine_values([3, 3, 1], "majority") == 3.0
    assert combine_values([1, 0], "majority") is None  # a tie has no majority
    assert combine_values([], "mean") is None
    with pytest.raises(ValueError, match="combine"):
        combine_values([1], "max")  # type: ignore[arg-type]


def test_kind_detection() -> None:
    assert detect_kind([read_annotations("yes"), read_annotations(0)]) == "binary"
    assert detect_kind([read_annotations([0, 1])]) == "binary"
    assert detect_kind([read_annotations([1, 4]), read_annotations(3)]) == "ordinal"
    assert detect_kind([read_annotations([0.5, 0.7])]) == "numeric"
    assert detect_kind([read_annotations(list(range(20)))]) == "numeric"


def test_label_column_from_annotator_columns_with_majority() -> None:
    raw = pd.DataFrame(
        {
            "ann1": ["yes", "no", "はい", None],
            "ann2": [True, "no", "いいえ", None],
            "ann3": [1, "yes", None, None],
        },
        index=["s1", "s2", "s3", "s4"],
    )
    column = label_column(raw, "ok", combine="majority")
    assert column.kind == "binary"
    assert column.annotations["s3"] == (1.0, 0.0)
    assert column.combined["s1"] == 1.0 and column.combined["s2"] == 0.0
    assert np.isnan(column.combined["s3"]) and np.isnan(column.combined["s4"])
    assert column.no_majority == 1  # s3 split evenly; s4 has no annotation at all
    target = column.binary_target(None)
    assert target is not None and list(target.dropna()) == [1.0, 0.0]


def test_binary_target_of_a_mean_and_of_an_ordinal_label() -> None:
    raw = pd.DataFrame({"h": [[1, 0], [1, 1, 0], [0, 0]]}, index=["a", "b", "c"])
    column = label_column(raw, "h", combine="mean")
    target = column.binary_target(None)
    assert target is not None
    assert np.isnan(target["a"]) and target["b"] == 1.0 and target["c"] == 0.0
    ordinal = label_column(
        pd.DataFrame({"h": [[4, 3], [1, 2]]}, index=["a", "b"]), "h", combine="mean"
    )
    assert ordinal.kind == "ordinal" and ordinal.binary_target(None) is None
    accept = ordinal.binary_target(3)
    assert accept is not None and list(accept) == [1.0, 0.0]
    rounded = ordinal.ordinal_target()
    assert rounded is not None and list(rounded) == [4.0, 2.0]  # 3.5 → 4, 1.5 → 2


def test_values_that_do_not_fit_the_kind_are_errors() -> None:
    raw = pd.DataFrame({"h": ["yes", 3]}, index=["a", "b"])
    with pytest.raises(ValueError, match="binary label holds only"):
        label_column(raw, "h", combine="mean")
    with pytest.raises(ValueError, match="whole numbers"):
        label_column(pd.DataFrame({"h": [1.5]}, index=["a"]), "h", combine="mean", kind="ordinal")
    with pytest.raises(ValueError, match="sample 'b', metadata 'h'"):
        label_column(pd.DataFrame({"h": ["yes", "maybe"]}, index=["a", "b"]), "h", combine="mean")


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("Fully attributable", True),
        ("  FULLY ATTRIBUTABLE ", True),
        ("Partially attributable", False),
        ("", ""),
        (None, None),
        (1, 1),
        (["Fully attributable", "Not attributable"], [True, False]),
        ({"a1": {"value": "Fully attributable"}}, {"a1": {"value": True}}),
        ('{"a1": "Not attributable"}', {"a1": False}),
    ],
)
def test_a_positive_class_reads_text_as_yes_or_no(value: Any, expected: Any) -> None:
    assert positive_class(value, "Fully attributable") == expected


def test_left_out_values_are_dropped_before_annotators_are_combined() -> None:
    raw = pd.DataFrame(
        {"score": [json.dumps({"a": 4, "b": 0}), json.dumps({"a": 0}), None]},
        index=["s1", "s2", "s3"],
    )
    column = label_column(raw, "score", combine="mean", leave_out=[0])
    assert column.combined["s1"] == 4.0
    assert np.isnan(column.combined["s2"]) and np.isnan(column.combined["s3"])
    # s2 was judged "could not judge" by everyone; s3 was never labelled.
    assert column.left_out == frozenset({"s2"})
    assert 0.0 not in column.levels
