"""The masking rules of ragjudge._util.redact that the planted-key runs of
tests/security/test_secrets.py do not spell out: the forms a secret is searched in, a
scheme word and its credential masked together, and Basic credentials taken apart."""

from __future__ import annotations

import base64
import json
from urllib.parse import quote, quote_plus

from ragjudge._util.redact import MASK, encodings, header_secrets, is_secret_name, scrub_text

SECRET = "sk-SECRET 7f/3a+9c"


def b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


def test_a_secret_is_searched_in_every_form_a_server_may_echo_it_in() -> None:
    forms = encodings(SECRET)
    expected = {
        SECRET,
        quote(SECRET, safe=""),
        "sk-SECRET%207f%2f3a%2b9c",  # the escapes in lower case
        quote(SECRET),
        quote_plus(SECRET),
        json.dumps(SECRET)[1:-1],
        json.dumps(SECRET)[1:-1].replace("/", "\\/"),
        b64(SECRET),
        b64(SECRET).rstrip("="),
        base64.urlsafe_b64encode(SECRET.encode()).decode(),
        b64(f"{SECRET}:"),
        b64(f":{SECRET}"),
    }
    assert expected <= forms
    assert encodings("u:" + SECRET) >= {b64("u:" + SECRET)}  # a URL's user-info, as Basic


def test_short_values_and_references_have_no_form() -> None:
    assert encodings("abcde") == set()
    assert encodings("${API_KEY}") == set()


def test_every_form_is_masked_in_text() -> None:
    text = " | ".join(sorted(encodings(SECRET)))
    scrubbed = scrub_text(text, [SECRET])
    assert set(scrubbed.split(" | ")) == {MASK}


# secrets-basic-echo: an echoed "Authorization: Basic" credential kept its base64 token
def test_a_scheme_word_is_masked_with_its_credential() -> None:
    token = b64("u:sk-SECRET-7f3a9c2e51")
    echoed = f"you sent {{'Accept': '*/*', 'Authorization': 'Basic {token}', 'X-Id': 'r1'}}"
    scrubbed = scrub_text(echoed)
    assert "'Authorization': '***'" in scrubbed
    assert token not in scrubbed and "'X-Id': 'r1'" in scrubbed
    assert scrub_text("authorization=Digest abcdef123") == "authorization=***"


def test_a_basic_header_gives_its_decoded_credential_and_password() -> None:
    value = f"Basic {b64('svc:pw-SECRET-c0ffee')}"
    found = header_secrets({"Authorization": value})
    assert found == [value, b64("svc:pw-SECRET-c0ffee"), "svc:pw-SECRET-c0ffee", "pw-SECRET-c0ffee"]
    assert header_secrets({"Authorization": "Basic not*base64"}) == [
        "Basic not*base64",
        "not*base64",
    ]


def test_pwd_is_a_key_like_name() -> None:
    assert is_secret_name("pwd") and is_secret_name("db_pwd")
