"""The closest known name to a misspelt one."""

from __future__ import annotations

from ragjudge._util.suggest import did_you_mean


def test_the_closest_known_name_is_suggested() -> None:
    assert did_you_mean("tokn_f1", ["rouge_l", "token_f1", "exact_match"]) == (
        "did you mean 'token_f1'? "
    )


def test_nothing_is_suggested_when_no_name_is_close() -> None:
    assert did_you_mean("zzz", ["rouge_l", "token_f1"]) == ""
    assert did_you_mean("rouge_l", []) == ""
