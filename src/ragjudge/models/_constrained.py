"""Replies kept to a JSON schema, as a server that constrains its decoding to the
schema writes them: what the scripted model and the local test server answer a call
that carries a reply schema. Schemas are checked with :mod:`jsonschema` (imported on
first use; without it a call with a schema is refused as an endpoint without
structured outputs refuses it)."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from typing import Any

from ragjudge.models._structured import SCHEMA_REFUSAL
from ragjudge.models._types import ModelError

__all__ = ["constrained_reply", "schema_check"]

_VALUE_START = re.compile(r"[{\[]")


def schema_check(schema: Mapping[str, Any]) -> Callable[[Any], bool]:
    """Whether a value is valid against ``schema``. A :class:`ModelError` (a client
    error, as a server answers 400) when ``schema`` is not a JSON schema, or when the
    ``jsonschema`` package is missing."""
    try:
        from jsonschema import validators
        from jsonschema.exceptions import SchemaError
    except ImportError:
        raise ModelError(
            f"{SCHEMA_REFUSAL}: keeping replies to a schema needs the jsonschema package "
            "(pip install jsonschema)",
            kind="client",
            status=400,
        ) from None
    checker = validators.validator_for(schema, default=validators.Draft202012Validator)
    try:
        checker.check_schema(schema)
    except SchemaError as exc:
        raise ModelError(
            f"invalid 'response_format' json_schema: {exc.message}", kind="client", status=400
        ) from None
    is_valid: Callable[[Any], bool] = checker(schema).is_valid
    return is_valid


def constrained_reply(text: str, schema: Mapping[str, Any]) -> str | None:
    """The JSON document in ``text`` that is valid against ``schema``, written compactly
    as a constrained reply is (the whole text when it is one, else the first value
    that starts at a ``{`` or ``[`` and fits); None when ``text`` holds none."""
    fits = schema_check(schema)
    found = _first_fitting(text, fits)
    return None if found is None else json.dumps(found[0], ensure_ascii=False)


def _first_fitting(text: str, fits: Callable[[Any], bool]) -> tuple[Any] | None:
    """The first JSON value of ``text`` that ``fits``, in a 1-tuple (the value may be
    ``null``); None when there is none."""
    try:
        whole = json.loads(text)
    except ValueError:
        pass
    else:
        if fits(whole):
            return (whole,)
    decoder = json.JSONDecoder()
    for start in _VALUE_START.finditer(text):
        try:
            value, _ = decoder.raw_decode(text, start.start())
        except ValueError:
            continue
        if fits(value):
            return (value,)
    return None
