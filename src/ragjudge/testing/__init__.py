"""Test helpers: a local OpenAI-compatible server with scripted replies and faults.

The server needs the ``dev`` extra (``starlette``, ``uvicorn``); it is imported on
first use so that ``python -m ragjudge.testing.server`` runs cleanly.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ragjudge.models.scripted import ReplyScript

if TYPE_CHECKING:
    from ragjudge.testing.server import FaultPlan, OpenAITestServer, ServerStats

__all__ = ["FaultPlan", "OpenAITestServer", "ReplyScript", "ServerStats"]

_SERVER_NAMES = frozenset({"FaultPlan", "OpenAITestServer", "ServerStats"})


def __getattr__(name: str) -> Any:
    if name in _SERVER_NAMES:
        try:
            from ragjudge.testing import server
        except ImportError as exc:
            raise ImportError(
                "ragjudge.testing needs starlette and uvicorn: pip install 'ragjudge[dev]'"
            ) from exc
        return getattr(server, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
