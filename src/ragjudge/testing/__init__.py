"""Test helpers: a local OpenAI-compatible server with scripted replies and faults, and
a runner that serves any ASGI app on a loopback port in a background thread.

Both need the ``serve`` extra (``starlette``, ``uvicorn``; the ``dev`` extra has them too); they are imported on first
use so that ``python -m ragjudge.testing.server`` runs cleanly.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from ragjudge._util.extras import missing_extra_message
from ragjudge.errors import MissingExtra
from ragjudge.models.scripted import ReplyScript

if TYPE_CHECKING:
    from ragjudge.testing.background import BackgroundASGIServer
    from ragjudge.testing.server import FaultPlan, OpenAITestServer, ServerStats

__all__ = ["BackgroundASGIServer", "FaultPlan", "OpenAITestServer", "ReplyScript", "ServerStats"]

_MODULE_OF_NAME = {
    "BackgroundASGIServer": "ragjudge.testing.background",
    "FaultPlan": "ragjudge.testing.server",
    "OpenAITestServer": "ragjudge.testing.server",
    "ServerStats": "ragjudge.testing.server",
}


def __getattr__(name: str) -> Any:
    module_name = _MODULE_OF_NAME.get(name)
    if module_name is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise MissingExtra(
            missing_extra_message("serve", "ragjudge.testing"), extra="serve"
        ) from exc
    return getattr(module, name)
