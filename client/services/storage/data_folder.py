"""Where this user's data lives, without opening it: the single-instance name and the
window's settings file, needed before the first paint (client.services.storage.stores, which
loads every store, comes after it)."""

from __future__ import annotations

import os
import zlib
from pathlib import Path

from client.store.places import DATA_DIR_ENV, data_dir, default_data_dir


def instance_name() -> str:
    """The local socket one window per data folder listens on.

    (client/ui/shell/single_instance.py)
    """
    folder = folder_key()
    user = str(os.getuid()) if hasattr(os, "getuid") else os.environ.get("USERNAME", "")
    key = f"{user}:{folder}".encode()
    # Two checksums (64 bits), not hashlib: hashlib loads OpenSSL, 3 ms before the paint.
    return f"tachy-{zlib.crc32(key):08x}{zlib.adler32(key):08x}"


def folder_key() -> str:
    """The data folder in the socket's name: $TACHY_DATA_DIR's, absolute; for the
    platform's default folder what it depends on here ($XDG_DATA_HOME on Linux), so a
    usual start names its socket without looking the folder up (platformdirs)."""
    default = "default:" + os.environ.get("XDG_DATA_HOME", "")
    override = os.environ.get(DATA_DIR_ENV)
    if not override:
        return default
    folder = Path(override).expanduser().absolute()
    return default if folder == default_data_dir().expanduser().absolute() else str(folder)


def window_state_file() -> Path | None:
    """Where the window keeps its geometry when $TACHY_DATA_DIR moves the data
    folder (tests, a portable install); None: the platform's usual place."""
    return data_dir() / "window.ini" if os.environ.get(DATA_DIR_ENV) else None
