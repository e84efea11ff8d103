"""The secret values this process knows of, masked by value wherever text is stored
or shown.

A run registers its secrets once, before it starts (:func:`register_secrets`): every
value that came from the environment through a ``${VAR}`` reference of its config, its
credential header values, the user-info of its URLs, the values of their key-like
query parameters and the keys of its models
(:func:`ragjudge.config._secrets.config_secrets`). From then on each of them is masked in every
form a server may echo it in (:func:`ragjudge._util.redact.encodings`: plain,
URL-encoded, JSON-escaped, base64 of the value and of a Basic credential) by the
store's writes (:mod:`ragjudge.store._file`), the reply cache, the command line's
output (:func:`masked_output`), the exports and the report.

Values shorter than :data:`~ragjudge._util.redact.MIN_SECRET_CHARS` are not masked
by value: searching for them would maim ordinary text. The registered values stay
known until the process ends (a later run of the same process masks them too).
"""

from __future__ import annotations

import json
import sys
import threading
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import IO, Any, TextIO, cast

from ragjudge._util.redact import MASK, encodings

__all__ = [
    "forget_secrets",
    "has_secrets",
    "holds_secrets",
    "mask_secrets",
    "mask_secrets_in",
    "mask_secrets_in_json",
    "masked_output",
    "register_secrets",
]

_lock = threading.Lock()
_values: set[str] = set()
_forms: tuple[str, ...] = ()
"""Every form of every registered value, longest first (a value that holds another is
masked whole); replaced as a whole, so readers never see it half built."""


def register_secrets(values: Iterable[str | None]) -> None:
    """Know ``values`` as secrets from now on (empty ones, ``${VAR}`` references and
    values too short to search for are left out)."""
    global _forms
    with _lock:
        fresh = {v for v in values if v and v not in _values}
        if not fresh:
            return
        _values.update(fresh)
        forms = set(_forms)
        for value in fresh:
            forms |= encodings(value)
        _forms = tuple(sorted(forms, key=len, reverse=True))


def forget_secrets() -> None:
    """Know no secret any more (for tests, which each start afresh)."""
    global _forms
    with _lock:
        _values.clear()
        _forms = ()


def has_secrets() -> bool:
    """Whether any secret is known (when none is, masking costs nothing)."""
    return bool(_forms)


def holds_secrets(text: str) -> bool:
    """Whether ``text`` holds any form of a known secret."""
    return any(form in text for form in _forms)


def mask_secrets(text: str) -> str:
    """``text`` with every form of every known secret replaced by ``***``."""
    for form in _forms:
        if form in text:
            text = text.replace(form, MASK)
    return text


def mask_secrets_in_json(text: str) -> str:
    """:func:`mask_secrets` for text that may be a JSON document: a document stays one
    (when masking in place would break it, its strings are masked one by one)."""
    masked = mask_secrets(text)
    if masked == text:
        return text
    try:
        document = json.loads(text)
    except ValueError:
        return masked
    try:
        json.loads(masked)
    except ValueError:
        return json.dumps(mask_secrets_in(document), ensure_ascii=False)
    return masked


def mask_secrets_in(value: Any) -> Any:
    """``value`` (strings, lists, tuples and dicts, nested) with the known secrets
    masked in every string, keys included; anything else as it is."""
    if not _forms:
        return value
    if isinstance(value, str):
        return mask_secrets(value)
    if isinstance(value, dict):
        return {mask_secrets_in(k): mask_secrets_in(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return type(value)(mask_secrets_in(v) for v in value)
    return value


class _MaskedStream:
    """A text stream that masks the known secrets in what is written to it; everything
    else (``isatty``, ``fileno``, ``encoding`` …) is the stream's own."""

    def __init__(self, stream: IO[str]) -> None:
        self._stream = stream

    def write(self, text: str) -> int:
        # bytes go through untouched, to fail as the stream fails (click probes with b"")
        self._stream.write(mask_secrets(text) if isinstance(text, str) else text)
        return len(text)

    def writelines(self, lines: Iterable[str]) -> None:
        for line in lines:
            self.write(line)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


@contextmanager
def masked_output() -> Iterator[None]:
    """Standard output and standard error mask the known secrets while the block runs
    (whatever prints: tables, errors, progress, warnings, tracebacks)."""
    saved = sys.stdout, sys.stderr
    if sys.stdout is not None:  # None without a console (pythonw)
        sys.stdout = cast(TextIO, _MaskedStream(sys.stdout))
    if sys.stderr is not None:
        sys.stderr = cast(TextIO, _MaskedStream(sys.stderr))
    try:
        yield
    finally:
        sys.stdout, sys.stderr = saved
