"""Opening the history when the machine is not kind: a damaged file, a newer schema,
a data folder that cannot be used. The window always gets a working Database.

- Damaged (not a database, `PRAGMA quick_check` failing, an error while opening): the
  file and its -wal/-shm are renamed beside it with the date (never deleted), a new
  database is made, and every row each table still yields is copied into it
  (salvage.py: the approach of SQLite's own recovery, table by table, skipping what
  cannot be read).
- Written by a newer Tachy (user_version above ours): the file is left untouched; what
  this Tachy can read of it is copied into an in-memory database, so the history is
  shown and nothing is written to it.
- The data folder cannot be used (a file in its place, no permission, a read-only
  mount, the disk full): an in-memory database, with what the existing file still
  gives copied in when it can be read.

Each case comes back as a HistoryProblem beside the database: the window shows it in a
banner, `tachy doctor` and `tachy metrics` print it.
"""

from __future__ import annotations

import logging
import os
import sqlite3
import tempfile
from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum
from pathlib import Path

from client.store.db import DATABASE_NAME, Database, DatabaseTooNew, database_path
from client.store.salvage import open_read_only, salvage_into

log = logging.getLogger("tachy.store")
PROBE_BYTES = 8192  # two pages: a disk with less room than that cannot save a reply


class ProblemKind(StrEnum):
    DAMAGED = "damaged"  # moved aside, readable rows recovered into a new file
    TOO_NEW = "too_new"  # a newer Tachy's file: shown read-only from memory
    NOT_SAVING = "not_saving"  # the folder cannot be used: history in memory only


@dataclass(frozen=True, slots=True)
class HistoryProblem:
    kind: ProblemKind
    path: Path  # the database file Tachy wanted to use
    reason: str  # what SQLite or the system said, plain English
    kept_at: Path | None = None  # DAMAGED: where the damaged file now is
    recovered: dict[str, int] = field(default_factory=dict)  # rows copied per table

    @property
    def recovered_rows(self) -> int:
        return sum(self.recovered.values())

    @property
    def saving(self) -> bool:
        """True when what the user does now is written to disk."""
        return self.kind is ProblemKind.DAMAGED

    def sentence(self) -> str:
        """One plain-English sentence (terminal and log; the window translates its own)."""
        if self.kind is ProblemKind.DAMAGED:
            return (
                f"The history at {self.path} was damaged ({self.reason}); it was kept as "
                f"{self.kept_at} and {self.recovered_rows} readable rows were recovered "
                "into a new history."
            )
        if self.kind is ProblemKind.TOO_NEW:
            return (
                f"The history at {self.path} was written by a newer Tachy ({self.reason}); "
                "it is shown read-only and nothing is saved. Update Tachy to keep chatting "
                "in it."
            )
        return (
            f"Tachy cannot save in {self.path.parent} ({self.reason}); conversations are "
            "kept in memory until you quit. Fix the folder or set TACHY_DATA_DIR."
        )


@dataclass(slots=True)
class OpenedHistory:
    db: Database
    problem: HistoryProblem | None = None


class DataDirUnusable(OSError):
    """str() is the reason in plain English."""


def check_data_dir(folder: Path) -> None:
    """Raise DataDirUnusable when Tachy cannot keep its history in folder."""
    if folder.exists() and not folder.is_dir():
        raise DataDirUnusable(f"{folder} is a file, not a folder")
    try:
        folder.mkdir(parents=True, exist_ok=True, mode=0o700)
    except OSError as error:
        raise DataDirUnusable(_os_reason(error)) from error
    try:  # a real write says why it cannot be: permission, read-only mount, disk full
        with tempfile.TemporaryFile(dir=folder) as probe:
            probe.write(b"\0" * PROBE_BYTES)
            probe.flush()
    except OSError as error:
        raise DataDirUnusable(f"{folder}: {error.strerror or error}") from error


def _os_reason(error: OSError) -> str:
    reason = error.strerror or str(error)
    return f"{reason}: {error.filename}" if error.filename else reason


def open_history(path: Path | None = None, *, check: bool = True) -> OpenedHistory:
    """The history database at path (default: the data folder's), whatever its state.

    check: run `PRAGMA quick_check` on open (a damaged page found now is recovered
    now, not met later in the middle of an answer).
    """
    path = path if path is not None else database_path()
    try:
        check_data_dir(path.parent)
    except DataDirUnusable as error:
        return _in_memory(path, ProblemKind.NOT_SAVING, str(error))
    try:
        db = Database(path)
    except DatabaseTooNew as error:
        return _in_memory(path, ProblemKind.TOO_NEW, _schema_reason(error))
    except sqlite3.DatabaseError as error:
        if is_storage_error(error):
            return _in_memory(path, ProblemKind.NOT_SAVING, _sqlite_reason(error))
        return _recover(path, str(error))
    except OSError as error:  # the file itself cannot be created or opened
        return _in_memory(path, ProblemKind.NOT_SAVING, _os_reason(error))
    damage = first_damage(db) if check else None
    if damage is None:
        return OpenedHistory(db)
    db.close()
    return _recover(path, damage)


