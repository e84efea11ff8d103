"""Judge files: read relative to the config, options beside ``spec`` replacing the
file's, and every problem a ConfigError naming the file and the key."""

from __future__ import annotations

from pathlib import Path

import pytest

from ragjudge.errors import ConfigError
from ragjudge.metrics import create_metric
from ragjudge.metrics._options import ConfigSettings

EXAMPLE = Path(__file__).resolve().parents[3] / "examples" / "custom-judges"


def judge_file(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "judge.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def test_the_examples_judges_load_with_their_scales() -> None:
    settings = ConfigSettings(EXAMPLE, lambda _: None)
    tone = create_metric(
        {"metric": "custom_judge", "name": "tone", "spec": "tone.yaml"}, settings=settings
    )
    polite = create_metric(
        {"metric": "custom_judge", "name": "polite", "spec": "politeness_ja.yaml"},
        settings=settings,
    )

    assert tone.options.generate_steps and tone.options.threshold == 4  # type: ignore[attr-defined]
    assert len(tone.options.examples) == 2  # type: ignore[attr-defined]
    assert (tone.meanings()["tone"].low, tone.meanings()["tone"].high) == (1.0, 5.0)
    assert polite.scale.values == {"丁寧": 1.0, "普通": 0.5, "失礼": 0.0}  # type: ignore[attr-defined]
    assert "敬語" in polite.options.criteria  # type: ignore[attr-defined]


def test_options_beside_the_file_replace_its_keys(tmp_path: Path) -> None:
    path = judge_file(tmp_path, "criteria: Is it short?\nscale: 1-5\n")
    metric = create_metric({"metric": "custom_judge", "spec": str(path), "scale": "yes/no"})

    assert metric.scale.kind == "yes_no"  # type: ignore[attr-defined]
    assert metric.options.criteria == "Is it short?"  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("critera: Is it short?\n", r"unknown key 'critera'; did you mean 'criteria'\?"),
        ("criteria: [unclosed\n", "not valid YAML"),
        ("- a list\n", "expected a mapping"),
        ("scale: 5-1\n", "scale: the range 5-1 must go from low to high"),
        ("examples:\n  - {inputs: {response: x}, verdict: maybe}\n", r"examples\[1\]\.verdict"),
        ("spec: other.yaml\n", "cannot name another judge file"),
    ],
)
def test_a_bad_judge_file_is_named_with_its_key(tmp_path: Path, text: str, words: str) -> None:
    path = judge_file(tmp_path, text)
    with pytest.raises(ConfigError, match=words) as caught:
        create_metric({"metric": "custom_judge", "spec": str(path)})
    assert str(path) in str(caught.value)


def test_a_missing_judge_file_is_named(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="no such judge file"):
        create_metric({"metric": "custom_judge", "spec": str(tmp_path / "none.yaml")})
