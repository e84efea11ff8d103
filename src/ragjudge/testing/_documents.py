"""The test server's replies to requests that carry a reply schema: kept to the schema
as a server that constrains its decoding keeps them — the scripted reply's document
when it holds one valid against the schema, else a document built from the schema (a
constrained model always writes one)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from ragjudge.models._constrained import constrained_reply, schema_check
from ragjudge.models._types import ModelError

__all__ = ["document_for", "reply_kept_to"]

_FILLER = "(test server)"


def reply_kept_to(text: str, schema: Mapping[str, Any]) -> str:
    """``text`` as a reply constrained to ``schema`` (see the module docstring). A
    :class:`ModelError` when the schema is not one, or when the document built from it
    does not fit it (keywords such as ``pattern`` are not built for)."""
    kept = constrained_reply(text, schema)
    if kept is not None:
        return kept
    built = document_for(schema)
    if not schema_check(schema)(built):
        raise ModelError(
            "the test server cannot write a document valid against this json_schema",
            kind="client",
            status=400,
        )
    return json.dumps(built, ensure_ascii=False)


def document_for(schema: Mapping[str, Any]) -> Any:
    """A value for ``schema``: every property of an object, the fewest items an array
    may have, a number in the middle of its bounds, the first of an ``enum`` or of the
    choices of an ``anyOf``/``oneOf``."""
    return _value(schema, schema.get("$defs", {}))


def _value(schema: Mapping[str, Any], definitions: Mapping[str, Any]) -> Any:
    if "$ref" in schema:
        return _value(definitions[str(schema["$ref"]).rsplit("/", 1)[-1]], definitions)
    if "const" in schema:
        return schema["const"]
    if schema.get("enum"):
        return schema["enum"][0]
    for key in ("anyOf", "oneOf", "allOf"):
        if schema.get(key):
            return _value(schema[key][0], definitions)
    kind = schema.get("type", "object")
    if isinstance(kind, list):
        kind = kind[0] if kind else "object"
    if kind == "object":
        properties = schema.get("properties", {})
        return {name: _value(sub, definitions) for name, sub in properties.items()}
    if kind == "array":
        item = schema.get("items", {"type": "string"})
        return [_value(item, definitions) for _ in range(int(schema.get("minItems", 0)))]
    if kind in ("integer", "number"):
        return _number(schema, integer=kind == "integer")
    if kind == "boolean":
        return True
    if kind == "null":
        return None
    return _string(schema)


def _number(schema: Mapping[str, Any], *, integer: bool) -> int | float:
    low = schema.get("minimum", schema.get("exclusiveMinimum"))
    high = schema.get("maximum", schema.get("exclusiveMaximum"))
    if low is not None and high is not None:
        value = (low + high) / 2
    elif low is not None:
        value = low + 1
    elif high is not None:
        value = high - 1
    else:
        value = 1
    return round(value) if integer else float(value)


def _string(schema: Mapping[str, Any]) -> str:
    shortest = int(schema.get("minLength", 0))
    longest = schema.get("maxLength")
    text = _FILLER.ljust(shortest, ".")
    return text if longest is None else text[: int(longest)]
