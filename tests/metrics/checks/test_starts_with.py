import pytest

from checked_row import score


def test_a_given_opening_after_leading_space() -> None:
    spec = {"metric": "starts_with", "value": "はい"}
    found = score(spec, "  はい、そうです。")
    assert found.value == 1.0 and found.details["matched"] == "はい"
    assert score(spec, "いいえ、はい").value == 0.0
    assert score({**spec, "strip": False}, "  はい").value == 0.0


def test_without_a_value_any_reference_opens_it() -> None:
    found = score("starts_with", "Tokyo is the capital", expected_response=["Kyoto", "Tokyo"])
    assert found.value == 1.0 and found.details["reference_index"] == 1


def test_case_option() -> None:
    assert score({"metric": "starts_with", "value": "Yes"}, "yes, indeed").value == 0.0
    spec = {"metric": "starts_with", "value": "Yes", "case_sensitive": False}
    assert score(spec, "yes, indeed").value == 1.0


def test_a_blank_value_is_refused() -> None:
    with pytest.raises(ValueError, match="option 'value' is invalid: is blank"):
        score({"metric": "starts_with", "value": "  "}, "a")
