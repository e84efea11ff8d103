"""What every group of ``ragjudge`` commands shares: the consoles, the ``--store``
option, the one way a command fails with a message, and opening a store that must
exist."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console
from rich.text import Text

from ragjudge._util.score_names import current_score_name

if TYPE_CHECKING:
    from ragjudge.store._store import Store

__all__ = [
    "DEFAULT_STORE",
    "RUN_ID_HELP",
    "RunArgument",
    "StoreOption",
    "current_names",
    "err",
    "fail",
    "opened_store",
    "out",
    "store_hint",
    "stores_below",
    "table_console",
]

out = Console()
err = Console(stderr=True)

DEFAULT_STORE = Path(".ragjudge/runs.db")
StoreOption = Annotated[
    Path,
    typer.Option("--store", help="The SQLite store (default .ragjudge/runs.db in this folder)."),
]


RUN_ID_HELP = "Run id: 'latest', the whole id, or a unique start or end of it (its last digits)."
RunArgument = Annotated[str, typer.Argument(metavar="RUN", help=RUN_ID_HELP)]
"""A run named on the command line; :meth:`~ragjudge.store.Store.run` reads it."""


def fail(message: str, code: int = 2) -> typer.Exit:
    """Print ``message`` as the command's error and return the exit to raise."""
    # the message is the user's words (paths, option values): never rich markup
    err.print(Text("error: ", style="bold red") + Text(message), highlight=False, soft_wrap=True)
    return typer.Exit(code)


def opened_store(path: Path) -> Store:
    """The store at ``path``, which must exist (opening would create an empty one);
    use it in a ``with`` block, which closes it. Runs an older version stored without
    their scores' meanings get them here, once, so that nothing that reads runs needs
    the metric registry."""
    from ragjudge.store._store import Store

    if not path.exists():
        raise fail(f"no store at {path}; {store_hint(path)}")
    store = Store(path)
    if store.runs_without_meanings():  # stored by an older version: rare
        from ragjudge.metrics._stored import record_missing_meanings

        with store:  # closed if recording fails
            record_missing_meanings(store)
        store = Store(path)
    return store


def current_names(names: list[str] | None) -> list[str] | None:
    """The scores named by ``--metric``, an old name taken for its current one."""
    return None if names is None else [current_score_name(n) for n in names]


def store_hint(missing: Path | None = None) -> str:
    """How to name the store: runs are kept beside their eval.yaml, so from another
    folder ``--store`` says where; the stores found below the current folder are
    listed."""
    hint = "pass --store PATH (a run's store is .ragjudge/runs.db beside its eval.yaml)"
    found = [p for p in stores_below(Path.cwd()) if missing is None or p != missing]
    if found:
        shown = ", ".join(str(p) for p in found[:5])
        hint += f"; stores below this folder: {shown}"
    return hint


def stores_below(folder: Path, depth: int = 4) -> list[Path]:
    """Stores (``.ragjudge/runs.db``) in ``folder`` and up to ``depth`` folders below it,
    relative to it; hidden folders and virtual environments are not searched."""
    found: list[Path] = []
    pending = [(folder, 0)]
    while pending:
        current, level = pending.pop(0)
        candidate = current / ".ragjudge" / "runs.db"
        if candidate.is_file():
            found.append(candidate.relative_to(folder))
        if level >= depth:
            continue
        try:
            children = sorted(p for p in current.iterdir() if p.is_dir())
        except OSError:
            continue
        pending += [
            (c, level + 1)
            for c in children
            if not c.name.startswith((".", "__")) and c.name not in _SKIPPED
        ]
    return found


_SKIPPED = frozenset({"node_modules", "venv", "site-packages"})


def table_console() -> Console:
    """Standard output for tables; piped output has no terminal width, so it gets a
    wide one that keeps run ids and statuses whole."""
    return out if out.is_terminal else Console(width=200)
