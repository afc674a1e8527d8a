"""The SQLite database: where it lives, how it opens, and its migrations.

One `Database` owns one connection. Every call is short (a few statements on an
indexed table), so the ui may call it from its loop outside the streaming hot path,
or through `await db.run(fn, *args)`, which runs `fn` on the database's own single
worker thread. A lock serialises the two, so mixing them is safe.

Durability: WAL with synchronous=NORMAL. A committed write survives the app being
killed (SIGKILL); only a power cut can lose the last few commits. That makes a commit
cheap enough to flush a streaming answer every 250 ms.

Schema (version = `PRAGMA user_version`, one step per entry of MIGRATIONS):
  conversations(id, title, created_at, updated_at, server, model, deleted_at,
                active_leaf_id)
      deleted_at is set by soft delete (undo = set it back to NULL); active_leaf_id is
      the last message of the active path (kept by client/store/conversations/history.py).
  messages(id, conversation_id -> conversations ON DELETE CASCADE,
           parent_id -> messages ON DELETE CASCADE, role, content, thinking, state,
           active, created_at, server, model, error_message, route)
      A tree: regenerate and edit add a sibling. Among siblings exactly one has
      active = 1; the conversation shown is the path of active messages from a root.
      state: streaming | complete | stopped | interrupted | failed.
      route (schema 4): a cascade's "fast" or "strong" for the answer's model; NULL
      without a cascade. server and model name who answered (after a fallback, the
      model that did).
  messages_with_metrics (VIEW, schema 3, remade in 4): every messages column plus the metrics of
      the message's latest request (ttft_ms, ttfo_ms, tpot_ms, tokens_per_s, e2el_ms,
      paint_ms, prompt_tokens, output_tokens, tier, metrics_id) and request_count; NULL
      metrics for a message with no request (questions). Read-only, nothing duplicated.
  request_metrics(id, time, server, model, message_id -> messages ON DELETE SET NULL,
           ttft_ms, ttfo_ms, tpot_ms, tokens_per_s, e2el_ms, headers_ms, paint_ms,
           prompt_tokens, output_tokens, output_tokens_estimated, chunks, tier, cold,
           outcome, stages (JSON), server_timings (JSON), qoe (schema 7))
      A message's metrics are the rows with its message_id (a Continue adds a row).
  history_summaries(conversation_id PRIMARY KEY -> conversations ON DELETE CASCADE,
           text, covered_ids (JSON list of message ids), created_at)   (schema 5)
      A conversation's latest summary of its older turns (client/store/conversations/summaries.py);
      it stands for exactly the messages covered_ids names, which stay as they are.
  message_images(id, message_id -> messages ON DELETE CASCADE, position, mime, width,
           height, data, original, original_mime, original_width, original_height, name,
           prepare_ms)   (schema 6)
      A user message's images: `data` as sent (downscaled, re-encoded), `original` the
      file as attached (NULL when it was sent as it was). client/store/conversations/images.py.
  endpoints(id, name UNIQUE, url, api, created_at)   -- never an API key (keyring only)
  settings(key PRIMARY KEY, value JSON)
  message_tool_calls(id, message_id -> messages ON DELETE CASCADE, round, position,
           at_char, call_id, name, arguments, server, status, result, is_error, problem,
           ms)   (schema 8)
      An answer's tool calls and their results, where each card sits in its text, so
      the model's exact transcript can be sent again. client/store/conversations/tool_calls.py.
  message_search: FTS5 trigram index over messages.content (when this SQLite has
      FTS5), kept by triggers; a message is indexed once it stops streaming.
Times are unix seconds (UTC) as REAL.
"""

from __future__ import annotations

import asyncio
import os
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from functools import partial
from pathlib import Path
from typing import Any, ParamSpec, TypeVar

from client.store.places import DATA_DIR_ENV as DATA_DIR_ENV  # (kept here for its users)
from client.store.places import data_dir as data_dir

DATABASE_NAME = "tachy.sqlite3"

P = ParamSpec("P")
T = TypeVar("T")


class DatabaseTooNew(RuntimeError):
    """The file was written by a newer Tachy; opening it could damage it."""


