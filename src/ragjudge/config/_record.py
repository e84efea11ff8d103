"""The ``${VAR}`` references a config's record keeps: where a string may carry a
secret, the record holds the reference as written, never its expansion."""

from __future__ import annotations

from typing import Any

from ragjudge._util.redact import is_secret_name

__all__ = ["restore_references"]


def restore_references(
    record: dict[str, Any], references: dict[tuple[str | int, ...], tuple[str, str]]
) -> None:
    """Put back, in ``record``, the ``${VAR}`` form of each referenced string that may
    carry a secret (``references``: place → as written and as expanded)."""
    for path, (written, expanded) in references.items():
        if _may_hold_secret(path):
            _restore_reference(record, path, written, expanded)


def _may_hold_secret(path: tuple[str | int, ...]) -> bool:
    """Whether a string at ``path`` may carry a secret: the target's and the
    retriever's settings (keys, headers, URLs, request bodies) and key-like fields.
    Other strings (paths, names) keep their expansion, which a resumed run needs."""
    if path and path[0] in ("target", "retriever"):
        return True
    return any(isinstance(step, str) and is_secret_name(step) for step in path)


def _restore_reference(
    record: dict[str, Any], path: tuple[str | int, ...], written: str, expanded: str
) -> None:
    """Put the ``${VAR}`` form back at ``path`` if the record still holds its expansion
    there (an override or a reshaped value is left alone)."""
    parent: Any = record
    for step in path[:-1]:
        try:
            parent = parent[step]
        except (KeyError, IndexError, TypeError):
            return
    last = path[-1]
    holds = isinstance(parent, dict) and last in parent
    holds = holds or (isinstance(parent, list) and isinstance(last, int) and last < len(parent))
    if holds and parent[last] == expanded:
        parent[last] = written
