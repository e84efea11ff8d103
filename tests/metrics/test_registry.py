"""Looking metrics up by name: a misspelt name or option gets the closest known one."""

from __future__ import annotations

import pytest

from ragjudge.metrics import create_metric


def test_an_unknown_metric_suggests_the_closest_name() -> None:
    with pytest.raises(ValueError, match=r"unknown metric 'tokn_f1'; did you mean 'token_f1'\?"):
        create_metric("tokn_f1")


def test_an_unknown_option_suggests_the_closest_option() -> None:
    with pytest.raises(
        ValueError, match=r"unknown option 'normalise' \(did you mean 'normalize'\?\)"
    ):
        create_metric({"metric": "exact_match", "normalise": True})