def database_path() -> Path:
    return data_dir() / DATABASE_NAME


def fts5_trigram_available(conn: sqlite3.Connection) -> bool:
    try:
        conn.execute("CREATE VIRTUAL TABLE temp.fts5_probe USING fts5(x, tokenize='trigram')")
    except sqlite3.OperationalError:
        return False
    conn.execute("DROP TABLE temp.fts5_probe")
    return True


# ---- migrations: append new steps, never edit a released one ------------------------

_SCHEMA_1 = [
    """CREATE TABLE conversations (
        id INTEGER PRIMARY KEY,
        title TEXT NOT NULL DEFAULT '',
        created_at REAL NOT NULL,
        updated_at REAL NOT NULL,
        server TEXT,
        model TEXT,
        deleted_at REAL,
        active_leaf_id INTEGER
    )""",
    "CREATE INDEX conversations_by_recency ON conversations(deleted_at, updated_at)",
    """CREATE TABLE messages (
        id INTEGER PRIMARY KEY,
        conversation_id INTEGER NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
        parent_id INTEGER REFERENCES messages(id) ON DELETE CASCADE,
        role TEXT NOT NULL CHECK (role IN ('system', 'user', 'assistant')),
        content TEXT NOT NULL DEFAULT '',
        thinking TEXT NOT NULL DEFAULT '',
        state TEXT NOT NULL DEFAULT 'complete' CHECK (state IN
            ('streaming', 'complete', 'stopped', 'interrupted', 'failed')),
        active INTEGER NOT NULL DEFAULT 1,
        created_at REAL NOT NULL,
        server TEXT,
        model TEXT,
        error_message TEXT NOT NULL DEFAULT ''
    )""",
    "CREATE INDEX messages_by_parent ON messages(conversation_id, parent_id, active)",
    "CREATE INDEX messages_by_child_of ON messages(parent_id)",
    "CREATE INDEX messages_streaming ON messages(state) WHERE state = 'streaming'",
    """CREATE TABLE request_metrics (
        id INTEGER PRIMARY KEY,
        time REAL NOT NULL,
        server TEXT NOT NULL DEFAULT '',
        model TEXT NOT NULL DEFAULT '',
        message_id INTEGER REFERENCES messages(id) ON DELETE SET NULL,
        ttft_ms REAL, ttfo_ms REAL, tpot_ms REAL, tokens_per_s REAL, e2el_ms REAL,
        headers_ms REAL, paint_ms REAL,
        prompt_tokens INTEGER, output_tokens INTEGER,
        output_tokens_estimated INTEGER NOT NULL DEFAULT 0,
        chunks INTEGER NOT NULL DEFAULT 0,
        tier TEXT CHECK (tier IS NULL OR tier IN ('instant', 'fast', 'typing', 'slow')),
        cold INTEGER NOT NULL DEFAULT 0,
        outcome TEXT NOT NULL DEFAULT '',
        stages TEXT NOT NULL DEFAULT '{}',
        server_timings TEXT NOT NULL DEFAULT '{}'
    )""",
    "CREATE INDEX request_metrics_by_time ON request_metrics(time)",
    "CREATE INDEX request_metrics_by_message ON request_metrics(message_id)",
    """CREATE TABLE endpoints (
        id INTEGER PRIMARY KEY,
        name TEXT NOT NULL UNIQUE,
        url TEXT NOT NULL,
        api TEXT NOT NULL DEFAULT 'auto' CHECK (api IN ('auto', 'ollama', 'openai')),
        created_at REAL NOT NULL
    )""",
    "CREATE TABLE settings (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
]

