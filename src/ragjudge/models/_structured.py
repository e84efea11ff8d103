"""Structured replies: a judge call may carry the JSON schema of its reply (an
OpenAI-compatible ``response_format`` of type ``json_schema``), which servers that
constrain decoding (OpenAI, vLLM, Ollama …) keep the reply to.

The judge layer sends it as the model's ``structured`` setting says: ``auto`` sends it
and, when the endpoint refuses it, asks again as text — from then on every call of
the run to that endpoint is a text call, and :attr:`ReplySchemas.note` says so once;
``always`` sends it and lets a refusal fail the call; ``never`` never sends it.
"""

from __future__ import annotations

import logging
import re
import threading
from collections.abc import Mapping
from dataclasses import replace
from typing import Any, Literal

from ragjudge.models._results import Attempts
from ragjudge.models._types import GenerateConfig, Generation, ModelError

__all__ = [
    "SCHEMA_REFUSAL",
    "ReplySchemas",
    "StructuredMode",
    "format_schema",
    "is_schema_refusal",
    "reply_schema",
    "schema_format",
    "without_schema",
]

logger = logging.getLogger(__name__)

StructuredMode = Literal["auto", "always", "never"]
"""When the judge layer sends a reply's JSON schema (see the module docstring)."""

SCHEMA_REFUSAL = "'response_format' of type 'json_schema' is not supported by this model"
"""How the scripted model and the test server word a refused schema (as OpenAI does)."""

_REFUSAL_WORDS = re.compile(
    r"response_format|json_schema|structured output|unsupported|not supported", re.IGNORECASE
)
_NOT_ABOUT_THE_REQUEST = (401, 403, 404)
"""Client errors that are about the key or the model name, never about the schema."""
_NAME_CHARACTERS = re.compile(r"[^A-Za-z0-9_-]+")


def schema_format(schema: Mapping[str, Any], name: str | None = None) -> dict[str, Any]:
    """The ``response_format`` that asks for a reply valid against ``schema``, named
    ``name`` (else the schema's title). The schema's ``examples`` are left out: they
    describe the dry run's stand-in replies, and a judge shown them may copy them."""
    title = name or str(schema.get("title") or "reply")
    wire_name = _NAME_CHARACTERS.sub("_", title).strip("_")[:64] or "reply"
    return {
        "type": "json_schema",
        "json_schema": {"name": wire_name, "schema": _without_examples(schema)},
    }


def _without_examples(schema: Any) -> Any:
    """``schema`` without its ``examples`` keywords (property names are kept, whatever
    they are called)."""
    if isinstance(schema, list):
        return [_without_examples(item) for item in schema]
    if not isinstance(schema, Mapping):
        return schema
    kept: dict[str, Any] = {}
    for key, value in schema.items():
        if key == "examples":
            continue
        if key in ("properties", "$defs", "definitions") and isinstance(value, Mapping):
            kept[key] = {name: _without_examples(sub) for name, sub in value.items()}
        else:
            kept[key] = _without_examples(value)
    return kept


def reply_schema(config: GenerateConfig | None) -> dict[str, Any] | None:
    """The JSON schema ``config`` asks the reply to satisfy; None for a text reply."""
    return format_schema(config.response_format if config is not None else None)


def format_schema(response_format: Any) -> dict[str, Any] | None:
    """The JSON schema a ``response_format`` names; None for none, or for one that
    names no schema (``json_object``)."""
    if not isinstance(response_format, Mapping) or response_format.get("type") != "json_schema":
        return None
    spec = response_format.get("json_schema")
    schema = spec.get("schema") if isinstance(spec, Mapping) else None
    return dict(schema) if isinstance(schema, Mapping) else None


def without_schema(config: GenerateConfig) -> GenerateConfig:
    """``config`` asking for a text reply."""
    return config.model_copy(update={"response_format": None})


def is_schema_refusal(error: ModelError) -> bool:
    """Whether ``error`` is an endpoint refusing a reply schema: a client error (a 400,
    or a 422 of a server that checks its request bodies) naming ``response_format`` or
    ``json_schema``, or saying the request is unsupported. Authentication and unknown
    models (401, 403, 404) never are."""
    if error.kind != "client" or error.status in _NOT_ABOUT_THE_REQUEST:
        return False
    return _REFUSAL_WORDS.search(str(error)) is not None


class ReplySchemas:
    """What one endpoint does with reply schemas, learnt from its answers: the models of
    one run that talk to the same endpoint share one, so its first refusal turns them
    all to text replies and is told once (:attr:`note`). Thread-safe."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.refusal: str | None = None
        """The endpoint's answer when it refused a schema, once it has."""
        self.note: str | None = None
        """One line for the run's notes once a refusal turned calls to text replies."""

    def to_send(self, config: GenerateConfig, mode: StructuredMode) -> GenerateConfig:
        """The config a call sends: its schema left out under ``never``, and under
        ``auto`` once the endpoint has refused one."""
        if reply_schema(config) is None:
            return config
        if mode == "never" or (mode == "auto" and self.refusal is not None):
            return without_schema(config)
        return config

    def falls_back(
        self, sent: GenerateConfig, outcome: Attempts[Generation], mode: StructuredMode
    ) -> bool:
        """Whether a call that ended with ``outcome`` is asked again without its schema
        (``auto``, the schema was sent and the endpoint refused it)."""
        error = outcome.error
        refused = error is not None and reply_schema(sent) is not None and is_schema_refusal(error)
        return refused and mode == "auto"

    def refused(self, who: str, outcome: Attempts[Generation]) -> Attempts[Generation]:
        """Learn that the endpoint refuses schemas (noted the first time); the refused
        call's outcome, its error saying the call is asked again as text."""
        assert outcome.error is not None
        error = outcome.error
        with self._lock:
            first = self.refusal is None
            if first:
                self.refusal = str(error)
                self.note = (
                    f"{who} refused reply schemas ({_short(error)}); its judges were asked "
                    "for text replies instead (structured: auto), without failing a sample"
                )
        if first:
            logger.warning("%s", self.note)
        told = ModelError(
            f"{error}; asked again for a text reply",
            kind=error.kind,
            status=error.status,
            retry_after=error.retry_after,
        )
        return replace(outcome, error=told)

    def explained(
        self, sent: GenerateConfig, outcome: Attempts[Generation], mode: StructuredMode
    ) -> Attempts[Generation]:
        """``outcome``, its error saying what to set when ``always`` sent a schema the
        endpoint refused."""
        error = outcome.error
        if mode != "always" or error is None or reply_schema(sent) is None:
            return outcome
        if not is_schema_refusal(error):
            return outcome
        told = ModelError(
            f"{error} (structured: always sends reply schemas; 'auto' falls back to text "
            "replies when the endpoint refuses them)",
            kind=error.kind,
            status=error.status,
        )
        return replace(outcome, error=told)


def _short(error: ModelError) -> str:
    text = " ".join(str(error).split())
    return text if len(text) <= 160 else text[:157] + "..."
