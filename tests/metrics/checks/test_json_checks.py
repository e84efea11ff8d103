import json
from pathlib import Path

import pytest

import ragjudge as rj
from checked_row import score
from ragjudge.config import ConfigError
from ragjudge.metrics import ConfigSettings, MetricContext, create_metric
from ragjudge.schema import Output, Sample

SCHEMA = {
    "type": "object",
    "properties": {
        "answer": {"type": "string"},
        "sources": {"type": "array", "items": {"type": "integer"}},
    },
    "required": ["answer"],
}


def test_is_json_passes_a_document_and_says_where_text_breaks() -> None:
    assert score("is_json", '{"a": [1, 2]}').value == 1.0
    assert score("is_json", "3").value == 1.0
    broken = score("is_json", '{"a": 1,}')
    assert broken.value == 0.0
    assert (
        broken.rationale
        == "not JSON: Expecting property name enclosed in double quotes at line 1, column 9"
    )


def test_a_fence_is_taken_off_only_when_asked() -> None:
    fenced = '```json\n{"a": 1}\n```'
    assert score("is_json", fenced).value == 0.0
    assert score({"metric": "is_json", "strip_fence": True}, fenced).value == 1.0


def test_schema_pass_and_fail_with_the_path_of_the_violation() -> None:
    spec = {"metric": "json_schema", "json_schema": SCHEMA}
    assert score(spec, '{"answer": "東京", "sources": [1, 2]}').value == 1.0
    wrong = score(spec, '{"answer": "東京", "sources": [1, "two"]}')
    assert wrong.value == 0.0
    assert wrong.details == {"path": "$.sources[1]", "violations": 1}
    assert wrong.rationale == "$.sources[1]: 'two' is not of type 'integer'"
    missing = score(spec, '{"sources": []}')
    assert missing.details["path"] == "$" and "'answer' is a required property" in str(
        missing.rationale
    )


def test_schema_of_a_response_that_is_not_json_fails() -> None:
    found = score({"metric": "json_schema", "json_schema": SCHEMA}, "answer: 東京")
    assert found.value == 0.0 and found.details == {"path": None}
    assert str(found.rationale).startswith("not JSON")


def test_a_schema_file_is_read_beside_the_config(tmp_path: Path) -> None:
    (tmp_path / "answer.schema.json").write_text(json.dumps(SCHEMA), encoding="utf-8")
    config = ConfigSettings(tmp_path, lambda setting: None)
    spec = {"metric": "json_schema", "schema_file": "answer.schema.json"}
    metric = create_metric(spec, settings=config)
    sample = Sample(request_id="r1", request="q")
    [ok] = metric.score_now(sample, Output(response='{"answer": "a"}'), MetricContext())
    [bad] = metric.score_now(sample, Output(response='{"answer": 1}'), MetricContext())
    assert ok.value == 1.0
    assert bad.value == 0.0 and bad.details["path"] == "$.answer"


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (
            {"json_schema": {"type": "wrong"}},
            "option 'json_schema' is invalid: not a valid JSON schema",
        ),
        (
            {"schema_file": "nowhere.json"},
            "option 'schema_file' is invalid: .*nowhere.json: no such file",
        ),
        ({}, "give the schema as 'json_schema' or as 'schema_file'"),
    ],
)
def test_a_bad_schema_stops_the_run_before_any_row(
    tmp_path: Path, options: dict[str, object], message: str
) -> None:
    rows = [{"request_id": "r1", "request": "q", "response": "{}"}]
    with pytest.raises(ConfigError, match=message):
        rj.evaluate(
            rows,
            metrics=[{"metric": "json_schema", **options}],
            store=tmp_path / "runs.db",
            progress=False,
        )
    assert not (tmp_path / "runs.db").exists()
