"""Secrets are never stored or echoed: the scrubbing rules, then real runs whose
store, cache, exports and CLI output are searched for a planted key."""

from __future__ import annotations

import pytest

from ragjudge.redact import (
    MASK,
    header_secrets,
    is_reference,
    is_secret_name,
    mask_record,
    scrub_text,
    scrub_url,
    url_secrets,
)

PLANTED = "sk-planted-4f2b9d71e3"


# -- the rules ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "name",
    [
        *("api_key", "apiKey", "X-Api-Key", "Authorization", "token", "access_token"),
        *("password", "client_secret", "key", "Ocp-Apim-Subscription-Key", "X-Auth-Token"),
        "Cookie",
    ],
)
def test_key_like_names(name: str) -> None:
    assert is_secret_name(name)


@pytest.mark.parametrize(
    "name",
    [
        *("api_key_env", "doc_uri_key", "content_key", "max_tokens", "token_url"),
        *("Content-Type", "model", "base_url", "query_field"),
    ],
)
def test_names_that_hold_no_secret(name: str) -> None:
    assert not is_secret_name(name)


@pytest.mark.parametrize(
    ("url", "shown"),
    [
        ("http://127.0.0.1:8000/v1", "http://127.0.0.1:8000/v1"),
        (f"https://user:{PLANTED}@h/v1", "https://***@h/v1"),
        (f"https://{PLANTED}@h/v1", "https://***@h/v1"),
        (f"http://h/a?api_key={PLANTED}&lang=ja", "http://h/a?api_key=***&lang=ja"),
        (f"http://h/a?key={PLANTED}&code=c0de&sig=s1g", "http://h/a?key=***&code=***&sig=***"),
        (f"http://h/a?q=1#access_token={PLANTED}", "http://h/a?q=1#access_token=***"),
        (
            "http://h/a?token=${TOKEN}&api-version=2024",
            "http://h/a?token=${TOKEN}&api-version=2024",
        ),
        ("http://h/a?token=", "http://h/a?token="),
    ],
)
def test_urls_lose_credentials_and_key_like_values(url: str, shown: str) -> None:
    assert scrub_url(url) == shown


def test_url_and_header_secrets_are_collected_for_text_scrubbing() -> None:
    assert PLANTED in url_secrets(f"http://u:{PLANTED}@h/?x=1")
    assert PLANTED in url_secrets(f"http://h/?apikey={PLANTED}")
    assert url_secrets("http://h/?token=${TOKEN}") == []
    headers = {"Authorization": f"Bearer {PLANTED}", "Content-Type": "application/json"}
    assert header_secrets(headers) == [f"Bearer {PLANTED}", PLANTED]


def test_text_loses_known_secrets_urls_bearer_tokens_and_assignments() -> None:
    quoted = PLANTED.replace("-", "%2D")
    text = (
        f"HTTP 401 from http://h/x?key={PLANTED}: invalid key {PLANTED} "
        f'({quoted}) "api_key": "{PLANTED}x" Authorization: Bearer abcdefgh123 token=zz99 '
        "max_tokens=5"
    )
    scrubbed = scrub_text(text, [PLANTED, None, "abc"])
    assert PLANTED not in scrubbed and "abcdefgh123" not in scrubbed and "zz99" not in scrubbed
    assert "http://h/x?key=***: invalid key ***" in scrubbed
    assert "max_tokens=5" in scrubbed
    assert scrub_text("a short abc stays", ["abc"]) == "a short abc stays"


def test_references_name_secrets_without_holding_them() -> None:
    assert is_reference("${KEY}") and is_reference("Bearer ${TOKEN}")
    assert is_reference("${USER}:${PASS:-x}")
    assert not is_reference("sk-${KEY}") and not is_reference("literal")


def test_records_keep_references_and_mask_the_rest() -> None:
    record = {
        "target": {
            "kind": "json_api",
            "url": f"http://h/answer?key={PLANTED}",
            "headers": {
                "X-Api-Key": "${RAG_KEY}",
                "Authorization": f"Bearer {PLANTED}",
                "X-Team": "search",
                "Content-Type": "application/json",
            },
            "api_key": PLANTED,
            "api_key_env": "RAG_KEY",
            "body_template": {"question": "{{query}}", "token": PLANTED},
        },
        "judge": {"base_url": f"https://u:{PLANTED}@judge/v1", "max_tokens": 5},
        "metrics": ["rouge_l", {"metric": "exact_match", "normalize": False}],
    }
    masked = mask_record(record)
    assert PLANTED not in str(masked)
    target = masked["target"]
    assert target["url"] == "http://h/answer?key=***"
    assert target["headers"] == {
        "X-Api-Key": "${RAG_KEY}",
        "Authorization": MASK,
        "X-Team": MASK,
        "Content-Type": "application/json",
    }
    assert target["api_key"] == MASK and target["api_key_env"] == "RAG_KEY"
    assert target["body_template"] == {"question": "{{query}}", "token": MASK}
    assert masked["judge"] == {"base_url": "https://***@judge/v1", "max_tokens": 5}
    assert masked["metrics"] == record["metrics"]
