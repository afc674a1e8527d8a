"""Small real file systems for tests of a full disk or a read-only mount (tmpfs).

Mounting needs root (the CI container runs as root); elsewhere the tests that need a
mount say so when they are skipped.
"""

from __future__ import annotations

import errno
import os
import shutil
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest


def can_mount() -> bool:
    return hasattr(os, "geteuid") and os.geteuid() == 0 and shutil.which("mount") is not None


needs_mount = pytest.mark.skipif(not can_mount(), reason="mounting a tmpfs needs root")


@contextmanager
def tmpfs(folder: Path, size_kb: int) -> Iterator[Path]:
    """A tmpfs of size_kb KiB mounted on folder (made if missing), unmounted after."""
    folder.mkdir(parents=True, exist_ok=True)
    subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={size_kb}k,mode=0700", "tmpfs", str(folder)],
        check=True,
    )
    try:
        yield folder
    finally:
        subprocess.run(["umount", "-l", str(folder)], check=True)


def remount_read_only(folder: Path) -> None:
    subprocess.run(["mount", "-o", "remount,ro", str(folder)], check=True)


def fill_to_the_brim(folder: Path) -> Path:
    """Write a file until the file system has not one byte left; delete it for room."""
    filler = folder / "filler"
    with filler.open("wb", buffering=0) as file:
        try:
            while True:
                file.write(b"\0" * 4096)
        except OSError as error:
            assert error.errno == errno.ENOSPC
        try:
            while True:
                file.write(b"\0")  # the last bytes of the last page too
        except OSError as error:
            assert error.errno == errno.ENOSPC
    return filler
