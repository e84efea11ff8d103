"""Keeping secrets out of everything ragjudge stores and prints.

Three rules, applied wherever a URL, an error message or a configuration record is
formed:

- a URL is shown without credentials: its user-info becomes ``***`` and the value of
  every key-like query or fragment parameter (``api_key``, ``key``, ``token``,
  ``sig``, ``code`` …) becomes ``***`` (:func:`scrub_url`);
- a message has every URL in it scrubbed, ``Bearer …`` credentials and
  ``token=…``-style assignments masked (with the credential after a scheme word:
  ``Authorization: Basic …``), and every known secret value (the keys and header values
  in use) replaced by ``***`` in each form a server may echo it in (:func:`encodings`)
  (:func:`scrub_text`);
- a configuration record keeps ``${VAR}`` references as they are, masks the values
  of key-like fields and of every header but a few harmless ones, and scrubs the URLs
  in all its other strings (:func:`mask_record`).

A ``${VAR}`` reference is never masked: it names a secret without holding it. The
values a run knows to be secrets are also masked by value wherever text is stored or
shown (:mod:`ragjudge._util.known_secrets`).
"""

from __future__ import annotations

import base64
import binascii
import html
import json
import re
from collections.abc import Iterable, Mapping
from typing import Any
from urllib.parse import quote, quote_plus, unquote_plus

MASK = "***"
"""What a secret is replaced by."""

MIN_SECRET_CHARS = 6
"""Known secret values shorter than this are not searched for in text (a short
"key" would mask every word that holds it); name-based masking still hides them where
a key-like name says what they are."""

HARMLESS_HEADERS = frozenset(
    {
        "accept",
        "accept-encoding",
        "accept-language",
        "cache-control",
        "content-type",
        "user-agent",
    }
)
"""Headers whose values a stored config keeps; every other header value is masked
(a secret may travel under any header name)."""

_SECRET_WORDS = frozenset(
    {
        "apikey",
        "auth",
        "authorization",
        "cookie",
        "credential",
        "credentials",
        "passwd",
        "password",
        "pwd",
        "secret",
        "signature",
        "token",
    }
)
_KEY_QUALIFIERS = frozenset(
    {"access", "account", "api", "auth", "client", "master", "private", "secret", "signing"}
    | {"subscription", "x"}
)
_NOT_SECRET_LAST_WORDS = frozenset({"env", "field", "file", "name", "path", "uri", "url"})
"""``api_key_env``, ``token_url``: settings that name where a secret is, not secrets."""

_QUERY_SECRET_NAMES = frozenset({"code", "key", "sig"})
"""Query parameters that carry keys although their names say little (``?code=`` is
an Azure Functions key, ``?sig=`` a shared-access signature)."""

_REFERENCE = re.compile(r"\$\{[A-Za-z_][A-Za-z0-9_]*(?::-[^}]*)?\}")
_SCHEME_WORDS = r"(?:Bearer|Basic|Token|Bot|Digest|Negotiate)"
_SCHEME = re.compile(rf"^{_SCHEME_WORDS}\s+", re.IGNORECASE)
_URL = re.compile(r"\b[A-Za-z][A-Za-z0-9+.\-]*://[^\s\"'<>`]+")
_BEARER = re.compile(r"\b(Bearer)\s+[A-Za-z0-9._~+/=\-]{8,}", re.IGNORECASE)
_ASSIGNMENT = re.compile(
    r"\b([A-Za-z][A-Za-z0-9_\-]*)([\"']?\s*[=:]\s*[\"']?)"
    rf"((?:{_SCHEME_WORDS}\s+)?[^\s&\"',;}}]+)",
    re.IGNORECASE,
)
_CAMEL = re.compile(r"([a-z0-9])([A-Z])")


def is_secret_name(name: str) -> bool:
    """Whether a field, header or parameter of this name holds a secret: ``api_key``,
    ``token``, ``password``, ``Authorization``, ``X-Api-Key``, ``accessToken`` …
    but not ``api_key_env`` or ``doc_uri_key``."""
    words = _words(name)
    if not words or words[-1] in _NOT_SECRET_LAST_WORDS:
        return False
    if any(word in _SECRET_WORDS for word in words):
        return True
    return words[-1] == "key" and (len(words) == 1 or words[-2] in _KEY_QUALIFIERS)


