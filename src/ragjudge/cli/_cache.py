"""``ragjudge cache stats|clear``: the judge response cache beside a store (``--store``;
``--path`` names the cache file itself)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.text import Text

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
def cache_stats(
    store: StoreOption = DEFAULT_STORE,
    path: CachePathOption = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the figures as JSON.")] = False,
) -> None:
    """Entries, lifetime hits and misses, and size of the judge cache beside the store.

    A store whose runs wrote no cache yet (no judge was called, or the config says
    ``cache: false``) is told so, with exit 0."""
    file = path if path is not None else store.parent / "cache.db"
    if path is None and store.exists() and not file.exists():
        _no_cache_yet(store, file, as_json)
        return
    cache, _ = _existing_cache(store, path)
    with cache:
        figures = cache.stats().model_dump()
    if as_json:
        print(json.dumps({**figures, "exists": True}, ensure_ascii=False, indent=2))
        return
    for key, value in figures.items():
        out.print(Text(f"{key}: {value}"))


def _no_cache_yet(store: Path, file: Path, as_json: bool) -> None:
    if as_json:
        shown = {"entries": 0, "hits": 0, "misses": 0, "size": 0, "path": str(file)}
        print(json.dumps({**shown, "exists": False}, ensure_ascii=False, indent=2))
        return
    out.print(
        Text(
            f"no judge cache beside {store} yet: a run writes {file} when it calls a"
            " judge with the cache on (config key cache: true, the default)"
        ),
        soft_wrap=True,
    )


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
