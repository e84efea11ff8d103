"""A file or folder this process cannot write, for the tests of what a command says
about it: immutable for root (permissions do not bind root), read-only for others."""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest


@contextmanager
def unwritable(path: Path) -> Iterator[Path]:
    """``path`` made unwritable for the block (the test is skipped where the file
    system cannot make it so)."""
    as_root = os.geteuid() == 0
    if as_root and shutil.which("chattr") is None:
        pytest.skip("chattr is needed to make a file unwritable for root")
    mode = path.stat().st_mode
    if as_root:
        subprocess.run(["chattr", "+i", str(path)], check=False, capture_output=True)
    else:
        path.chmod(mode & ~(stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH))
    try:
        if _writable(path):
            pytest.skip(f"this file system cannot make {path} unwritable")
        yield path
    finally:
        if as_root:
            subprocess.run(["chattr", "-i", str(path)], check=False, capture_output=True)
        else:
            path.chmod(mode)


def _writable(path: Path) -> bool:
    probe = path / "probe" if path.is_dir() else path
    try:
        with probe.open("ab"):
            pass
    except OSError:
        return False
    if path.is_dir():
        probe.unlink()
    return True
