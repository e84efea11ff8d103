"""The config's anchors: inline rows or a file of rows (JSON Lines, CSV), read when the
config is, kept as rows in the run's record; a bad row is named by file, row and field."""

from __future__ import annotations

from pathlib import Path

import pytest

from ragjudge.config import ConfigError, EvalConfig, load_config

ROW = {"request_id": "r1", "metric": "faithfulness", "expected": 1.0, "tolerance": 0.0}


def test_inline_anchors_are_checked_and_kept_as_rows() -> None:
    config = EvalConfig(
        metrics=["exact_match"],
        anchors=[{"request_id": 7, "metric": "faithfulness", "expected": True}],
        reference_run="previous",
    )
    assert config.anchors == [
        {"request_id": "7", "metric": "faithfulness", "expected": True, "tolerance": 0.0}
    ]
    record = config.to_record()
    assert record["anchors"] == config.anchors and record["reference_run"] == "previous"
    assert EvalConfig.model_validate(record).anchors == config.anchors  # a resumed run


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("anchors.jsonl", '{"request_id": "r1", "metric": "faithfulness", "expected": 1}\n'),
        ("anchors.csv", "request_id,metric,expected,tolerance\nr1,faithfulness,1,\n"),
    ],
)
def test_an_anchor_file_is_read_with_the_config(tmp_path: Path, name: str, text: str) -> None:
    (tmp_path / name).write_text(text, encoding="utf-8")
    config_file = tmp_path / "eval.yaml"
    config_file.write_text(f"metrics: [exact_match]\nanchors: {name}\n", encoding="utf-8")
    config = load_config(config_file)
    assert config.anchors == [ROW]
    assert config.to_record()["anchors"] == [ROW]  # the run keeps the rows, not the path


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('{"request_id": "r1", "metric": "m"}\n', "anchors.jsonl, row 1: expected: Field required"),
        ('{"request_id": "r1", "metric": "m", "expected": "often"}\n', "anchors.jsonl, row 1: expected"),
        ('{"request_id": "r1", "metric": "m", "expected": 1, "tolerance": -1}\n', "row 1: tolerance: Input should be greater than or equal to 0"),
        ('{"request_id": "r1", "metric": "m", "expected": 1, "judge": "x"}\n', "row 1: judge: Extra inputs are not permitted"),
        ("\n", "anchors.jsonl: holds no anchors"),
        ("not json\n", "anchors.jsonl, row 1"),
    ],
)  # fmt: skip
def test_a_bad_anchor_file_is_named_by_file_row_and_field(
    tmp_path: Path, text: str, message: str
) -> None:
    (tmp_path / "anchors.jsonl").write_text(text, encoding="utf-8")
    config_file = tmp_path / "eval.yaml"
    config_file.write_text("metrics: [exact_match]\nanchors: anchors.jsonl\n", encoding="utf-8")
    with pytest.raises(ConfigError) as caught:
        load_config(config_file)
    assert message in str(caught.value), str(caught.value)


def test_a_missing_anchor_file_and_a_bad_inline_row_are_config_errors(tmp_path: Path) -> None:
    config_file = tmp_path / "eval.yaml"
    config_file.write_text("metrics: [exact_match]\nanchors: absent.jsonl\n", encoding="utf-8")
    with pytest.raises(ConfigError, match=r"anchors: .*absent.jsonl: no such file"):
        load_config(config_file)
    with pytest.raises(ValueError, match="anchors: row 2: metric: Field required"):
        EvalConfig(metrics=["exact_match"], anchors=[ROW, {"request_id": "r2", "expected": 0}])
