"""A damaged, newer or unreachable history still opens: real files damaged on disk."""

from __future__ import annotations

import hashlib
import os
import shutil
import sqlite3
from pathlib import Path

import pytest

from client.store.conversations.history import HistoryStore
from client.store.db import Database
from client.store.recovery import ProblemKind, first_damage, open_history
from tests.mounts import fill_to_the_brim, needs_mount, remount_read_only, tmpfs

CONVERSATIONS = 30
TURNS = 10  # messages per conversation
PAGE = 4096


def fill(path: Path) -> None:
    """A history of 300 messages of ~600 bytes (about 60 pages of messages)."""
    with Database(path) as db:
        history = HistoryStore(db)
        for c in range(CONVERSATIONS):
            chat = history.create_conversation(f"chat {c}")
            parent = None
            for t in range(TURNS):
                role = "user" if t % 2 == 0 else "assistant"
                text = f"chat {c} turn {t} " + "word " * 120
                parent = history.add_message(chat.id, role, text, parent_id=parent).id
        db.execute("INSERT INTO settings (key, value) VALUES ('keep_alive', '\"30m\"')")


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def stored_texts(db: Database) -> set[str]:
    return {row[0] for row in db.query("SELECT content FROM messages")}


def every_path_reads(db: Database) -> int:
    history = HistoryStore(db, recover=False)
    shown = 0
    for conversation in history.list_conversations():
        shown += len(history.active_path(conversation.id))
    return shown


def test_a_sound_history_opens_without_a_problem(tmp_path: Path) -> None:
    path = tmp_path / "tachy.sqlite3"
    fill(path)
    opened = open_history(path)
    with opened.db:
        assert opened.problem is None
        assert len(stored_texts(opened.db)) == CONVERSATIONS * TURNS


def test_not_a_database_is_kept_aside_and_a_new_history_opens(tmp_path: Path) -> None:
    path = tmp_path / "tachy.sqlite3"
    path.write_bytes(b"this is a sync tool's conflict note, not SQLite\n" * 200)
    before = digest(path)
    opened = open_history(path)
    with opened.db:
        problem = opened.problem
        assert problem is not None and problem.kind is ProblemKind.DAMAGED
        assert "not a database" in problem.reason
        assert problem.kept_at is not None and problem.kept_at.parent == tmp_path
        assert "damaged" in problem.kept_at.name
        assert digest(problem.kept_at) == before  # kept byte for byte, never deleted
        assert problem.recovered_rows == 0
        # The new history works: it takes a conversation and survives a reopen.
        chat = HistoryStore(opened.db).create_conversation("after")
        assert chat.id > 0
    again = open_history(path)
    with again.db:
        assert again.problem is None
        assert [c.title for c in HistoryStore(again.db).list_conversations()] == ["after"]


