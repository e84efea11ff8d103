"""A value that may be stored as JSON text (MLflow keeps span attributes that way)."""

from __future__ import annotations

import json
from typing import Any

__all__ = ["decoded_json"]


def decoded_json(value: Any) -> Any:
    """``value`` parsed when it is JSON text; anything else (other text too) as it is."""
    if isinstance(value, str):
        try:
            return json.loads(value)
        except ValueError:
            return value
    return value