def _words(name: str) -> list[str]:
    spaced = _CAMEL.sub(r"\1_\2", name)
    return [word for word in re.split(r"[^a-z0-9]+", spaced.lower()) if word]


def is_reference(value: str) -> bool:
    """Whether ``value`` is one or more ``${VAR}`` references (after an optional
    ``Bearer``/``Basic`` scheme word, joined by colons as in ``${USER}:${PASS}``): it
    names secrets without holding them."""
    rest = _SCHEME.sub("", value.strip())
    return bool(_REFERENCE.search(rest)) and not _REFERENCE.sub("", rest).strip(": ")


def scrub_url(url: str) -> str:
    """``url`` with its user-info and the values of key-like query and fragment
    parameters replaced by ``***``; everything else is kept as written."""
    head, sep, rest = url.partition("://")
    if not sep:
        return _scrub_parameters(url)
    cut = min((i for i in (rest.find(c) for c in "/?#") if i >= 0), default=len(rest))
    authority, tail = rest[:cut], rest[cut:]
    if "@" in authority:
        userinfo, host = authority.rsplit("@", 1)
        authority = f"{userinfo if is_reference(userinfo) else MASK}@{host}"
    return f"{head}://{authority}{_scrub_parameters(tail)}"


def _scrub_parameters(tail: str) -> str:
    """The path kept, the query's and fragment's key-like values masked."""
    path, qmark, after = tail.partition("?")
    if not qmark:
        path, hashmark, fragment = tail.partition("#")
        return path + hashmark + _scrub_pairs(fragment) if hashmark else tail
    query, hashmark, fragment = after.partition("#")
    scrubbed = path + "?" + _scrub_pairs(query)
    return scrubbed + hashmark + _scrub_pairs(fragment) if hashmark else scrubbed


def _scrub_pairs(query: str) -> str:
    pairs = []
    for pair in query.split("&"):
        name, eq, value = pair.partition("=")
        if eq and value and _is_secret_parameter(unquote_plus(name)) and not is_reference(value):
            pair = f"{name}={MASK}"
        pairs.append(pair)
    return "&".join(pairs)


def _is_secret_parameter(name: str) -> bool:
    return is_secret_name(name) or name.lower() in _QUERY_SECRET_NAMES


def url_secrets(url: str) -> list[str]:
    """The secret values written in ``url``: its user-info (and password) and the
    values of its key-like query parameters, for :func:`scrub_text`."""
    found: list[str] = []
    _, sep, rest = url.partition("://")
    authority = rest.split("/", 1)[0] if sep else ""
    if "@" in authority:
        userinfo = authority.rsplit("@", 1)[0]
        found += [userinfo, userinfo.partition(":")[2]]
    query = url.partition("?")[2].partition("#")[0]
    for pair in query.split("&"):
        name, _, value = pair.partition("=")
        if value and _is_secret_parameter(unquote_plus(name)):
            found += [value, unquote_plus(value)]
    return [s for s in found if s and not is_reference(s)]


def is_secret_header(name: str) -> bool:
    """Whether a header of this name carries a credential: a key-like name
    (:func:`is_secret_name`) or any name that ends in ``key`` (``X-Functions-Key``)
    or speaks of a session."""
    words = _words(name)
    return is_secret_name(name) or (bool(words) and words[-1] == "key") or "session" in words


def header_secrets(headers: Mapping[str, str] | None) -> list[str]:
    """The values of the credential headers (:func:`is_secret_header`) and, for
    ``Bearer xyz``, the credential ``xyz``, for :func:`scrub_text`. Other header
    values are left alone: searching messages for ``search`` would maim them."""
    found: list[str] = []
    for name, value in (headers or {}).items():
        if not value or not is_secret_header(name):
            continue
        found.append(value)
        credential = _SCHEME.sub("", value)
        if credential != value:
            found += [credential, *_basic_parts(value, credential)]
    return found


def _basic_parts(value: str, credential: str) -> list[str]:
    """For ``Basic base64(user:password)``, the decoded ``user:password`` and the
    password: a server may echo either."""
    if not value.lower().startswith("basic"):
        return []
    try:
        decoded = base64.b64decode(credential, validate=True).decode("utf-8")
    except (binascii.Error, UnicodeDecodeError):
        return []
    return [decoded, decoded.partition(":")[2]]


