"""`tachy doctor`: what on this machine stops Tachy from working, and what to do.

One Check per line: the data folder, the history database (integrity, schema, size),
the keyring, the local engine (installed, model file, starts, answers), the usual
local server ports, the display and Qt's platform plugin. `tachy doctor` prints the
report; the window's Help menu shows the same one. Every check is blocking (the
engine start takes seconds): the window runs them on a worker thread.
"""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

from client.services.doctor.engine_checks import engine_checks, port_checks
from client.services.doctor.report import Check, Status, all_passed, fail, info, ok, report
from client.store.db import MIGRATIONS, data_dir, database_path
from client.store.recovery import DataDirUnusable, check_data_dir
from client.store.salvage import open_read_only

DISPLAY_TIMEOUT_S = 30.0
LARGE_HISTORY_BYTES = 2 << 30  # 2 GiB: still works, but worth knowing

__all__ = ["Check", "Status", "all_passed", "iter_checks", "report", "run_checks"]


def run_checks(*, start_engine: bool = True, display: bool = True) -> list[Check]:
    return list(iter_checks(start_engine=start_engine, display=display))


def iter_checks(*, start_engine: bool = True, display: bool = True) -> Iterator[Check]:
    """Every check, in the order a user would fix them, each as soon as it is done."""
    yield from data_folder_checks()
    yield from database_checks()
    yield from keyring_checks()
    yield from engine_checks(start=start_engine)
    yield from port_checks()
    if display:
        yield from display_checks()


# ---- the data folder and the database ---------------------------------------------


def data_folder_checks() -> Iterator[Check]:
    folder = data_dir()
    if not folder.exists():
        parent = next((p for p in folder.parents if p.exists()), None)
        if parent is not None and parent.is_dir() and os.access(parent, os.W_OK):
            yield ok("data folder", f"{folder} does not exist yet; Tachy makes it at start")
        else:
            yield fail(
                "data folder",
                f"{folder} does not exist and cannot be made",
                "make it yourself, or set TACHY_DATA_DIR to a folder you can write.",
            )
        return
    try:
        check_data_dir(folder)
    except DataDirUnusable as error:
        yield fail("data folder", str(error), _folder_fix(folder, str(error)))
        return
    yield ok("data folder", f"{folder} (writable)")


def _folder_fix(folder: Path, reason: str) -> str:
    lowered = reason.lower()
    if "not a folder" in lowered:
        return f"move the file {folder} away (keep it if it matters), or set TACHY_DATA_DIR."
    if "space" in lowered:
        return f"free some space on the disk that holds {folder}."
    if "read-only" in lowered:
        return "mount that disk read-write, or set TACHY_DATA_DIR to a writable folder."
    return f"give yourself write access (chmod u+rwx {folder}) or set TACHY_DATA_DIR."


def database_checks() -> Iterator[Check]:
    path = database_path()
    kept = sorted(path.parent.glob("*-damaged-*")) if path.parent.is_dir() else []
    if kept:
        yield info("damaged copies", f"kept beside the history: {', '.join(p.name for p in kept)}")
    if path.parent.exists() and not path.parent.is_dir():
        yield info("database", "not checked: the data folder cannot be used (see above)")
        return
    if not path.exists():
        yield ok("database", f"no history yet at {path}; Tachy makes it at start")
        return
    size = sum(p.stat().st_size for p in (path, Path(f"{path}-wal")) if p.exists())
    try:
        conn = open_read_only(path)
        try:
            version = int(conn.execute("PRAGMA user_version").fetchone()[0])
            findings = [str(row[0]) for row in conn.execute("PRAGMA integrity_check(5)")]
        finally:
            conn.close()
    except sqlite3.DatabaseError as error:
        yield _damaged(path, str(error))
        return
    if findings != ["ok"]:
        yield _damaged(path, "; ".join(f for f in findings if not f.startswith("***"))[:200])
        return
    yield from _schema_and_size(path, version, size)


def _damaged(path: Path, reason: str) -> Check:
    return fail(
        "database",
        f"{path} is damaged ({reason})",
        "start tachy: it keeps the damaged file beside it (renamed with the date) and "
        "recovers every readable conversation into a new history.",
    )


def _schema_and_size(path: Path, version: int, size: int) -> Iterator[Check]:
    known = len(MIGRATIONS)
    if version > known:
        yield fail(
            "database schema",
            f"version {version}, written by a newer Tachy (this one knows {known})",
            "update Tachy; until then the history is shown read-only.",
        )
    else:
        yield ok("database", f"{path}: integrity ok, schema {version} of {known}")
    megabytes = size / 1e6
    if size > LARGE_HISTORY_BYTES:
        yield info("database size", f"{megabytes:.0f} MB: delete old conversations to shrink it")
    else:
        yield ok("database size", f"{megabytes:.1f} MB")


# ---- the keyring ----------------------------------------------------------------------


def keyring_checks() -> Iterator[Check]:
    import keyring
    from keyring.errors import KeyringError

    backend = keyring.get_keyring()
    name = f"{type(backend).__module__}.{type(backend).__name__}"
    fix = (
        "install and unlock a keyring (GNOME Keyring, KWallet, macOS Keychain, Windows "
        "Credential Manager); until then an API key is used for the session only."
    )
    if type(backend).__module__.startswith(("keyring.backends.fail", "keyring.backends.null")):
        yield fail("keyring", f"no usable system keyring ({name})", fix)
        return
    try:
        keyring.get_password("tachy", "tachy-doctor-probe")  # reads; never writes
    except (KeyringError, RuntimeError, OSError) as error:
        yield fail("keyring", f"{name} refused a read: {error}", fix)
        return
    yield ok("keyring", name)


# ---- the display --------------------------------------------------------------------

_DISPLAY_PROBE = (
    "import sys\n"
    "from PySide6.QtWidgets import QApplication\n"
    "app = QApplication(sys.argv[:1])\n"
    "print(app.platformName())\n"
)


def display_checks() -> Iterator[Check]:
    """Qt's platform plugin loads (in a child: a missing plugin aborts the process)."""
    platform = os.environ.get("QT_QPA_PLATFORM", "")
    has_display = any(os.environ.get(v) for v in ("DISPLAY", "WAYLAND_DISPLAY"))
    if sys.platform.startswith("linux") and not platform and not has_display:
        yield fail(
            "display",
            "no display (neither DISPLAY nor WAYLAND_DISPLAY is set)",
            "start Tachy from a desktop session (or QT_QPA_PLATFORM=offscreen for tests).",
        )
        return
    try:
        done = subprocess.run(
            [sys.executable, "-c", _DISPLAY_PROBE],
            capture_output=True,
            text=True,
            timeout=DISPLAY_TIMEOUT_S,
        )
    except subprocess.TimeoutExpired:
        yield fail("display", "Qt did not start within 30 s", "check the display server.")
        return
    if done.returncode == 0:
        yield ok("display", f"Qt platform plugin '{done.stdout.strip()}' loads")
        return
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    reason = next((line for line in lines if "plugin" in line.lower()), lines[-1] if lines else "")
    yield fail(
        "display",
        f"Qt's platform plugin does not load: {reason.strip()[:200]}",
        "install the libraries Qt needs (Debian/Ubuntu: sudo apt install libxcb-cursor0 "
        "libxkbcommon-x11-0 libegl1), or try QT_QPA_PLATFORM=wayland or xcb.",
    )
