"""Structured replies: a judge call may carry the JSON schema of its reply (an
OpenAI-compatible ``response_format`` of type ``json_schema``), which servers that
constrain decoding (OpenAI, vLLM, Ollama …) keep the reply to.

The judge layer sends it as the model's ``structured`` setting says: ``auto`` sends it
and, when the endpoint refuses it, asks again as text — from then on every call of
the run to that endpoint is a text call, :attr:`ReplySchemas.note` says so once, and
the reply cache (when there is one) remembers the refusal for later runs; ``always``
sends it and lets a refusal fail the call; ``never`` never sends it.

No call waits to learn whether an endpoint takes schemas: most do, and waiting would
cost every run a round trip. An endpoint that refuses them refuses the calls already
sent with one, once; each is asked again as text at once.
"""

from __future__ import annotations

import logging
import re
import threading
from collections.abc import Awaitable, Callable, Mapping
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


Complete = Callable[[GenerateConfig], Awaitable[Attempts[Generation]]]
"""Makes one call with the given settings (cache, limits and retries included)."""
Record = Callable[[GenerateConfig, Attempts[Generation]], Awaitable[int | None]]
"""Records a call that ended; returns its id."""
Remember = Callable[[str], None]
"""Keeps an endpoint's refusal (its error's text) for later runs."""


class ReplySchemas:
    """What one endpoint does with reply schemas, learnt from its answers: the models of
    one run that talk to the same endpoint share one, so its first refusal turns them
    all to text replies and is told once (:attr:`note`). Thread-safe, and shared by
    calls on several event loops."""

    def __init__(self, remember: Remember | None = None) -> None:
        self._lock = threading.Lock()
        self._remember = remember
        self.refusal: str | None = None
        """The endpoint's answer when it refused a schema, once it has."""
        self.note: str | None = None
        """One line for the run's notes once a refusal turned calls to text replies."""

    def recall(self, who: str, refusal: str) -> None:
        """Start from a refusal an earlier run learnt (kept by :meth:`__init__`'s
        ``remember``): every call is a text call from the first."""
        with self._lock:
            self.refusal = refusal
            self.note = (
                f"{who} refused reply schemas in an earlier run ({_short(refusal)}); its "
                "judges were asked for text replies (structured: auto). The reply cache "
                "remembers it: 'ragjudge cache clear' forgets it"
            )

    async def answer(
        self,
        config: GenerateConfig,
        mode: StructuredMode,
        complete: Complete,
        record: Record,
        who: str,
    ) -> tuple[Attempts[Generation], GenerateConfig, list[int]]:
        """One call with ``config``'s reply schema sent as ``mode`` says: the outcome,
        the settings it was sent with, and the id of the call the endpoint refused for
        its schema (``auto``: recorded, then the call made again as text)."""
        sent = self._to_send(config, mode)
        outcome = await complete(sent)
        if not self._falls_back(sent, outcome, mode):
            return _explained(sent, outcome, mode), sent, []
        refused = await record(sent, self._refused(who, outcome))
        text = without_schema(sent)
        return await complete(text), text, [refused] if refused is not None else []

    def _to_send(self, config: GenerateConfig, mode: StructuredMode) -> GenerateConfig:
        """The settings a call sends."""
        if reply_schema(config) is None or mode == "always":
            return config
        if mode == "never" or self.refusal is not None:
            return without_schema(config)
        return config

    @staticmethod
    def _falls_back(
        sent: GenerateConfig, outcome: Attempts[Generation], mode: StructuredMode
    ) -> bool:
        """Whether a call that ended with ``outcome`` is asked again without its schema
        (``auto``, the schema was sent and the endpoint refused it)."""
        error = outcome.error
        refused = error is not None and reply_schema(sent) is not None and is_schema_refusal(error)
        return refused and mode == "auto"

    def _refused(self, who: str, outcome: Attempts[Generation]) -> Attempts[Generation]:
        """Learn that the endpoint refuses schemas (noted the first time); the refused
        call's outcome, its error saying the call is asked again as text."""
        assert outcome.error is not None
        error = outcome.error
        with self._lock:
            first = self.refusal is None
            if first:
                self.refusal = str(error)
                self.note = (
                    f"{who} refused reply schemas ({_short(str(error))}); its judges were asked "
                    "for text replies instead (structured: auto), without failing a sample"
                )
        if first:
            logger.warning("%s", self.note)
            if self._remember is not None:
                self._remember(str(error))
        told = ModelError(
            f"{error}; asked again for a text reply",
            kind=error.kind,
            status=error.status,
            retry_after=error.retry_after,
        )
        return replace(outcome, error=told)


def _explained(
    sent: GenerateConfig, outcome: Attempts[Generation], mode: StructuredMode
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


def _short(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= 160 else text[:157] + "..."