def first_damage(db: Database, *, full: bool = False) -> str | None:
    """None when the file is sound, else SQLite's first complaint.

    quick_check at start (it reads every page but skips matching index entries against
    their rows, several times faster than integrity_check); `tachy doctor` runs the
    full check.
    """
    pragma = "integrity_check" if full else "quick_check"
    try:
        rows = db.query(f"PRAGMA {pragma}(1)")
    except sqlite3.DatabaseError as error:
        return str(error)
    first = str(rows[0][0]) if rows else "ok"
    return None if first == "ok" else _one_line(first)


def _one_line(report: str) -> str:
    """SQLite's check report, e.g. "*** in database main ***\nTree 5 page 9: ...",
    as one short line for a banner."""
    lines = [line.strip() for line in report.splitlines()]
    lines = [line for line in lines if line and not line.startswith("***")]
    text = lines[0] if lines else report.strip()
    return f"integrity check: {text[:120]}"


def is_storage_error(error: sqlite3.DatabaseError) -> bool:
    """The folder or the disk refused, not the file's contents."""
    code = getattr(error, "sqlite_errorcode", None)
    storage = {sqlite3.SQLITE_CANTOPEN, sqlite3.SQLITE_READONLY, sqlite3.SQLITE_FULL}
    storage |= {sqlite3.SQLITE_IOERR, sqlite3.SQLITE_PERM}
    primary = code & 0xFF if isinstance(code, int) else None
    return primary in storage


def _sqlite_reason(error: sqlite3.Error) -> str:
    return str(error)


def _schema_reason(error: DatabaseTooNew) -> str:
    return str(error).split("(", 1)[-1].split(")", 1)[0]  # "schema 9; this one knows 3"


def damaged_name(path: Path, when: datetime | None = None) -> Path:
    """tachy.sqlite3 -> tachy-damaged-2026-12-04-031502.sqlite3, beside it (unique)."""
    stamp = (when or datetime.now()).strftime("%Y-%m-%d-%H%M%S")
    stem, suffix = path.name.split(".", 1) if "." in path.name else (path.name, "")
    suffix = f".{suffix}" if suffix else ""
    candidate = path.with_name(f"{stem}-damaged-{stamp}{suffix}")
    number = 2
    while candidate.exists():
        candidate = path.with_name(f"{stem}-damaged-{stamp}-{number}{suffix}")
        number += 1
    return candidate


def move_aside(path: Path) -> Path:
    """Rename the file and its -wal and -shm (the WAL may hold the newest commits)."""
    kept = damaged_name(path)
    for extra in ("-wal", "-shm"):
        companion = Path(f"{path}{extra}")
        if companion.exists():
            companion.rename(f"{kept}{extra}")
    path.rename(kept)
    return kept


def _recover(path: Path, reason: str) -> OpenedHistory:
    log.warning("the history at %s is damaged (%s): moving it aside", path, reason)
    try:
        kept = move_aside(path)
    except OSError as error:
        return _in_memory(path, ProblemKind.NOT_SAVING, f"{reason}; {_os_reason(error)}")
    fresh = path.with_name(f".{DATABASE_NAME}.recovering")
    fresh.unlink(missing_ok=True)
    try:
        with Database(fresh) as target:
            recovered = _salvage_file(kept, target)
        fresh.rename(path)
        db = Database(path)
    except (sqlite3.Error, OSError) as error:
        return _in_memory(path, ProblemKind.NOT_SAVING, f"{reason}; {error}")
    log.warning("recovered %s from %s into %s", recovered, kept, path)
    return OpenedHistory(db, HistoryProblem(ProblemKind.DAMAGED, path, reason, kept, recovered))


def _in_memory(path: Path, kind: ProblemKind, reason: str) -> OpenedHistory:
    log.warning("history in memory only (%s): %s", kind, reason)
    db = Database(":memory:")
    recovered = _salvage_file(path, db) if _readable(path) else {}
    return OpenedHistory(db, HistoryProblem(kind, path, reason, None, recovered))


def _readable(path: Path) -> bool:
    try:
        return path.is_file() and os.access(path, os.R_OK)
    except OSError:
        return False


def _salvage_file(source: Path, target: Database) -> dict[str, int]:
    try:
        old = open_read_only(source)
    except sqlite3.Error as error:
        log.warning("nothing readable in %s: %s", source, error)
        return {}
    try:
        return salvage_into(old, target)
    finally:
        old.close()