# External-content FTS5 over messages.content. A message is indexed only while it is
# not streaming: re-indexing on every 250 ms flush would make appends cost the whole
# text. The 'delete' command needs the exact indexed text, which is old.content.
_SEARCH_2 = [
    """CREATE VIRTUAL TABLE message_search USING fts5(
        content, content='messages', content_rowid='id', tokenize='trigram')""",
    """CREATE TRIGGER message_search_insert AFTER INSERT ON messages
       WHEN new.state != 'streaming' BEGIN
         INSERT INTO message_search(rowid, content) VALUES (new.id, new.content);
       END""",
    """CREATE TRIGGER message_search_update AFTER UPDATE OF content, state ON messages
       BEGIN
         INSERT INTO message_search(message_search, rowid, content)
           SELECT 'delete', old.id, old.content WHERE old.state != 'streaming';
         INSERT INTO message_search(rowid, content)
           SELECT new.id, new.content WHERE new.state != 'streaming';
       END""",
    """CREATE TRIGGER message_search_delete AFTER DELETE ON messages
       WHEN old.state != 'streaming' BEGIN
         INSERT INTO message_search(message_search, rowid, content)
           VALUES ('delete', old.id, old.content);
       END""",
    """INSERT INTO message_search(rowid, content)
       SELECT id, content FROM messages WHERE state != 'streaming'""",
]


# The issue asks for "a table messages with ... the message's metrics". The metrics stay
# in request_metrics (one row per request; a Continue adds one); this view shows each
# message with its latest request's figures, so nothing is copied or can drift.
_METRICS_VIEW_3 = [
    """CREATE VIEW messages_with_metrics AS
       SELECT m.id, m.conversation_id, m.parent_id, m.role, m.content, m.thinking,
              m.state, m.active, m.created_at, m.server, m.model, m.error_message,
              r.ttft_ms, r.ttfo_ms, r.tpot_ms, r.tokens_per_s, r.e2el_ms, r.paint_ms,
              r.prompt_tokens, r.output_tokens, r.tier, r.id AS metrics_id,
              (SELECT count(*) FROM request_metrics WHERE message_id = m.id)
                AS request_count
       FROM messages AS m
       LEFT JOIN request_metrics AS r ON r.id = (
           SELECT id FROM request_metrics WHERE message_id = m.id
           ORDER BY time DESC, id DESC LIMIT 1)""",
]


# A cascade's answer keeps its route, so a reopened conversation labels it as the
# live answer was ("fast · SmolLM2-135M"). The view lists the message columns by name,
# so it is made again with the new one.
_MESSAGE_ROUTE_4 = [
    "ALTER TABLE messages ADD COLUMN route TEXT",
    "DROP VIEW messages_with_metrics",
    """CREATE VIEW messages_with_metrics AS
       SELECT m.id, m.conversation_id, m.parent_id, m.role, m.content, m.thinking,
              m.state, m.active, m.created_at, m.server, m.model, m.error_message,
              m.route,
              r.ttft_ms, r.ttfo_ms, r.tpot_ms, r.tokens_per_s, r.e2el_ms, r.paint_ms,
              r.prompt_tokens, r.output_tokens, r.tier, r.id AS metrics_id,
              (SELECT count(*) FROM request_metrics WHERE message_id = m.id)
                AS request_count
       FROM messages AS m
       LEFT JOIN request_metrics AS r ON r.id = (
           SELECT id FROM request_metrics WHERE message_id = m.id
           ORDER BY time DESC, id DESC LIMIT 1)""",
]


def _schema_1(conn: sqlite3.Connection) -> None:
    for statement in _SCHEMA_1:
        conn.execute(statement)


def _search_2(conn: sqlite3.Connection) -> None:
    # Without FTS5 in this SQLite build, search falls back to LIKE (same results).
    if not fts5_trigram_available(conn):
        return
    for statement in _SEARCH_2:
        conn.execute(statement)


def _metrics_view_3(conn: sqlite3.Connection) -> None:
    for statement in _METRICS_VIEW_3:
        conn.execute(statement)


def _message_route_4(conn: sqlite3.Connection) -> None:
    for statement in _MESSAGE_ROUTE_4:
        conn.execute(statement)


_HISTORY_SUMMARIES_5 = [
    """CREATE TABLE history_summaries (
           conversation_id INTEGER PRIMARY KEY
               REFERENCES conversations(id) ON DELETE CASCADE,
           text TEXT NOT NULL,
           covered_ids TEXT NOT NULL,
           created_at REAL NOT NULL)""",
]