def scrub_text(text: str, secrets: Iterable[str | None] = ()) -> str:
    """``text`` with every known secret value masked in each of its forms
    (:func:`encodings`), its URLs scrubbed (:func:`scrub_url`), and ``Bearer …``
    credentials and ``token=…``-style assignments to key-like names masked (a scheme
    word and the credential after it alike)."""
    for secret in _variants(secrets):
        text = text.replace(secret, MASK)
    text = _URL.sub(_scrubbed_url_match, text)
    text = _BEARER.sub(lambda m: f"{m.group(1)} {MASK}", text)
    return _ASSIGNMENT.sub(_masked_assignment, text)


def _scrubbed_url_match(match: re.Match[str]) -> str:
    # Punctuation that ends a sentence or a message part is not part of the URL.
    url = match.group(0)
    bare = url.rstrip(".,;:!?)]}")
    return scrub_url(bare) + url[len(bare) :]


def _masked_assignment(match: re.Match[str]) -> str:
    name, sep, value = match.groups()
    if value == MASK or is_reference(value) or not is_secret_name(name):
        return match.group(0)
    return f"{name}{sep}{MASK}"


def _variants(secrets: Iterable[str | None]) -> list[str]:
    """Every form of every secret (:func:`encodings`); longest first, so a secret that
    contains another is masked whole."""
    found: set[str] = set()
    for secret in secrets:
        if secret:
            found |= encodings(secret)
    return sorted(found, key=len, reverse=True)


_ESCAPE = re.compile(r"%[0-9A-F]{2}")


def encodings(secret: str) -> set[str]:
    """The forms a server may echo ``secret`` in: as written; URL-encoded (``%XX`` in
    upper or lower case, ``/`` kept or encoded, ``+`` for a space); JSON-escaped (a
    slash escaped or not) and HTML-escaped; and in base64 (standard or URL-safe, with
    or without padding) of the value itself and of the value as either half of a Basic
    credential (``value:``, ``:value``; a URL's whole user-info ``user:value`` is a
    secret of its own). None for a ``${VAR}`` reference or a value shorter than
    :data:`MIN_SECRET_CHARS`."""
    if len(secret) < MIN_SECRET_CHARS or is_reference(secret):
        return set()
    escaped = json.dumps(secret)[1:-1]
    found = {
        secret,
        escaped,
        escaped.replace("/", "\\/"),  # encoders that escape slashes too
        json.dumps(secret, ensure_ascii=False)[1:-1],
        html.escape(secret),
    }
    for encoded in (quote(secret, safe=""), quote(secret), quote_plus(secret)):
        found |= {encoded, _ESCAPE.sub(lambda m: m.group(0).lower(), encoded)}
    for raw in (secret, f"{secret}:", f":{secret}"):
        found |= _base64_forms(raw.encode("utf-8"))
    return found


def _base64_forms(raw: bytes) -> set[str]:
    standard = base64.b64encode(raw).decode("ascii")
    urlsafe = base64.urlsafe_b64encode(raw).decode("ascii")
    return {standard, standard.rstrip("="), urlsafe, urlsafe.rstrip("=")}


def mask_value(value: str) -> str:
    """A secret-bearing value as a record may keep it: its ``${VAR}`` form as is,
    anything else ``***``."""
    return value if is_reference(value) else MASK


def mask_record(value: Any) -> Any:
    """A JSON-able configuration record fit to store and show: values of key-like
    fields and of every header but the harmless ones masked (``${VAR}`` references
    kept), the URLs in every other string scrubbed."""
    if isinstance(value, dict):
        return {key: _masked_item(str(key), item) for key, item in value.items()}
    if isinstance(value, list):
        return [mask_record(item) for item in value]
    if isinstance(value, str):
        return scrub_text(value)
    return value


def _masked_item(key: str, value: Any) -> Any:
    if key.lower() == "headers" and isinstance(value, dict):
        return {name: _masked_header(str(name), item) for name, item in value.items()}
    if is_secret_name(key) and isinstance(value, str):
        return mask_value(value)
    return mask_record(value)


def _masked_header(name: str, value: Any) -> Any:
    if not isinstance(value, str):
        return mask_record(value)
    return scrub_text(value) if name.lower() in HARMLESS_HEADERS else mask_value(value)