def test_a_damaged_page_recovers_every_readable_row(tmp_path: Path) -> None:
    path = tmp_path / "tachy.sqlite3"
    fill(path)
    with Database(path) as db:
        total = len(stored_texts(db))
        pages = db.query("PRAGMA page_count")[0][0]
    # A bad sector in the middle of the messages: four pages of garbage.
    with path.open("r+b") as file:
        file.seek(PAGE * (pages // 2))
        file.write(os.urandom(PAGE * 4))
    damaged = digest(path)
    opened = open_history(path)
    with opened.db:
        problem = opened.problem
        assert problem is not None and problem.kind is ProblemKind.DAMAGED, problem
        assert problem.kept_at is not None and digest(problem.kept_at) == damaged
        recovered = stored_texts(opened.db)
        # Most of the history comes back; only the rows on the garbage pages are lost.
        assert total * 0.7 < len(recovered) < total, (len(recovered), total)
        assert problem.recovered["messages"] == len(recovered)
        assert first_damage(opened.db, full=True) is None
        assert opened.db.query("PRAGMA foreign_key_check") == []
        # Every recovered message is shown on some conversation's path.
        assert every_path_reads(opened.db) == len(recovered)
        settings = opened.db.query("SELECT value FROM settings WHERE key = 'keep_alive'")
        assert settings[0][0] == '"30m"'


def test_a_torn_wal_keeps_every_commit_before_the_tear(tmp_path: Path) -> None:
    """The app killed while the WAL held unsaved-to-the-file commits, and the last
    frame cut short (a crash mid-write): what committed before the tear is there."""
    live = tmp_path / "live" / "tachy.sqlite3"
    fill(live)
    writer = Database(live)
    writer.execute("PRAGMA wal_autocheckpoint = 0")  # keep the commits in the WAL
    history = HistoryStore(writer)
    chat = history.create_conversation("in the wal")
    for n in range(5):
        history.add_message(chat.id, "user", f"wal message {n}")
    crashed = tmp_path / "crashed"
    crashed.mkdir()
    for name in ("tachy.sqlite3", "tachy.sqlite3-wal"):
        shutil.copy(live.parent / name, crashed / name)
    writer.close()
    wal = crashed / "tachy.sqlite3-wal"
    with wal.open("r+b") as file:
        file.truncate(wal.stat().st_size - 1000)  # the last frame torn
    opened = open_history(crashed / "tachy.sqlite3")
    with opened.db:
        assert opened.problem is None
        texts = stored_texts(opened.db)
        assert {f"wal message {n}" for n in range(4)} <= texts
        assert len(texts) >= CONVERSATIONS * TURNS + 4


def test_a_newer_schema_is_shown_read_only_and_left_untouched(tmp_path: Path) -> None:
    path = tmp_path / "tachy.sqlite3"
    fill(path)
    with sqlite3.connect(path) as conn:
        conn.execute("ALTER TABLE messages ADD COLUMN newer_thing TEXT")
        conn.execute("PRAGMA user_version = 9")
    conn.close()
    before = digest(path)
    opened = open_history(path)
    with opened.db:
        problem = opened.problem
        assert problem is not None and problem.kind is ProblemKind.TOO_NEW
        assert "schema 9" in problem.reason and not problem.saving
        assert len(stored_texts(opened.db)) == CONVERSATIONS * TURNS
        HistoryStore(opened.db).create_conversation("only in memory")
    assert digest(path) == before
    # Nothing moved aside or made beside it (SQLite's own -wal/-shm of a reader aside).
    assert {p.name for p in tmp_path.iterdir()} <= {
        "tachy.sqlite3",
        "tachy.sqlite3-wal",
        "tachy.sqlite3-shm",
    }


def test_a_file_where_the_folder_should_be_gives_a_history_in_memory(tmp_path: Path) -> None:
    folder = tmp_path / "tachy"
    folder.write_text("not a folder")
    opened = open_history(folder / "tachy.sqlite3")
    with opened.db:
        problem = opened.problem
        assert problem is not None and problem.kind is ProblemKind.NOT_SAVING
        assert "is a file, not a folder" in problem.reason
        assert str(folder) in problem.sentence()
        history = HistoryStore(opened.db)
        chat = history.create_conversation("kept in memory")
        history.add_message(chat.id, "user", "every word")
        assert stored_texts(opened.db) == {"every word"}
    assert folder.read_text() == "not a folder"


@needs_mount
def test_a_read_only_mount_shows_its_history_from_memory(tmp_path: Path) -> None:
    """A backup disk or a live system: the history is there, nothing can be written."""
    with tmpfs(tmp_path / "mount", 8192) as folder:
        path = folder / "tachy.sqlite3"
        fill(path)
        remount_read_only(folder)
        before = digest(path)
        opened = open_history(path)
        with opened.db:
            problem = opened.problem
            assert problem is not None and problem.kind is ProblemKind.NOT_SAVING, problem
            assert "read-only" in problem.reason.lower(), problem.reason
            assert len(stored_texts(opened.db)) == CONVERSATIONS * TURNS
            HistoryStore(opened.db).create_conversation("kept in memory")
        assert digest(path) == before


@needs_mount
def test_a_full_disk_gives_a_history_in_memory(tmp_path: Path) -> None:
    with tmpfs(tmp_path / "mount", 8) as folder:
        (folder / "filler").write_bytes(b"\0" * (8 * 1024 - 1))  # nothing left
        opened = open_history(folder / "data" / "tachy.sqlite3")
        with opened.db:
            problem = opened.problem
            assert problem is not None and problem.kind is ProblemKind.NOT_SAVING, problem
            HistoryStore(opened.db).create_conversation("kept in memory")


def test_an_unreadable_setting_falls_back_to_its_default_with_a_log_note(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    from client.core.tiers import DEFAULT_THRESHOLDS
    from client.store.settings import Settings, tier_thresholds

    with Database(tmp_path / "tachy.sqlite3") as db:
        db.execute("INSERT INTO settings (key, value) VALUES ('tier_thresholds', '{torn')")
        db.execute("INSERT INTO settings (key, value) VALUES ('keep_alive', '\"5m\"')")
        settings = Settings(db)
        with caplog.at_level("WARNING", logger="tachy.store"):
            assert tier_thresholds(settings) == DEFAULT_THRESHOLDS
            assert settings.all() == {"keep_alive": "5m"}
        assert "'tier_thresholds' cannot be read" in caplog.text


@needs_mount
def test_a_commit_refused_by_a_full_disk_is_not_shown_as_saved(tmp_path: Path) -> None:
    """The refused COMMIT counts as a rollback, so the cached path is read again."""
    with tmpfs(tmp_path / "mount", 1024) as folder:
        with Database(folder / "tachy.sqlite3") as db:
            history = HistoryStore(db)
            chat = history.create_conversation("t")
            history.active_path(chat.id)  # cached
            filler = fill_to_the_brim(folder)
            with pytest.raises(sqlite3.OperationalError, match="full"):
                for n in range(10_000):  # until a write needs a page the disk has not got
                    history.add_message(chat.id, "user", f"message {n} " + "x" * 3000)
            assert not db._conn.in_transaction
            stored = db.query("SELECT count(*) FROM messages")[0][0]
            assert len(history.active_path(chat.id)) == stored == n
            filler.unlink()
            history.add_message(chat.id, "user", "after the room came back")
        with Database(folder / "tachy.sqlite3") as reopened:
            texts = [row[0] for row in reopened.query("SELECT content FROM messages")]
        assert texts[-1] == "after the room came back"
