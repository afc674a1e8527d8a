"""The knowledge index's database file: where it lives, its schema and migrations.

A file of its own (knowledge.sqlite3 beside the history): an index of a large folder
can be rebuilt from the files at any time, so it is kept apart from the chats that
cannot, and removing it never touches them.

Schema (version = `PRAGMA user_version`, one step per entry of MIGRATIONS; the steps
run through client.store.db.migrate, the same code as the history's):
  sources(id, path UNIQUE, added_at)          what the user added: folders and files
  files(id, source_id -> sources ON DELETE CASCADE, path UNIQUE, size, mtime_ns, hash,
        encoding, unit, indexed_at)           unit: 'line', or 'page' for a PDF
  skipped(path PRIMARY KEY, source_id -> sources ON DELETE CASCADE, size, mtime_ns,
        reason)                               binary or unreadable, so not read again
                                              until it changes; reason: 'binary' or
                                              the sentence for the user
  passages(id, file_id -> files ON DELETE CASCADE, line_start, line_end, tokens, text)
  passage_index: contentless FTS5 (words, pairs), rowid = passages.id, tokenizer
        porter + unicode61; the columns are client.core.passages.index_terms(text).
        Contentless, so the text is stored once; deleting a row needs its terms
        again, which index_terms recomputes from passages.text.
  meta(key PRIMARY KEY, value)                terms_version: see rebuild_if_stale()
"""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

from client.core.passages import TERMS_VERSION, index_terms
from client.store.db import DatabaseTooNew, Migration, data_dir, migrate, write_transaction

KNOWLEDGE_NAME = "knowledge.sqlite3"


class KnowledgeUnavailable(RuntimeError):
    """The index cannot be opened; str() is the sentence for the user."""


def knowledge_path() -> Path:
    return data_dir() / KNOWLEDGE_NAME


_SCHEMA_1 = [
    "CREATE TABLE sources (id INTEGER PRIMARY KEY, path TEXT NOT NULL UNIQUE, "
    "added_at REAL NOT NULL)",
    """CREATE TABLE files (
        id INTEGER PRIMARY KEY,
        source_id INTEGER NOT NULL REFERENCES sources(id) ON DELETE CASCADE,
        path TEXT NOT NULL UNIQUE,
        size INTEGER NOT NULL,
        mtime_ns INTEGER NOT NULL,
        hash TEXT NOT NULL,
        encoding TEXT NOT NULL,
        unit TEXT NOT NULL DEFAULT 'line' CHECK (unit IN ('line', 'page')),
        indexed_at REAL NOT NULL
    )""",
    "CREATE INDEX files_by_source ON files(source_id)",
    """CREATE TABLE skipped (
        path TEXT PRIMARY KEY,
        source_id INTEGER NOT NULL REFERENCES sources(id) ON DELETE CASCADE,
        size INTEGER NOT NULL,
        mtime_ns INTEGER NOT NULL,
        reason TEXT NOT NULL
    )""",
    "CREATE INDEX skipped_by_source ON skipped(source_id)",
    """CREATE TABLE passages (
        id INTEGER PRIMARY KEY,
        file_id INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
        line_start INTEGER NOT NULL,
        line_end INTEGER NOT NULL,
        tokens INTEGER NOT NULL,
        text TEXT NOT NULL
    )""",
    "CREATE INDEX passages_by_file ON passages(file_id)",
    """CREATE VIRTUAL TABLE passage_index USING fts5(
        words, pairs, content='', tokenize='porter unicode61 remove_diacritics 2')""",
    "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
    f"INSERT INTO meta VALUES ('terms_version', '{TERMS_VERSION}')",
]


def _schema_1(conn: sqlite3.Connection) -> None:
    for statement in _SCHEMA_1:
        conn.execute(statement)


MIGRATIONS: list[Migration] = [_schema_1]


def connect(path: Path | str) -> sqlite3.Connection:
    """Open (creating, migrating, rebuilding if stale) the index at path."""
    in_memory = str(path) == ":memory:"
    if not in_memory:
        Path(path).parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        os.close(os.open(path, os.O_CREAT | os.O_WRONLY, 0o600))  # private, like the history
    try:
        conn = sqlite3.connect(path, isolation_level=None, check_same_thread=False, timeout=5.0)
    except sqlite3.Error as error:
        raise KnowledgeUnavailable(
            f"The knowledge index {path} cannot be opened: {error}."
        ) from error
    try:
        conn.execute("PRAGMA journal_mode = WAL")
        conn.execute("PRAGMA synchronous = NORMAL")
        conn.execute("PRAGMA foreign_keys = ON")
        migrate(conn, MIGRATIONS)
        rebuild_if_stale(conn)
    except DatabaseTooNew as error:
        conn.close()
        raise KnowledgeUnavailable(
            f"The knowledge index {path} was written by a newer Tachy; update Tachy "
            "or remove the file (your documents are not in it, only their index)."
        ) from error
    except sqlite3.OperationalError as error:
        conn.close()
        if "fts5" in str(error).lower():
            raise KnowledgeUnavailable(
                "This Python's SQLite has no full-text search (FTS5), which the "
                "knowledge index needs."
            ) from error
        raise KnowledgeUnavailable(
            f"The knowledge index {path} cannot be used: {error}."
        ) from error
    except sqlite3.DatabaseError as error:
        conn.close()
        raise KnowledgeUnavailable(
            f"The knowledge index {path} is damaged ({error}); remove the file and add "
            "your folders again (your documents are not in it, only their index)."
        ) from error
    return conn


def rebuild_if_stale(conn: sqlite3.Connection) -> bool:
    """Rebuild passage_index when it was made by another version of index_terms:
    its rows could not be deleted (their terms would differ), nor found the same way."""
    row = conn.execute("SELECT value FROM meta WHERE key = 'terms_version'").fetchone()
    if row is not None and row[0] == str(TERMS_VERSION):
        return False
    with write_transaction(conn):
        conn.execute("INSERT INTO passage_index(passage_index) VALUES ('delete-all')")
        for rowid, text in conn.execute("SELECT id, text FROM passages").fetchall():
            words, pairs = index_terms(text)
            conn.execute(
                "INSERT INTO passage_index(rowid, words, pairs) VALUES (?, ?, ?)",
                (rowid, words, pairs),
            )
        conn.execute(
            "INSERT OR REPLACE INTO meta VALUES ('terms_version', ?)", (str(TERMS_VERSION),)
        )
    return True
