"""Reply schemas shared by the models of one endpoint in a run, and remembered in the
reply cache across runs (see :mod:`ragjudge.models._structured`)."""

from __future__ import annotations

from collections.abc import Sequence

from ragjudge.models import JudgeModel
from ragjudge.models._cache import provider_endpoint
from ragjudge.models._structured import ReplySchemas

__all__ = ["REFUSED_SCHEMAS_KEY", "schema_notes", "share_reply_schemas"]

REFUSED_SCHEMAS_KEY = "endpoint refused reply schemas: "
"""Prefix of the reply-cache key under which an endpoint's refusal of reply schemas is
kept (followed by the endpoint; reply keys are hex digests, so none can clash)."""


def share_reply_schemas(models: Sequence[JudgeModel]) -> None:
    """Give the models of one endpoint one record of what it does with reply schemas
    (:class:`~ragjudge.models._structured.ReplySchemas`): its first refusal turns them
    all to text replies, and the run's notes say so once. With a reply cache, the
    refusal is kept there, and a later run starts from it."""
    by_endpoint: dict[str, ReplySchemas] = {}
    for model in models:
        endpoint = provider_endpoint(model.provider)
        if endpoint is None:
            continue
        if endpoint not in by_endpoint:
            by_endpoint[endpoint] = _remembering_schemas(model, endpoint)
        model.schemas = by_endpoint[endpoint]


def _remembering_schemas(model: JudgeModel, endpoint: str) -> ReplySchemas:
    """What ``endpoint`` does with reply schemas, as ``model``'s reply cache remembers
    it from earlier runs (and will remember a refusal learnt in this one)."""
    cache = model.cache
    if cache is None:
        return model.schemas
    key = REFUSED_SCHEMAS_KEY + endpoint
    schemas = ReplySchemas(remember=lambda refusal: cache.put(key, {"refusal": refusal}))
    kept = cache.recall(key)
    if kept is not None and model.settings.structured == "auto":
        schemas.recall(f"the judge endpoint {endpoint}", str(kept.get("refusal", "")))
    return schemas


def schema_notes(models: Sequence[JudgeModel]) -> list[str]:
    """What the run's notes say about reply schemas: each endpoint's refusal, once."""
    notes: list[str] = []
    for model in models:
        note = model.schemas.note
        if note is not None and note not in notes:
            notes.append(note)
    return notes
