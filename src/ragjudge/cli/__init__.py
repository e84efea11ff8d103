"""The ``ragjudge`` command line: one module per command group; :func:`main` is the
console-script entry point.

It may import every other package; nothing imports it but ``ragjudge.__main__``."""

from ragjudge.cli._app import app, main

__all__ = ["app", "main"]
