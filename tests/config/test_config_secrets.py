"""The secrets of a run's configuration, which the run registers so that they are
masked by value wherever they appear: every value a ``${VAR}`` reference brought in,
whatever it is called, header values, URL credentials and the judge's key."""

from __future__ import annotations

import base64
import textwrap
from pathlib import Path

import pytest

from ragjudge.config import EvalConfig, load_config
from ragjudge.config._secrets import config_secrets

PWD = "pw-SECRET-c0ffee11"
FKEY = "fk-SECRET-deadbeef"
SID = "si-SECRET-88d1e0aa"
JUDGE_KEY = "jk-SECRET-5e1d07"


@pytest.fixture
def environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for name, value in {
        "RJ_PWD": PWD,
        "RJ_FKEY": FKEY,
        "RJ_SID": SID,
        "RJ_JUDGE_KEY": JUDGE_KEY,
        "RJ_PORT": "8123",
    }.items():
        monkeypatch.setenv(name, value)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)


# secrets-query-values: ${VAR} values under query names such as pwd= were kept in clear
def test_values_from_the_environment_are_secrets_whatever_their_names(
    environment: None, tmp_path: Path
) -> None:
    config = tmp_path / "eval.yaml"
    config.write_text(
        textwrap.dedent(
            """
            data: set.jsonl
            target:
              kind: json_api
              url: "http://127.0.0.1:${RJ_PORT}/answer?pwd=${RJ_PWD}&x-functions-key=${RJ_FKEY}&sid=${RJ_SID}"
              body_template: {q: "{{query}}"}
              response_path: answer
            metrics: [token_f1]
            """
        )
    )
    found = set(config_secrets(load_config(config)))
    assert {PWD, FKEY, SID, "8123"} <= found  # a short one too: registering leaves it out


def test_credential_headers_url_credentials_keys_and_the_judges_key_are_secrets(
    environment: None,
) -> None:
    basic = base64.b64encode(b"svc:hdr-SECRET-77aa").decode()
    config = EvalConfig(
        data="set.jsonl",
        metrics=["token_f1"],
        target={
            "kind": "openai_chat",
            "base_url": "http://u:${RJ_PWD}@127.0.0.1:9/v1?api-version=2024-10-21",
            "model": "rag",
            "api_key": "literal-key-4c2d",
            "headers": {
                "X-Functions-Key": "fn-key-SECRET-3",
                "X-Team": "search",
                "Authorization": f"Basic {basic}",
                "Content-Type": "application/json",
            },
        },
        retriever={"kind": "http", "url": "http://127.0.0.1:9/search?code=code-SECRET-91"},
        judge={"model": "openai/judge", "api_key_env": "RJ_JUDGE_KEY", "base_url": "http://j/v1"},
    )
    found = set(config_secrets(config))
    assert {PWD, "literal-key-4c2d", "fn-key-SECRET-3", "code-SECRET-91", JUDGE_KEY} <= found
    assert {"svc:hdr-SECRET-77aa", "hdr-SECRET-77aa"} <= found  # the Basic credential, decoded
    # written in the file under names that hold no credential: not searched for
    assert not {"search", "application/json", "2024-10-21"} & found


def test_the_judge_key_from_openai_api_key_is_a_secret(
    environment: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-from-the-environment-1")
    config = EvalConfig(data="set.jsonl", metrics=["token_f1"], judge="openai/gpt-4o-mini")
    assert "sk-from-the-environment-1" in config_secrets(config)
    local = EvalConfig(
        data="set.jsonl", metrics=["token_f1"], judge={"model": "openai/m", "base_url": "http://h"}
    )
    monkeypatch.delenv("OPENAI_API_KEY")
    assert config_secrets(local) == []  # the stand-in key of a local server is none
