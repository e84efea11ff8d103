"""JSON object replies: the judge's own JSON document (the whole reply, or an object on
lines of its own — never an object inside a sentence or one copied from the data), and
:class:`JsonReply`, which checks it against a pydantic model of the reply and derives
its dry-run stand-in from the model's schema. A reply constrained to the model's JSON
schema is simply read: it is one document."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Annotated, Any, Generic, Literal, TypeVar

from pydantic import BaseModel, BeforeValidator, ValidationError

from ragjudge.metrics.replies._base import ParseError, Reply
from ragjudge.metrics.replies._data import data_index, freeze
from ragjudge.metrics.replies._scan import json_spans, loads_lenient
from ragjudge.metrics.replies._verdicts import MAX_VERDICT_PLACES

M = TypeVar("M", bound=BaseModel)


def _folded(value: Any) -> Any:
    return value.strip().lower() if isinstance(value, str) else value


YesNoWord = Annotated[Literal["yes", "no"], BeforeValidator(_folded)]
"""A verdict field of a JSON reply model: ``yes`` or ``no``, read in any case and with
spaces around it (``"Yes "`` is yes); anything else fails the model."""


def parse_json_object(text: str, *, evaluated: Sequence[str] = ()) -> dict[str, Any]:
    """The one JSON object a judge was asked to produce: its own JSON document.

    The document is the whole reply, or an object that stands on lines of its own —
    in a markdown code fence (```` ```json ````) or bare, with the judge's prose on
    other lines before or after it. Tolerated: a byte-order mark, trailing commas
    before ``}`` or ``]``, the same object written twice.

    Not the judge's document: an object written inside a sentence, and an object equal
    to one of the ``evaluated`` texts (the judge quoting the data, fenced or not).
    :class:`ParseError` for no document, a truncated one, a top-level array or scalar,
    two different documents (ambiguous), and non-JSON syntax such as single quotes,
    comments, ``True``/``None``.
    """
    found = own_documents(text, evaluated)
    distinct = list({freeze(value): value for value in found}.values())
    if len(distinct) > 1:
        raise ParseError(f"found {len(distinct)} different JSON objects; expected exactly one")
    return distinct[0]


def own_documents(text: str, evaluated: Sequence[str] = ()) -> list[dict[str, Any]]:
    """The JSON documents of the reply that do not reproduce the evaluated data (at
    least one, else :class:`ParseError` saying why there is none)."""
    cleaned = text.lstrip("\ufeff").strip()
    if not cleaned:
        raise ParseError("empty judge output; expected a JSON object")
    documents, inline = _documents(cleaned)
    data = data_index(evaluated) if evaluated else None
    own = [d for d in documents if data is None or not data.reproduces_object(d)]
    if own:
        return own
    if documents:
        raise ParseError(
            "the JSON object repeats an object of the evaluated text, so it cannot be told "
            "from a quotation of it; reply with your own JSON object"
        )
    if inline:
        raise ParseError(
            "the JSON object stands inside a sentence; reply with the JSON object alone, "
            "on lines of its own"
        )
    raise ParseError("no complete JSON object in the judge output")


def _documents(text: str) -> tuple[list[dict[str, Any]], int]:
    """The reply's standalone JSON objects, and how many objects sat inside prose."""
    whole = _whole(text)
    if whole is not None:
        return [whole], 0
    found: list[dict[str, Any]] = []
    inline = 0
    for span in json_spans(text):
        if len(found) + inline == MAX_VERDICT_PLACES:
            raise ParseError(
                f"the reply holds more than {MAX_VERDICT_PLACES} JSON objects; reply with one"
            )
        value = loads_lenient(text[span.start : span.end])
        if not isinstance(value, dict):
            continue
        if span.standalone:
            found.append(value)
        else:
            inline += 1
    return found, inline


def _whole(text: str) -> dict[str, Any] | None:
    """The reply as one JSON document (a reply constrained to a schema is one)."""
    try:
        value = json.loads(text)
    except RecursionError:
        raise ParseError("the JSON reply is nested too deeply") from None
    except ValueError:
        value = loads_lenient(text) if text.startswith("{") else None
    if value is None or isinstance(value, dict):
        return value
    raise ParseError(f"expected a JSON object, got a JSON {type(value).__name__}")


class JsonReply(Reply[M], Generic[M]):
    """A JSON object checked against the pydantic ``model`` of the reply.

    The object is the judge's own document (:func:`parse_json_object`: the whole reply,
    or an object on lines of its own, fenced or not; objects equal to one of the data
    are not the judge's); a missing field, a wrong type or a value outside a field's
    constraints is a :class:`ParseError` naming the field. The stand-in reply
    is built from the model's JSON schema (a field's first ``examples`` entry when it
    has one), so every reply model gets one for free.
    """

    def __init__(self, model: type[M]) -> None:
        self.model = model

    def parse(self, text: str, *, evaluated: Sequence[str] = ()) -> M:
        """The reply's own JSON document (:func:`parse_json_object`) as a validated
        ``model`` instance; documents that do not fit the model are passed over when
        exactly one other does."""
        fitting: dict[Any, M] = {}
        problem: str | None = None
        for found in own_documents(text, evaluated):
            try:
                parsed = self.model.model_validate(found)
            except ValidationError as exc:
                problem = _describe(exc)
                continue
            fitting.setdefault(freeze(parsed.model_dump(mode="json")), parsed)
        if len(fitting) > 1:
            raise ParseError(f"found {len(fitting)} different JSON objects; expected exactly one")
        if not fitting:
            raise ParseError(problem or "no complete JSON object in the judge output")
        return next(iter(fitting.values()))

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
