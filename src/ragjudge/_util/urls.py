"""Joining an endpoint's path to a base URL that may carry a query string (Azure
OpenAI's ``?api-version=…``)."""

from __future__ import annotations

__all__ = ["join_path"]


def join_path(base_url: str, path: str) -> str:
    """``path`` appended to the path of ``base_url``, before its query and fragment:
    ``http://h/v1?api-version=1`` and ``chat/completions`` give
    ``http://h/v1/chat/completions?api-version=1``."""
    _, sep, rest = base_url.partition("://")
    start = len(base_url) - len(rest) if sep else 0
    cut = min((i for i in (base_url.find(c, start) for c in "?#") if i >= 0), default=None)
    head, tail = (base_url, "") if cut is None else (base_url[:cut], base_url[cut:])
    return f"{head.rstrip('/')}/{path.lstrip('/')}{tail}"
