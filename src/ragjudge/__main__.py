"""The ``ragjudge`` command (and ``python -m ragjudge``): the command line, with the
cyclic garbage collector paused while its modules load.

Importing the command line creates a few hundred thousand objects that live as long as
the process (modules, classes, functions, compiled patterns); the collector would walk
them over and over while they load (≈ 0.05 s of every start) and then in every later
pass. They are loaded with the collector off and then frozen (:func:`gc.freeze`): later
passes skip them, and processes forked from the command (the scoring workers) share
their memory pages instead of copying them when a pass would touch them.
"""

from __future__ import annotations

import gc


def main() -> None:
    """Console-script entry point: :func:`ragjudge.cli.main` once its modules are
    loaded and frozen."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        from ragjudge.cli import main as cli_main
    finally:
        gc.freeze()
        if enabled:
            gc.enable()
    cli_main()


if __name__ == "__main__":
    main()
