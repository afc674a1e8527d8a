"""Copying what a damaged (or newer) history file still yields into a sound database.

The approach of SQLite's own recovery (the `.recover` shell command, which Python's
sqlite3 module does not expose): read each table in rowid order and keep every row
that comes back; where a page cannot be read, skip ahead past it and go on. The
columns copied are those both files have, so a newer schema gives what this Tachy
knows of it. Afterwards the rows are made consistent: a message whose conversation
was lost gets a "Recovered conversation", links to rows that were lost are cleared.
"""

from __future__ import annotations

import logging
import sqlite3
from pathlib import Path

from client.store.db import Database

log = logging.getLogger("tachy.store")

# Parents before children, so each row's references are copied before it.
TABLES = ("conversations", "messages", "request_metrics", "endpoints", "settings")
BATCH = 256
_MAX_SKIPS = 80  # doubling steps: past any rowid an INTEGER PRIMARY KEY can hold
RECOVERED_TITLE = "Recovered conversation"


def open_read_only(path: Path) -> sqlite3.Connection:
    """A connection that never writes to path (no checkpoint, no journal replay into
    the file): the damaged file stays as it was found."""
    try:
        conn = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
        conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
    except sqlite3.DatabaseError:
        # The WAL or the folder refuses a read-only open: read the main file alone.
        conn = sqlite3.connect(f"{path.resolve().as_uri()}?immutable=1", uri=True)
        conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
    return conn


def salvage_into(old: sqlite3.Connection, target: Database) -> dict[str, int]:
    """Copy every readable row of TABLES from old into target; rows copied per table."""
    copied: dict[str, int] = {}
    target.execute("PRAGMA foreign_keys = OFF")  # parents may be lost; repaired below
    try:
        for table in TABLES:
            columns = _shared_columns(old, target, table)
            if columns:
                with target.transaction() as conn:
                    copied[table] = _copy_table(old, conn, table, columns)
        with target.transaction() as conn:
            _repair_links(conn)
    finally:
        target.execute("PRAGMA foreign_keys = ON")
    return copied


def _columns(conn: sqlite3.Connection, table: str) -> list[str]:
    try:
        return [str(row[1]) for row in conn.execute(f"PRAGMA table_info({table})")]
    except sqlite3.DatabaseError:
        return []


def _shared_columns(old: sqlite3.Connection, target: Database, table: str) -> list[str]:
    theirs = set(_columns(old, table))
    return [
        c for c in (row[1] for row in target.query(f"PRAGMA table_info({table})")) if c in theirs
    ]


def _top_rowid(old: sqlite3.Connection, table: str) -> int | None:
    try:
        row = old.execute(f"SELECT max(rowid) FROM {table}").fetchone()
    except sqlite3.DatabaseError:
        return None
    return None if row is None or row[0] is None else int(row[0])


def _copy_table(
    old: sqlite3.Connection, new: sqlite3.Connection, table: str, columns: list[str]
) -> int:
    names = ", ".join(columns)
    read = f"SELECT rowid, {names} FROM {table} WHERE rowid > ? ORDER BY rowid LIMIT {BATCH}"
    write = f"INSERT OR IGNORE INTO {table} ({names}) VALUES ({', '.join('?' * len(columns))})"
    top = _top_rowid(old, table)
    after, step, skips, copied = 0, 1, 0, 0
    while skips <= _MAX_SKIPS:
        read_any = False
        try:
            for row in old.execute(read, (after,)):
                read_any = True
                after, step = int(row[0]), 1
                copied += _insert(new, write, row[1:])
        except sqlite3.DatabaseError as error:
            if top is not None and after >= top:
                break
            log.info("%s: rows after %d unreadable (%s); skipping %d", table, after, error, step)
            after, step, skips = after + step, step * 2, skips + 1
            continue
        if not read_any:
            break
    return copied


def _insert(new: sqlite3.Connection, write: str, values: tuple[object, ...]) -> int:
    try:
        return new.execute(write, values).rowcount
    except sqlite3.IntegrityError:  # a damaged value breaks a CHECK: that row is lost
        return 0


def _repair_links(conn: sqlite3.Connection) -> None:
    conn.execute(
        "INSERT INTO conversations (id, title, created_at, updated_at) "
        "SELECT conversation_id, ?, min(created_at), max(created_at) FROM messages "
        "WHERE conversation_id NOT IN (SELECT id FROM conversations) "
        "GROUP BY conversation_id",
        (RECOVERED_TITLE,),
    )
    # A message whose parent was lost hangs under the message before it in the same
    # conversation, so the fragments read as one conversation in their order.
    conn.execute(
        "UPDATE messages SET parent_id = (SELECT max(p.id) FROM messages AS p "
        "WHERE p.conversation_id = messages.conversation_id AND p.id < messages.id) "
        "WHERE parent_id IS NOT NULL AND parent_id NOT IN (SELECT id FROM messages)"
    )
    conn.execute(
        "UPDATE request_metrics SET message_id = NULL "
        "WHERE message_id IS NOT NULL AND message_id NOT IN (SELECT id FROM messages)"
    )
    conn.execute(
        "UPDATE conversations SET active_leaf_id = (SELECT max(m.id) FROM messages AS m "
        "WHERE m.conversation_id = conversations.id) WHERE active_leaf_id IS NULL "
        "OR active_leaf_id NOT IN (SELECT id FROM messages WHERE conversation_id = "
        "conversations.id)"
    )
