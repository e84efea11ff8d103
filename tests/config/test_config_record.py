"""The configuration as a run stores it: ``${VAR}`` references instead of secrets,
masked key-like values, URLs without credentials, and the judge's endpoint."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

from ragjudge.config import EvalConfig, expand_environment, load_config
from ragjudge.run._preparation import build_retriever, build_target
from ragjudge.targets._targets import TargetError
from ragjudge.targets.http import JsonApiTarget

KEY = "sk-config-planted-81d3f0"
PASSWORD = "pw-planted-2e7c"


@pytest.fixture
def config_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("RJ_KEY", KEY)
    monkeypatch.setenv("RJ_PASS", PASSWORD)
    monkeypatch.setenv("RJ_DATA", str(tmp_path))
    path = tmp_path / "eval.yaml"
    path.write_text(
        textwrap.dedent(
            """
            name: secrets
            data: ${RJ_DATA}/set.jsonl
            target:
              kind: json_api
              url: http://127.0.0.1:9/answer?key=${RJ_KEY}&lang=ja
              headers:
                X-Api-Key: ${RJ_KEY}
                Authorization: Bearer literal-token-5f1a
                Content-Type: application/json
              body_template: {question: "{{query}}"}
              response_path: answer
              max_reply_bytes: 1000000
            retriever:
              kind: http
              url: http://127.0.0.1:9/search
              headers: {Authorization: "Bearer ${RJ_KEY}"}
            judge:
              model: openai/judge-model
              base_url: http://judge:${RJ_PASS}@127.0.0.1:9/v1
            metrics: [rouge_l]
            """
        ),
        encoding="utf-8",
    )
    return path


def test_the_record_keeps_references_and_masks_what_was_written_literally(
    config_file: Path,
) -> None:
    record = load_config(config_file).to_record()
    text = json.dumps(record)
    assert KEY not in text and PASSWORD not in text and "literal-token-5f1a" not in text
    target = record["target"]
    assert target["url"] == "http://127.0.0.1:9/answer?key=${RJ_KEY}&lang=ja"
    assert target["headers"] == {
        "X-Api-Key": "${RJ_KEY}",
        "Authorization": "***",
        "Content-Type": "application/json",
    }
    assert target["max_reply_bytes"] == 1000000
    assert record["retriever"]["headers"] == {"Authorization": "Bearer ${RJ_KEY}"}
    assert record["judge"]["base_url"] == "http://***@127.0.0.1:9/v1"
    # Paths keep their expansion: a resumed run needs them as they were.
    assert record["data"] == f"{config_file.parent}/set.jsonl"


def test_a_resumed_record_reads_the_secrets_from_the_environment_again(
    config_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    stored = EvalConfig.model_validate(load_config(config_file).to_record())
    assert stored.target is not None
    referenced = stored.model_copy(
        update={"target": stored.target.model_copy(update={"headers": {"X-Api-Key": "${RJ_KEY}"}})}
    )
    target = build_target(referenced)
    assert isinstance(target, JsonApiTarget)
    assert target.url == f"http://127.0.0.1:9/answer?key={KEY}&lang=ja"
    assert target.http.headers == {"X-Api-Key": KEY}
    assert build_retriever(stored).http.headers == {"Authorization": f"Bearer {KEY}"}
    with pytest.raises(TargetError, match=r"headers\.Authorization: the secret was not stored"):
        build_target(stored)
    monkeypatch.delenv("RJ_KEY")
    with pytest.raises(TargetError, match="RJ_KEY is not set"):
        build_target(referenced)


def test_the_record_names_the_endpoint_that_judged(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", f"http://u:{PASSWORD}@127.0.0.1:8000/v1?api_key={KEY}")
    config = EvalConfig(metrics=["rouge_l"], judge="openai/judge-model")
    judge = config.to_record()["judge"]
    assert judge["base_url"] == "http://***@127.0.0.1:8000/v1?api_key=***"
    monkeypatch.delenv("OPENAI_BASE_URL")
    assert config.to_record()["judge"]["base_url"] == "https://api.openai.com/v1"
    given = EvalConfig(metrics=["rouge_l"], judge={"model": "openai/m", "base_url": "http://h/v1"})
    assert given.to_record()["judge"]["base_url"] == "http://h/v1"
    scripted = EvalConfig(metrics=["rouge_l"], judge="scripted")
    assert scripted.to_record()["judge"]["base_url"] is None
    assert EvalConfig(metrics=["rouge_l"]).to_record()["judge"] is None


def test_expanding_reports_which_strings_used_variables(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RJ_KEY", KEY)
    found: dict[tuple[str | int, ...], tuple[str, str]] = {}
    expanded = expand_environment(
        {"a": ["plain", "x-${RJ_KEY}"], "b": {"c": "${RJ_UNSET:-fallback}"}}, references=found
    )
    assert expanded == {"a": ["plain", f"x-{KEY}"], "b": {"c": "fallback"}}
    assert found == {
        ("a", 1): ("x-${RJ_KEY}", f"x-{KEY}"),
        ("b", "c"): ("${RJ_UNSET:-fallback}", "fallback"),
    }
