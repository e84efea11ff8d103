"""``ragjudge cache stats|clear``: the judge response cache beside a store (``--store``;
``--path`` names the cache file itself)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from ragjudge.cli._common import DEFAULT_STORE, StoreOption, fail, out, store_hint

if TYPE_CHECKING:
    from ragjudge.models._cache import ResponseCache

__all__ = ["register"]

cache_app = typer.Typer(help="The judge response cache.", no_args_is_help=True)
CachePathOption = Annotated[
    Path | None,
    typer.Option("--path", hidden=True, help="The cache file itself (default: beside --store)."),
]


def _existing_cache(store: Path, path: Path | None) -> tuple[ResponseCache, Path]:
    """The judge cache a run with this store uses (``cache.db`` beside it), or the file
    ``--path`` names; a file that is not a cache is a
    :class:`~ragjudge.models.CacheError`."""
    from ragjudge.models._cache import ResponseCache

    file = path if path is not None else store.parent / "cache.db"
    if not file.exists():
        raise fail(f"no cache at {file}; {store_hint(store if path is None else None)}")
    cache = ResponseCache(file)
    cache.check()
    return cache, file


@cache_app.command("stats")
def cache_stats(store: StoreOption = DEFAULT_STORE, path: CachePathOption = None) -> None:
    """Entries, lifetime hits and misses, and size of the judge cache beside the store."""
    cache, _ = _existing_cache(store, path)
    with cache:
        stats = cache.stats()
    for key, value in stats.model_dump().items():
        out.print(f"{key}: {value}")


@cache_app.command("clear")
def cache_clear(store: StoreOption = DEFAULT_STORE, path: CachePathOption = None) -> None:
    """Delete every cached judge reply of the cache beside the store."""
    cache, file = _existing_cache(store, path)
    with cache:
        removed = cache.clear()
    out.print(f"removed {removed} cached replies from {file}")


def register(app: typer.Typer) -> None:
    """Add ``cache`` to the ``ragjudge`` app."""
    app.add_typer(cache_app, name="cache")
