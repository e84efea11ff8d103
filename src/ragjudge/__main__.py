"""The ``ragjudge`` command (and ``python -m ragjudge``): the command line, its modules
loaded with the cyclic garbage collector paused and then frozen.

Importing the command line creates a few hundred thousand objects that live as long as
the process (modules, classes, functions, compiled patterns); the collector would walk
them over and over while they load (≈ 0.05 s of every start) and in every later pass.
See :mod:`ragjudge._util.gc`: a run's samples are kept the same way.
"""

from __future__ import annotations

from ragjudge._util.gc import command_owns_process, kept_for_good


def main() -> None:
    """Console-script entry point: :func:`ragjudge.cli.main` once its modules are
    loaded and frozen."""
    command_owns_process()
    with kept_for_good(paused=True):
        from ragjudge.cli import main as cli_main
    cli_main()


if __name__ == "__main__":
    main()
