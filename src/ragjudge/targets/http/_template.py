"""Request bodies with ``{{placeholder}}`` values filled from each sample."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from ragjudge.schema import Sample
from ragjudge.targets._targets import TargetSetupError
from ragjudge.targets.http._client import excerpt

PLACEHOLDERS = ("query", "history", "messages", "request_id", "request")
_PLACEHOLDER = re.compile(r"\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}")


class BodyTemplate:
    """A JSON request body with ``{{placeholder}}`` strings.

    Placeholders: ``query`` (the latest user message), ``history`` (the earlier
    messages), ``messages`` (the whole conversation), ``request_id`` and ``request``
    (the request as the evaluation set held it). A string that is exactly one
    placeholder is replaced by its JSON value (``"{{messages}}"`` becomes a list); a
    placeholder inside a longer string is replaced by its text (non-strings as JSON).
    Only values are templated, not object keys. The substitution works on the parsed
    structure, never on JSON text, so no value can break out of its string.
    """

    def __init__(self, template: Any) -> None:
        if isinstance(template, str):
            template = _parse_template_text(template)
        self.template = template
        self.names = frozenset(_placeholders_in(template))
        unknown = sorted(self.names - set(PLACEHOLDERS))
        if unknown:
            raise TargetSetupError(
                f"body template uses unknown placeholders {unknown}; known: {list(PLACEHOLDERS)}"
            )

    def render(self, values: Mapping[str, Any]) -> Any:
        """The body with every placeholder replaced from ``values``."""
        return _render(self.template, values)

    @staticmethod
    def values_for(sample: Sample) -> dict[str, Any]:
        """The placeholder values of one sample."""
        request = sample.request
        return {
            "query": request.query,
            "history": [m.model_dump() for m in request.history],
            "messages": [m.model_dump() for m in request.messages],
            "request_id": sample.request_id,
            "request": request.original,
        }


def _parse_template_text(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError as exc:
        raise TargetSetupError(
            f"body template {excerpt(text, 80)!r} is not JSON ({exc}); write a placeholder "
            'that stands for a list or object as a string, e.g. {"messages": "{{messages}}"}'
        ) from None


def _placeholders_in(template: Any) -> list[str]:
    if isinstance(template, str):
        return _PLACEHOLDER.findall(template)
    if isinstance(template, dict):
        return [n for v in template.values() for n in _placeholders_in(v)]
    if isinstance(template, list):
        return [n for v in template for n in _placeholders_in(v)]
    return []


def _render(template: Any, values: Mapping[str, Any]) -> Any:
    if isinstance(template, dict):
        return {k: _render(v, values) for k, v in template.items()}
    if isinstance(template, list):
        return [_render(v, values) for v in template]
    if not isinstance(template, str):
        return template
    whole = _PLACEHOLDER.fullmatch(template.strip())
    if whole:
        return values[whole.group(1)]
    return _PLACEHOLDER.sub(lambda m: as_text(values[m.group(1)]), template)


def as_text(value: Any) -> str:
    """A string as is, anything else as compact JSON."""
    return value if isinstance(value, str) else compact_json(value)


def compact_json(value: Any) -> str:
    """``value`` as JSON text, non-ASCII characters kept."""
    return json.dumps(value, ensure_ascii=False)
