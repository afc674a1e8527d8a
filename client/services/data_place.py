"""Where this user's data lives, without opening it: the single-instance name and the
window's settings file, needed before the first paint (client.services.stores, which
loads every store, comes after it)."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from client.store.places import DATA_DIR_ENV, data_dir


def instance_name() -> str:
    """The local socket one window per data folder listens on (client/ui/single_instance.py)."""
    folder = str(data_dir().expanduser().absolute())
    user = str(os.getuid()) if hasattr(os, "getuid") else os.environ.get("USERNAME", "")
    return "tachy-" + hashlib.sha256(f"{user}:{folder}".encode()).hexdigest()[:16]


def window_state_file() -> Path | None:
    """Where the window keeps its geometry when $TACHY_DATA_DIR moves the data
    folder (tests, a portable install); None: the platform's usual place."""
    return data_dir() / "window.ini" if os.environ.get(DATA_DIR_ENV) else None
