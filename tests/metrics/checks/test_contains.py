import pytest

from checked_row import score


def test_contains_any_passes_on_one_value_and_lists_what_it_found() -> None:
    found = score({"metric": "contains_any", "values": ["東京", "大阪"]}, "首都は東京です。")
    assert found.value == 1.0
    assert found.details == {"found": ["東京"], "missing": ["大阪"]}
    assert score({"metric": "contains_any", "values": ["京都"]}, "首都は東京です。").value == 0.0


def test_contains_all_needs_every_value() -> None:
    spec = {"metric": "contains_all", "values": ["東京", "日本"]}
    assert score(spec, "日本の首都は東京").value == 1.0
    partial = score(spec, "首都は東京")
    assert partial.value == 0.0 and partial.details["missing"] == ["日本"]


def test_case_is_compared_unless_told_otherwise() -> None:
    assert score({"metric": "contains_any", "values": ["UNION"]}, "use union all").value == 0.0
    spec = {"metric": "contains_any", "values": ["UNION"], "case_sensitive": False}
    assert score(spec, "use union all").value == 1.0


def test_nfkc_matches_full_width_and_half_width_forms() -> None:
    response = "ＳＱＬのﾃﾞｰﾀ"
    assert score({"metric": "contains_all", "values": ["SQL", "データ"]}, response).value == 0.0
    spec = {"metric": "contains_all", "values": ["SQL", "データ"], "nfkc": True}
    assert score(spec, response).value == 1.0


def test_values_from_the_rows_expected_facts() -> None:
    spec = {"metric": "contains_all", "values_from": "expected_facts"}
    passed = score(spec, "富士山は3776m、静岡と山梨", expected_facts=["3776", "静岡", "山梨"])
    assert passed.value == 1.0
    failed = score(spec, "富士山は3776m", expected_facts=["3776", "静岡"])
    assert failed.value == 0.0 and failed.details["missing"] == ["静岡"]


def test_values_from_a_field_are_required_of_every_row() -> None:
    from ragjudge.metrics import create_metric

    metric = create_metric({"metric": "contains_any", "values_from": "expected_facts"})
    assert metric.requires == ("response", "expected_facts")
    assert create_metric({"metric": "contains_any", "values": ["a"]}).requires == ("response",)


def test_given_and_row_values_are_looked_for_together() -> None:
    spec = {"metric": "contains_all", "values": ["出典"], "values_from": "expected_response"}
    assert score(spec, "答えは東京(出典あり)", expected_response=["東京"]).value == 1.0
    assert score(spec, "答えは東京", expected_response=["東京"]).value == 0.0


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({}, "give 'values'"),
        ({"values": ["a", " "]}, "blank text"),
        ({"values_from": "guidelines"}, "option 'values_from' must be one of"),
    ],
)
def test_bad_options_are_named(options: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        score({"metric": "contains_any", **options}, "a")
