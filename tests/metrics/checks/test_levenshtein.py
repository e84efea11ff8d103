import random

import pytest

from checked_row import score
from ragjudge.metrics.checks.levenshtein import levenshtein_distance


@pytest.mark.parametrize(
    ("first", "second", "distance"),
    [
        ("kitten", "sitting", 3),
        ("", "abc", 3),
        ("abc", "abc", 0),
        ("flaw", "lawn", 2),
        ("東京都", "京都府", 2),
    ],
)
def test_distance_by_hand(first: str, second: str, distance: int) -> None:
    assert levenshtein_distance(first, second) == distance
    assert levenshtein_distance(second, first) == distance


def _plain_distance(first: str, second: str) -> int:
    table = [
        [i + j if i * j == 0 else 0 for j in range(len(second) + 1)] for i in range(len(first) + 1)
    ]
    for i in range(1, len(first) + 1):
        for j in range(1, len(second) + 1):
            table[i][j] = min(
                table[i - 1][j] + 1,
                table[i][j - 1] + 1,
                table[i - 1][j - 1] + (first[i - 1] != second[j - 1]),
            )
    return table[-1][-1]


def test_distance_equals_the_full_table_on_random_texts() -> None:
    pick = random.Random(7)
    for _ in range(200):
        first = "".join(pick.choices("abあい", k=pick.randint(0, 9)))
        second = "".join(pick.choices("abあい", k=pick.randint(0, 9)))
        assert levenshtein_distance(first, second) == _plain_distance(first, second)


def test_similarity_is_one_minus_distance_over_the_longer_length() -> None:
    found = score("levenshtein", "sitting", expected_response=["kitten"])
    assert found.value == pytest.approx(1 - 3 / 7)
    assert found.details == {"reference_index": 0, "distance": 3}


def test_best_reference_is_kept() -> None:
    found = score("levenshtein", "東京都", expected_response=["大阪府", "東京"])
    assert found.value == pytest.approx(1 - 1 / 3)
    assert found.details["reference_index"] == 1


def test_nfkc_and_case_options() -> None:
    assert score("levenshtein", "ＴＯＫＹＯ", expected_response=["tokyo"]).value == 0.0
    spec = {"metric": "levenshtein", "nfkc": True, "case_sensitive": False}
    assert score(spec, "ＴＯＫＹＯ", expected_response=["tokyo"]).value == 1.0


def test_an_empty_response_is_a_wrong_answer() -> None:
    assert score("levenshtein", "", expected_response=["abc"]).value == 0.0
