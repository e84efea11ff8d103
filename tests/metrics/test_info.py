"""What ``ragjudge metrics`` says of a metric whose extra is missing."""

from __future__ import annotations

import sys

import pytest

from ragjudge.metrics._info import all_metric_info, metric_info


@pytest.fixture
def without_local_models(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "sentence_transformers", None)


@pytest.mark.usefixtures("without_local_models")
def test_a_metric_needing_a_missing_extra_is_described_with_the_pip_command() -> None:
    info = metric_info("bert_score")
    assert info.extras == ["local"] and info.missing_extras == ["local"]
    assert info.install_hint == "needs pip install 'ragjudge[local]'"
    assert info.to_dict()["install_hint"] == "needs pip install 'ragjudge[local]'"


@pytest.mark.usefixtures("without_local_models")
def test_every_metric_is_described_without_the_local_extra() -> None:
    found = {info.name: info for info in all_metric_info()}
    assert found["answer_similarity"].missing_extras == ["local"]
    assert found["exact_match"].extras == [] and found["exact_match"].install_hint is None


def test_an_installed_extra_gives_no_install_hint(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("ragjudge.metrics._info.extra_installed", lambda extra: True)
    info = metric_info("bert_score")
    assert info.extras == ["local"] and info.install_hint is None