def _history_summaries_5(conn: sqlite3.Connection) -> None:
    for statement in _HISTORY_SUMMARIES_5:
        conn.execute(statement)


_MESSAGE_IMAGES_6 = [
    """CREATE TABLE message_images (
           id INTEGER PRIMARY KEY,
           message_id INTEGER NOT NULL REFERENCES messages(id) ON DELETE CASCADE,
           position INTEGER NOT NULL,
           mime TEXT NOT NULL,
           width INTEGER NOT NULL,
           height INTEGER NOT NULL,
           data BLOB NOT NULL,
           original BLOB,
           original_mime TEXT NOT NULL DEFAULT '',
           original_width INTEGER NOT NULL DEFAULT 0,
           original_height INTEGER NOT NULL DEFAULT 0,
           name TEXT NOT NULL DEFAULT '',
           prepare_ms REAL NOT NULL DEFAULT 0)""",
    "CREATE INDEX message_images_by_message ON message_images(message_id, position)",
]


def _message_images_6(conn: sqlite3.Connection) -> None:
    for statement in _MESSAGE_IMAGES_6:
        conn.execute(statement)


def _request_qoe_7(conn: sqlite3.Connection) -> None:
    # Andes' QoE of each answer (client/core/qoe.py); NULL for rows stored before it.
    conn.execute("ALTER TABLE request_metrics ADD COLUMN qoe REAL")


_MESSAGE_TOOL_CALLS_8 = [
    """CREATE TABLE message_tool_calls (
           id INTEGER PRIMARY KEY,
           message_id INTEGER NOT NULL REFERENCES messages(id) ON DELETE CASCADE,
           round INTEGER NOT NULL,
           position INTEGER NOT NULL,
           at_char INTEGER NOT NULL,
           call_id TEXT NOT NULL,
           name TEXT NOT NULL,
           arguments TEXT NOT NULL DEFAULT '',
           server TEXT NOT NULL DEFAULT '',
           status TEXT NOT NULL DEFAULT 'ready',
           result TEXT,
           is_error INTEGER NOT NULL DEFAULT 0,
           problem TEXT,
           ms REAL NOT NULL DEFAULT 0,
           UNIQUE (message_id, round, position))""",
]


def _message_tool_calls_8(conn: sqlite3.Connection) -> None:
    for statement in _MESSAGE_TOOL_CALLS_8:
        conn.execute(statement)


Migration = Callable[[sqlite3.Connection], None]
MIGRATIONS: list[Migration] = [
    _schema_1,
    _search_2,
    _metrics_view_3,
    _message_route_4,
    _history_summaries_5,
    _message_images_6,
    _request_qoe_7,
    _message_tool_calls_8,
]


def schema_version(conn: sqlite3.Connection) -> int:
    return int(conn.execute("PRAGMA user_version").fetchone()[0])


def migrate(conn: sqlite3.Connection, migrations: Sequence[Migration] = MIGRATIONS) -> int:
    """Apply the steps after the file's user_version, each in its own transaction.

    The version is read again inside each transaction, so two processes opening the
    same file at once (the app and `tachy metrics`) never apply a step twice.
    """
    while True:
        with write_transaction(conn):
            version = schema_version(conn)
            if version > len(migrations):
                raise DatabaseTooNew(
                    f"This history was written by a newer Tachy (schema {version}; this "
                    f"one knows {len(migrations)}). Update Tachy, or set TACHY_DATA_DIR."
                )
            if version == len(migrations):
                return version
            migrations[version](conn)
            conn.execute(f"PRAGMA user_version = {version + 1:d}")


@contextmanager
def write_transaction(
    conn: sqlite3.Connection, on_rollback: Callable[[], object] = lambda: None
) -> Iterator[sqlite3.Connection]:
    """BEGIN IMMEDIATE ... COMMIT, or ROLLBACK on error (then on_rollback()). Inside a
    transaction already open on conn, it joins that one. Every store's writes go
    through here (connections made with isolation_level=None: no implicit BEGIN)."""
    if conn.in_transaction:
        yield conn
        return
    conn.execute("BEGIN IMMEDIATE")
    try:
        yield conn
    except BaseException:
        on_rollback()
        conn.execute("ROLLBACK")
        raise
    try:
        conn.execute("COMMIT")
    except sqlite3.Error:
        # A full disk fails the COMMIT and may leave the transaction open: end it,
        # or every later write would join it and none would ever commit.
        on_rollback()
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise


