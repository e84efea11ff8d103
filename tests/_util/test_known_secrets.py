"""The secrets a process knows: registered once, masked by value in text, in JSON
documents (which stay documents), in nested data and in what is printed."""

from __future__ import annotations

import base64
import json
import sys

import pytest
from rich.console import Console

from ragjudge._util.known_secrets import (
    forget_secrets,
    has_secrets,
    mask_secrets,
    mask_secrets_in,
    mask_secrets_in_json,
    masked_output,
    register_secrets,
)

SECRET = "pw-SECRET-c0ffee11"


def test_nothing_is_masked_before_a_secret_is_registered() -> None:
    assert not has_secrets()
    assert mask_secrets(f"pwd={SECRET}") == f"pwd={SECRET}"
    register_secrets([SECRET, None, "", "short", "${VAR}"])
    assert has_secrets()
    assert mask_secrets(f"pwd={SECRET}; short ${{VAR}}") == "pwd=***; short ${VAR}"
    forget_secrets()
    assert not has_secrets() and SECRET in mask_secrets(SECRET)


def test_a_value_holding_another_is_masked_whole() -> None:
    register_secrets(["abcdef-123", "abcdef-123-456789"])
    assert mask_secrets("x abcdef-123-456789 y abcdef-123 z") == "x *** y *** z"


def test_every_encoding_is_masked() -> None:
    register_secrets([SECRET, "u:" + SECRET])
    basic = base64.b64encode(f"u:{SECRET}".encode()).decode()
    text = f"Authorization: Basic {basic}; sig {base64.b64encode(SECRET.encode()).decode()}"
    assert mask_secrets(text) == "Authorization: Basic ***; sig ***"


def test_a_json_document_stays_one() -> None:
    # a secret that also reads as JSON punctuation: masked in place, it would take the
    # quotes and the comma between two members with it
    quoted = '", "zz'
    register_secrets([quoted])
    document = json.dumps({"a": "x", "zz": 1, "t": f"q{quoted}"})
    assert '"x", "zz"' in document
    masked = mask_secrets_in_json(document)
    assert json.loads(masked) == {"a": "x", "zz": 1, "t": "q***"}
    untouched = json.dumps({"text": "nothing here"})
    assert mask_secrets_in_json(untouched) is untouched
    assert mask_secrets_in_json(f"not json: {quoted}") == "not json: ***"


def test_nested_data_is_masked_in_keys_and_values() -> None:
    register_secrets([SECRET])
    data = {"url": f"http://h/?sid={SECRET}", SECRET: [1, (SECRET, 2.5)], "n": None}
    assert mask_secrets_in(data) == {
        "url": "http://h/?sid=***",
        "***": [1, ("***", 2.5)],
        "n": None,
    }


def test_what_is_printed_is_masked(capsys: pytest.CaptureFixture[str]) -> None:
    register_secrets([SECRET])
    with masked_output():
        print(f"cannot reach http://h/?pwd={SECRET}")
        print(f"error: {SECRET}", file=sys.stderr)
        Console(stderr=True).print(f"[bold]{SECRET}[/bold] in a table")
    print(f"after the block: {SECRET}")
    out, err = capsys.readouterr()
    assert out == f"cannot reach http://h/?pwd=***\nafter the block: {SECRET}\n"
    assert err == "error: ***\n*** in a table\n"
