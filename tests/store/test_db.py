from __future__ import annotations

import asyncio
import sqlite3
import tempfile
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import platformdirs
import pytest

from client.store import db as db_module
from client.store.conversations.history import HistoryStore
from client.store.db import MIGRATIONS, Database, DatabaseTooNew, database_path, migrate


def tables(database: Database) -> set[str]:
    return {row[0] for row in database.query("SELECT name FROM sqlite_master WHERE type='table'")}


def test_lives_in_tachy_data_dir_readable_only_by_the_user(data_dir: Path) -> None:
    with Database() as database:
        assert database.path == data_dir / "tachy.sqlite3" == database_path()
        database.execute("INSERT INTO settings VALUES ('a', '1')")
        for file in data_dir.iterdir():  # the database, its -wal and -shm
            assert file.stat().st_mode & 0o077 == 0, file.name
        assert data_dir.stat().st_mode & 0o077 == 0


def test_default_dir_is_the_platform_user_data_dir(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TACHY_DATA_DIR", raising=False)
    # (data_dir lives in client/store/places.py, importable before the window paints)
    monkeypatch.setattr(platformdirs, "user_data_dir", lambda *a, **k: "/x/tachy")
    assert db_module.data_dir() == Path("/x/tachy")


def test_tests_never_touch_the_real_data_dir() -> None:
    """tests/conftest.py points $TACHY_DATA_DIR at a temporary folder for the run."""
    folder = db_module.data_dir()
    assert folder != Path(platformdirs.user_data_dir("tachy", appauthor=False))
    assert folder.is_relative_to(tempfile.gettempdir()) and folder.is_dir()


def test_migrates_an_empty_file_to_the_latest_version(data_dir: Path) -> None:
    data_dir.mkdir(parents=True)
    (data_dir / "tachy.sqlite3").write_bytes(b"")  # an empty file is an empty database
    with Database() as database:
        assert database.version == len(MIGRATIONS) == 8
        assert database.query("PRAGMA user_version")[0][0] == len(MIGRATIONS)
        assert {"conversations", "messages", "request_metrics", "endpoints", "settings"} <= (
            tables(database)
        )
        assert database.has_search_index  # this SQLite has FTS5


def test_reopening_is_idempotent_and_keeps_data(data_dir: Path) -> None:
    with Database() as database:
        database.execute("INSERT INTO settings VALUES ('a', '1')")
        before = tables(database)
    for _ in range(2):
        with Database() as database:
            assert tables(database) == before
            assert database.query("SELECT value FROM settings")[0][0] == "1"
            assert database.version == len(MIGRATIONS)


def test_wal_and_foreign_keys_are_on(db: Database) -> None:
    assert db.query("PRAGMA journal_mode")[0][0] == "wal"
    assert db.query("PRAGMA foreign_keys")[0][0] == 1
    with pytest.raises(sqlite3.IntegrityError):
        db.execute(
            "INSERT INTO messages (conversation_id, role, created_at) VALUES (999, 'user', 0)"
        )


def test_a_newer_schema_is_refused(data_dir: Path) -> None:
    with Database() as database:
        database.execute(f"PRAGMA user_version = {len(MIGRATIONS) + 1}")
    with pytest.raises(DatabaseTooNew, match="newer Tachy"):
        Database()


def test_a_failing_step_rolls_back_and_keeps_the_version(tmp_path: Path) -> None:
    conn = sqlite3.connect(tmp_path / "x.db", isolation_level=None)

    def broken(c: sqlite3.Connection) -> None:
        c.execute("CREATE TABLE half_done (x)")
        raise RuntimeError("step failed")

    with pytest.raises(RuntimeError):
        migrate(conn, [MIGRATIONS[0], broken])
    assert conn.execute("PRAGMA user_version").fetchone()[0] == 1
    assert conn.execute("SELECT name FROM sqlite_master WHERE name='half_done'").fetchone() is None
    assert migrate(conn, [MIGRATIONS[0]]) == 1  # steps already applied are not re-run


def test_search_step_is_skipped_without_fts5(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(db_module, "fts5_trigram_available", lambda conn: False)
    with Database(tmp_path / "plain.db") as database:
        assert database.version == len(MIGRATIONS)
        assert not database.has_search_index


def test_transaction_rolls_back_on_error(db: Database) -> None:
    with pytest.raises(ValueError), db.transaction() as conn:
        conn.execute("INSERT INTO settings VALUES ('k', '1')")
        raise ValueError("boom")
    assert db.query("SELECT count(*) FROM settings")[0][0] == 0


def test_a_transaction_inside_another_joins_it(db: Database) -> None:
    """What an inner write does is undone with the outer one (the knowledge index and
    the migrations go through the same write_transaction)."""
    with pytest.raises(ValueError), db.transaction() as conn:
        conn.execute("INSERT INTO settings VALUES ('outer', '1')")
        with db.transaction() as inner:
            inner.execute("INSERT INTO settings VALUES ('inner', '1')")
        assert conn.in_transaction  # the inner one committed nothing
        raise ValueError("boom")
    assert db.query("SELECT count(*) FROM settings")[0][0] == 0


async def test_run_uses_one_worker_thread_off_the_loop(db: Database) -> None:
    loop_thread = threading.get_ident()
    threads = await asyncio.gather(*(db.run(threading.get_ident) for _ in range(5)))
    assert len(set(threads)) == 1 and loop_thread not in threads
    rows = await db.run(db.query, "SELECT 41 + 1")
    assert rows[0][0] == 42


def test_calls_from_many_threads_are_serialised(db: Database) -> None:
    history = HistoryStore(db)
    chat = history.create_conversation()
    message = history.add_message(chat.id, "assistant", state="streaming")

    def append(worker: int) -> None:
        for n in range(40):
            history.append_text(message.id, f"<{worker}:{n}>")
            history.list_conversations("zzz")  # a read between the writes

    with ThreadPoolExecutor(max_workers=4) as pool:
        list(pool.map(append, range(4)))
    stored = history.get_message(message.id)
    assert stored is not None
    for worker in range(4):
        pieces = [f"<{worker}:{n}>" for n in range(40)]
        assert all(piece in stored.content for piece in pieces)
        positions = [stored.content.index(piece) for piece in pieces]
        assert positions == sorted(positions)  # each writer's text stays in order


async def test_store_calls_run_through_the_executor(db: Database) -> None:
    history = HistoryStore(db)
    chat = await db.run(history.create_conversation, "async", model="m")
    message = await db.run(history.add_message, chat.id, "user", "hi")
    await db.run(history.append_text, message.id, " there")
    path = await db.run(history.active_path, chat.id)
    assert [m.content for m in path] == ["hi there"]


def test_an_in_memory_database_works_and_leaves_no_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    with Database(":memory:") as database:
        history = HistoryStore(database)
        chat = history.create_conversation("x")
        history.add_message(chat.id, "user", "hello there")
        assert [c.id for c in history.list_conversations("hello")] == [chat.id]
    assert list(tmp_path.iterdir()) == []