class Database:
    """One SQLite connection, migrated on open. See the module docstring."""

    def __init__(
        self, path: Path | str | None = None, *, clock: Callable[[], float] = time.time
    ) -> None:
        in_memory = str(path) == ":memory:"  # for tests and throwaway sessions
        self.path = Path(path) if path is not None else database_path()
        if not in_memory:
            # Chats are private: only this user may read the folder and the file
            # (SQLite gives the -wal and -shm files the database file's permissions).
            self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
            os.close(os.open(self.path, os.O_CREAT | os.O_WRONLY, 0o600))
        self.clock = clock
        self._lock = threading.RLock()
        self.rollbacks = 0  # see change_stamp()
        self._executor: ThreadPoolExecutor | None = None
        # isolation_level=None: we issue BEGIN/COMMIT ourselves (see write_transaction()).
        self._conn = sqlite3.connect(
            ":memory:" if in_memory else self.path,
            isolation_level=None,
            check_same_thread=False,
            timeout=5.0,
        )
        self._conn.row_factory = sqlite3.Row
        try:
            self._conn.execute("PRAGMA journal_mode = WAL")
            self._conn.execute("PRAGMA synchronous = NORMAL")
            self._conn.execute("PRAGMA foreign_keys = ON")
            self.version = migrate(self._conn)
        except BaseException:
            self._conn.close()
            raise
        self.has_search_index = self._table_exists("message_search")

    def _table_exists(self, name: str) -> bool:
        row = self._conn.execute(
            "SELECT 1 FROM sqlite_master WHERE name = ? AND type IN ('table', 'view')", (name,)
        ).fetchone()
        return row is not None

    def execute(self, sql: str, params: Sequence[Any] | dict[str, Any] = ()) -> sqlite3.Cursor:
        with self._lock:
            return self._conn.execute(sql, params)

    def query(self, sql: str, params: Sequence[Any] | dict[str, Any] = ()) -> list[sqlite3.Row]:
        with self._lock:
            return self._conn.execute(sql, params).fetchall()

    def query_in(self, sql: str, ids: Sequence[int]) -> list[sqlite3.Row]:
        """`sql` with `{ids}` where its IN list goes, run once per 500 ids (SQLite's
        limit on bound parameters): every run's rows, in order."""
        rows: list[sqlite3.Row] = []
        for start in range(0, len(ids), 500):
            chunk = ids[start : start + 500]
            rows += self.query(sql.format(ids=", ".join("?" * len(chunk))), chunk)
        return rows

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """write_transaction() on this database's connection, holding its lock."""
        with self._lock, write_transaction(self._conn, self._rolled_back) as conn:
            yield conn

    def _rolled_back(self) -> None:
        self.rollbacks += 1

    @property
    def lock(self) -> threading.RLock:
        """Held by every call; hold it to make a read and a cache update one step."""
        return self._lock

    def change_stamp(self) -> tuple[int, int, int]:
        """Changes when anything may have changed the data: a write on this connection
        (total_changes), a rollback here, or a commit by another connection
        (data_version). Equal stamps: nothing changed. Costs a few microseconds."""
        with self._lock:
            other = self._conn.execute("PRAGMA data_version").fetchone()[0]
            return (self._conn.total_changes, self.rollbacks, other)

    async def run(self, fn: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
        """Run a store call on this database's worker thread, off the event loop."""
        if self._executor is None:
            self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="tachy-db")
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._executor, partial(fn, *args, **kwargs))

    def close(self) -> None:
        if self._executor is not None:
            self._executor.shutdown(wait=True)
            self._executor = None
        with self._lock:
            try:
                self._conn.execute("PRAGMA optimize")  # keeps the query planner's stats fresh
            except sqlite3.Error:
                pass  # already closed, or busy: the stats can wait for next time
            self._conn.close()

    def __enter__(self) -> Database:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
