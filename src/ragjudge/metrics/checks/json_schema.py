"""``json_schema``: 1 when the response is a JSON document valid against a JSON schema
(given inline or in a file beside the config), checked with the ``jsonschema``
package (the ``jsonschema`` extra)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Any, ClassVar, Self

from pydantic import field_validator, model_validator

from ragjudge._util.extras import missing_extra_message
from ragjudge._util.textfiles import read_text_file
from ragjudge.errors import TextFileError
from ragjudge.metrics._base import MetricContext, MetricFailure, Result, require_response
from ragjudge.metrics._options import ConfigPath
from ragjudge.metrics._registry import register_metric
from ragjudge.metrics.checks._json import FenceOptions, NotJson, parse_response
from ragjudge.metrics.checks._shared import CheckMetric
from ragjudge.schema import Output, Sample, ScoreMeaning

EXTRA = "jsonschema"


class SchemaOptions(FenceOptions):
    """The schema: ``json_schema`` (the schema itself) or ``schema_file`` (a JSON file,
    relative to the config's folder)."""

    json_schema: dict[str, Any] | None = None
    schema_file: Annotated[str | None, ConfigPath()] = None

    @field_validator("json_schema")
    @classmethod
    def _is_a_schema(cls, schema: dict[str, Any] | None) -> dict[str, Any] | None:
        if schema is not None:
            checked_validator(schema)
        return schema

    @field_validator("schema_file")
    @classmethod
    def _holds_a_schema(cls, path: str | None) -> str | None:
        if path is not None:
            checked_validator(read_schema_file(path))
        return path

    @model_validator(mode="after")
    def _one_schema(self) -> Self:
        if (self.json_schema is None) == (self.schema_file is None):
            raise ValueError("give the schema as 'json_schema' or as 'schema_file', one of them")
        return self

    def given_schema(self) -> dict[str, Any]:
        """The schema the options give."""
        if self.json_schema is not None:
            return self.json_schema
        assert self.schema_file is not None  # _one_schema saw to it
        return read_schema_file(self.schema_file)


@register_metric("json_schema")
class JsonSchema(CheckMetric):
    """1 when the response parses as JSON and the document is valid against the schema;
    a fail names the JSON path of the first violation (``details["path"]``)."""

    Options = SchemaOptions
    options: SchemaOptions
    extra = EXTRA
    example_options: ClassVar[Mapping[str, Any]] = {"json_schema": {"type": "object"}}
    meaning = ScoreMeaning(
        binary=True, description="share of responses that are JSON valid against the schema"
    )

    def __init__(self, *, name: str | None = None, **options: Any) -> None:
        super().__init__(name=name, **options)
        self.validator = checked_validator(self.options.given_schema())

    def compute_now(self, sample: Sample, output: Output, ctx: MetricContext) -> Result:
        """Pass, or fail with where the document breaks the schema (or is not JSON)."""
        if self.validator is None:
            raise MetricFailure(missing_extra_message(EXTRA, "the json_schema metric"))
        from jsonschema.exceptions import best_match

        try:
            document = parse_response(require_response(output), self.options)
        except NotJson as exc:
            return Result(0.0, rationale=str(exc), details={"path": None})
        errors = list(self.validator.iter_errors(document))
        first = best_match(errors)
        if first is None:
            return Result(1.0, details={"violations": 0})
        return Result(
            0.0,
            rationale=f"{first.json_path}: {first.message}",
            details={"path": first.json_path, "violations": len(errors)},
        )


def read_schema_file(path: str) -> dict[str, Any]:
    """The JSON schema in the file at ``path``; ``ValueError`` saying what is wrong."""
    try:
        schema = json.loads(read_text_file(Path(path)))
    except FileNotFoundError:
        raise ValueError(f"{path}: no such file") from None
    except OSError as exc:
        raise ValueError(f"{path}: cannot read it: {exc.strerror or exc}") from None
    except TextFileError as exc:
        raise ValueError(str(exc)) from None
    except json.JSONDecodeError as exc:
        raise ValueError(f"{path}: not JSON: {exc.msg} at line {exc.lineno}") from None
    if not isinstance(schema, dict):
        raise ValueError(f"{path}: a JSON schema is an object, not {type(schema).__name__}")
    return schema


def checked_validator(schema: dict[str, Any]) -> Any:
    """A validator of ``schema`` (of the draft its ``$schema`` names, else the latest),
    or ``ValueError`` when the schema breaks its draft's rules; None without the
    ``jsonschema`` extra (a run refuses the metric for its missing extra before any row
    is read, and ``ragjudge metrics`` still describes it)."""
    try:
        from jsonschema import validators
        from jsonschema.exceptions import SchemaError
    except ImportError:
        return None
    cls = validators.validator_for(schema)
    try:
        cls.check_schema(schema)
    except SchemaError as exc:
        raise ValueError(f"not a valid JSON schema: {exc.json_path}: {exc.message}") from None
    return cls(schema)
