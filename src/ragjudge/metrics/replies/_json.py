"""JSON object replies: a tolerant reader, and :class:`JsonReply`, which checks the
object against a pydantic model of the reply and derives its dry-run stand-in from the
model's schema."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any, Generic, TypeVar

from pydantic import BaseModel, ValidationError

from ragjudge.metrics.replies._base import ParseError, Reply, without_quotes

M = TypeVar("M", bound=BaseModel)

_FENCE = re.compile(r"```[ \t]*[A-Za-z0-9_-]*[ \t]*\r?\n?(.*?)```", re.DOTALL)


def parse_json_object(text: str) -> dict[str, Any]:
    """Extract the single JSON object a judge was asked to produce.

    Tolerated: a byte-order mark; markdown code fences (```` ```json ```` or bare
    ```` ``` ````; when fences hold an object only their contents are considered);
    prose before and after the object; trailing commas before ``}`` or ``]``;
    brace-delimited prose that is not valid JSON (it is skipped).

    Not tolerated (:class:`ParseError`): no object at all, a truncated object, a
    top-level array or scalar, several complete objects (ambiguous), and
    non-JSON syntax such as single quotes, comments, ``True``/``None``.
    """
    cleaned = text.lstrip("\ufeff").strip()
    if not cleaned:
        raise ParseError("empty judge output; expected a JSON object")
    direct = _loads_lenient(cleaned)
    if isinstance(direct, dict):
        return direct
    if direct is not None:
        raise ParseError(f"expected a JSON object, got a JSON {type(direct).__name__}")
    fenced = _FENCE.findall(cleaned)
    objects = [obj for region in fenced for obj in _objects_in(region)]
    if not objects:  # no fence, or fences that hold no object: the whole text
        objects = _objects_in(cleaned)
    if not objects:
        raise ParseError("no complete JSON object in the judge output")
    if len(objects) > 1:
        raise ParseError(f"found {len(objects)} JSON objects; expected exactly one")
    return objects[0]


def _objects_in(region: str) -> list[dict[str, Any]]:
    """Every top-level ``{...}`` span in ``region`` that parses as a JSON object."""
    found: list[dict[str, Any]] = []
    for span in _brace_spans(region):
        value = _loads_lenient(span)
        if isinstance(value, dict):
            found.append(value)
    return found


def _brace_spans(text: str) -> list[str]:
    """Balanced top-level ``{...}`` substrings, skipping braces inside JSON strings."""
    spans: list[str] = []
    depth = 0
    start = 0
    in_string = False
    escaped = False
    for index, char in enumerate(text):
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"' and depth > 0:
            in_string = True
        elif char == "{":
            if depth == 0:
                start = index
            depth += 1
        elif char == "}" and depth > 0:
            depth -= 1
            if depth == 0:
                spans.append(text[start : index + 1])
    return spans


def _loads_lenient(candidate: str) -> Any:
    """``json.loads`` after removing trailing commas; ``None`` when it still fails."""
    for attempt in (candidate, _drop_trailing_commas(candidate)):
        try:
            return json.loads(attempt)
        except ValueError:
            continue
    return None


def _drop_trailing_commas(text: str) -> str:
    """Remove commas that directly precede ``}`` or ``]`` (outside strings)."""
    kept: list[str] = []
    pending_comma: int | None = None
    in_string = False
    escaped = False
    for char in text:
        if in_string:
            kept.append(char)
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
            continue
        if char in "}]" and pending_comma is not None:
            del kept[pending_comma]
        if not char.isspace():
            pending_comma = None
        if char == ",":
            pending_comma = len(kept)
        elif char == '"':
            in_string = True
        kept.append(char)
    return "".join(kept)


class JsonReply(Reply[M], Generic[M]):
    """A JSON object checked against the pydantic ``model`` of the reply.

    The object is found by :func:`parse_json_object` (fences, prose around it and
    trailing commas are tolerated) among the lines that do not repeat the evaluated
    text; a missing field, a wrong type or a value outside a
    field's constraints is a :class:`ParseError` naming the field. The stand-in reply
    is built from the model's JSON schema (a field's first ``examples`` entry when it
    has one), so every reply model gets one for free.
    """

    def __init__(self, model: type[M]) -> None:
        self.model = model

    def parse(self, text: str, *, evaluated: Sequence[str] = ()) -> M:
        """The reply as a validated ``model`` instance; lines that repeat the evaluated
        text verbatim (the judge quoting it) are left out first."""
        own = without_quotes(text, evaluated)
        found = parse_json_object(own)
        try:
            return self.model.model_validate(found)
        except ValidationError as exc:
            raise ParseError(_describe(exc)) from None

    def reply_schema(self) -> dict[str, Any]:
        """The model's JSON schema."""
        return self.model.model_json_schema()

    def stand_in(self) -> str:
        """A JSON object that satisfies the model's schema."""
        schema = self.model.model_json_schema()
        return json.dumps(example_of(schema, schema.get("$defs", {})), ensure_ascii=False)


def _describe(exc: ValidationError) -> str:
    parts = []
    for error in exc.errors()[:3]:
        where = ".".join(str(p) for p in error["loc"]) or "the object"
        parts.append(f"'{where}': {error['msg']}")
    return "the JSON object does not fit: " + "; ".join(parts)


def example_of(schema: dict[str, Any], definitions: dict[str, Any]) -> Any:
    """A value that satisfies a (pydantic-generated) JSON schema."""
    if "$ref" in schema:
        return example_of(definitions[schema["$ref"].rsplit("/", 1)[-1]], definitions)
    if schema.get("examples"):
        return schema["examples"][0]
    if "const" in schema:
        return schema["const"]
    if schema.get("enum"):
        return schema["enum"][0]
    for key in ("anyOf", "oneOf", "allOf"):
        options = [o for o in schema.get(key, []) if o.get("type") != "null"]
        if options:
            return example_of(options[0], definitions)
    kind = schema.get("type", "object")
    if kind in ("integer", "number"):
        return _number_example(schema, integer=kind == "integer")
    if kind == "boolean":
        return True
    if kind == "array":
        item = example_of(schema.get("items", {"type": "string"}), definitions)
        return [item] * max(1, int(schema.get("minItems", 1)))
    if kind == "object":
        properties = schema.get("properties", {})
        return {name: example_of(sub, definitions) for name, sub in properties.items()}
    return "(dry run)"


def _number_example(schema: dict[str, Any], *, integer: bool) -> float | int:
    low: float | None = schema.get("minimum", schema.get("exclusiveMinimum"))
    high: float | None = schema.get("maximum", schema.get("exclusiveMaximum"))
    if low is not None and high is not None:
        value = (low + high) / 2
    elif low is not None:
        value = low + 1
    elif high is not None:
        value = high - 1
    else:
        value = 1.0 if integer else 0.5
    return round(value) if integer else float(value)
