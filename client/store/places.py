"""Where the data folder is: importable without sqlite3 or asyncio, so the window can
name its single-instance socket and settings file before its first paint."""

from __future__ import annotations

import os
from pathlib import Path

DATA_DIR_ENV = "TACHY_DATA_DIR"


def data_dir() -> Path:
    """$TACHY_DATA_DIR (a portable install; the test suite points it at a temporary
    folder), else the platform's user data dir (XDG on Linux)."""
    override = os.environ.get(DATA_DIR_ENV)
    if override:
        return Path(override)
    return default_data_dir()


def default_data_dir() -> Path:
    # platformdirs takes 4 ms to import: a usual start needs it after its first paint.
    import platformdirs

    return Path(platformdirs.user_data_dir("tachy", appauthor=False))
