"""A wide file with one response column per system, read once per system: the MTRAG
human evaluations pivoted by task, one column per model."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from ragjudge.loading import DatasetError, DataShape, read_evaluation_set
from wide_files import MODELS, mtrag_wide_rows, write_wide

SYSTEMS = {name: f"response_{name}" for name in MODELS}


def read_system(path: Path, system: str, systems: dict[str, str] = SYSTEMS) -> Any:
    columns = {"request": "question", "expected_response": "reference"}
    return read_evaluation_set(
        path, columns=columns, shape=DataShape(systems=systems, system=system)
    )


def test_each_system_reads_its_own_column_with_the_same_ids(tmp_path: Path) -> None:
    rows = mtrag_wide_rows(40)
    path = write_wide(tmp_path / "mtrag_wide.tsv", rows)

    gpt4o = read_system(path, "gpt4o").samples
    llama = read_system(path, "llama").samples

    assert [s.response for s in gpt4o] == [row["response_gpt4o"] for row in rows]
    assert [s.response for s in llama] == [row["response_llama"] for row in rows]
    assert [s.request_id for s in gpt4o] == [s.request_id for s in llama]
    assert [s.request_id for s in gpt4o] == [str(n) for n in range(1, 41)]
    # the other system's answers are not carried along as metadata
    assert all(s.metadata == {} for s in [*gpt4o, *llama])


def test_an_id_column_names_the_samples_of_every_system(tmp_path: Path) -> None:
    rows = [{"task": f"t{i}", **row} for i, row in enumerate(mtrag_wide_rows(5))]
    path = write_wide(tmp_path / "mtrag_wide.tsv", rows)
    columns = {"request_id": "task", "request": "question"}

    ids = [
        [s.request_id for s in read_evaluation_set(path, columns=columns, shape=shape).samples]
        for shape in (DataShape(systems=SYSTEMS, system=name) for name in SYSTEMS)
    ]

    assert ids == [[f"t{i}" for i in range(5)]] * 2


def test_a_system_column_missing_from_the_file_is_named(tmp_path: Path) -> None:
    path = write_wide(tmp_path / "mtrag_wide.tsv", mtrag_wide_rows(3))

    with pytest.raises(DatasetError) as caught:
        read_system(path, "gpt4o", {**SYSTEMS, "mistral": "response_mistral"})

    (problem,) = caught.value.problems
    assert problem.source == str(path)
    assert problem.reason.startswith("systems.mistral: no column 'response_mistral' (its columns:")


@pytest.mark.parametrize(
    ("systems", "columns", "message"),
    [
        ({"GPT4o": "a", "gpt4o ": "b"}, {}, "'GPT4o' and 'gpt4o ' name the same system twice"),
        ({"a/b": "a"}, {}, "'a/b' is not a system name"),
        ({"a": ""}, {}, "systems.a: give the column's name as text"),
        ({"a": "x"}, {"response": "y"}, "leave columns.response out"),
    ],
)
def test_bad_systems_are_refused(
    systems: dict[str, str], columns: dict[str, str], message: str
) -> None:
    with pytest.raises(ValueError, match=message):
        read_evaluation_set(
            [{"request": "q"}], columns=columns, shape=DataShape(systems=systems, system="a")
        )
