from pathlib import Path

import pytest

import ragjudge as rj
from checked_row import score
from ragjudge.config import ConfigError


def test_search_finds_the_pattern_anywhere() -> None:
    found = score({"metric": "regex", "pattern": r"\d{3}-\d{4}"}, "電話は 012-3456 です")
    assert found.value == 1.0
    assert found.details["matched"] == "012-3456" and found.details["span"] == [4, 12]
    assert score({"metric": "regex", "pattern": r"\d{3}-\d{4}"}, "no number").value == 0.0


def test_fullmatch_needs_the_whole_response() -> None:
    spec = {"metric": "regex", "pattern": r"[A-D]", "mode": "fullmatch"}
    assert score(spec, "B").value == 1.0
    assert score(spec, "B.").value == 0.0


def test_ignore_case_flag() -> None:
    assert score({"metric": "regex", "pattern": "paris"}, "Paris").value == 0.0
    assert score({"metric": "regex", "pattern": "paris", "ignore_case": True}, "Paris").value == 1.0


def test_multiline_flag_lets_anchors_match_each_line() -> None:
    text = "intro\nAnswer: yes"
    assert score({"metric": "regex", "pattern": "^Answer"}, text).value == 0.0
    assert score({"metric": "regex", "pattern": "^Answer", "multiline": True}, text).value == 1.0


def test_dotall_flag_lets_the_dot_cross_lines() -> None:
    text = "<a>\n</a>"
    assert score({"metric": "regex", "pattern": "<a>.</a>"}, text).value == 0.0
    assert score({"metric": "regex", "pattern": "<a>.</a>", "dotall": True}, text).value == 1.0


def test_negate_passes_responses_without_a_match() -> None:
    spec = {"metric": "regex", "pattern": r"(?i)as an ai", "negate": True}
    assert score(spec, "As an AI, I cannot.").value == 0.0
    assert score(spec, "The answer is 4.").value == 1.0


def test_a_missing_response_is_an_error_not_a_fail() -> None:
    found = score({"metric": "regex", "pattern": "x"}, None)
    assert found.value is None and found.error == "no response"


def test_a_bad_pattern_stops_the_run_naming_metric_and_option(tmp_path: Path) -> None:
    rows = [{"request_id": "r1", "request": "q", "response": "a"}]
    with pytest.raises(ConfigError) as raised:
        rj.evaluate(
            rows,
            metrics=[{"metric": "regex", "name": "ids", "pattern": "(unclosed"}],
            store=tmp_path / "runs.db",
            progress=False,
        )
    message = str(raised.value)
    assert "metric 'ids' (regex)" in message and "option 'pattern'" in message
    assert "missing ), unterminated subpattern at position 0" in message
    assert not (tmp_path / "runs.db").exists()


def test_a_missing_pattern_is_named() -> None:
    with pytest.raises(ValueError, match="metric 'regex': option 'pattern' is required"):
        score("regex", "a")
