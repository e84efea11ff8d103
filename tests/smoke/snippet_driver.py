"""Runs the README's python blocks one after another in one namespace, as a reader
pastes them into one session, and prints one JSON line per block: its line and the
error it raised (null when it ran). Usage: ``python snippet_driver.py BLOCKS.json``."""

from __future__ import annotations

import json
import sys
import traceback
from pathlib import Path


def main(blocks_file: str) -> None:
    blocks = json.loads(Path(blocks_file).read_text(encoding="utf-8"))
    namespace: dict[str, object] = {"__name__": "__main__"}
    for block in blocks:
        try:
            exec(compile(block["text"], f"README.md:{block['line']}", "exec"), namespace)
            error = None
        except BaseException:  # a snippet's failure of any kind is reported, not raised
            error = traceback.format_exc()
        print(json.dumps({"line": block["line"], "error": error}), flush=True)


if __name__ == "__main__":
    main(sys.argv[1])
