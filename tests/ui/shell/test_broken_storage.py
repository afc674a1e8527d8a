"""`tachy` started on a broken history opens a working window that says what happened.

Each test runs the app as a process on a real damaged file or a real file in place of
the data folder, asks a question of a scripted server through the composer, and
checks what the banner says and what was kept.
"""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from client.services.storage import full_disk as saving
from client.store.conversations.history import HistoryStore
from client.store.db import Database
from tests.mounts import fill_to_the_brim, needs_mount, tmpfs
from tests.ui.conftest import until
from tests.ui.scripted_server import ScriptedOllama

ROOT = Path(__file__).resolve().parents[3]

# The app as `tachy` runs it; once started it prints the banner, sends a question and
# waits for its answer to be complete, prints what the history holds, then closes.
SCRIPT = r"""
import sys
from PySide6.QtCore import QTimer
import client.ui.shell.app as app_module
from tests.ui.scripted_server import ScriptedOllama
from tests.ui.conftest import until

original_start = app_module.TachyApp.start

async def start(self, *args, **kwargs):
    server = ScriptedOllama()
    await server.start()
    await original_start(self, server.url, "ollama", "scripted:1b")
    banner = self.storage_banner
    print("BANNER", banner.isVisible(), banner.message_label.text(), flush=True)
    self.window.composer.setPlainText("is anything lost?")
    self.page.send(self.window.composer.toPlainText())
    history = self.stores.history

    def answered():
        return any(
            m.role == "assistant" and m.state != "streaming"
            for c in history.list_conversations() for m in history.active_path(c.id)
        )

    await until(answered, 15)
    for conversation in history.list_conversations():
        for message in history.active_path(conversation.id):
            print("STORED", message.role, message.state, repr(message.content[:60]), flush=True)
    await server.stop()
    QTimer.singleShot(0, self.window.close)

app_module.TachyApp.start = start
sys.exit(app_module.run_app())
"""


def run_tachy(data_dir: Path) -> subprocess.CompletedProcess[str]:
    env = {
        **os.environ,
        "QT_QPA_PLATFORM": "offscreen",
        "TACHY_DATA_DIR": str(data_dir),
        "PYTHONPATH": str(ROOT),
    }
    return subprocess.run(
        [sys.executable, "-c", SCRIPT],
        env=env,
        capture_output=True,
        text=True,
        timeout=90,
        cwd=ROOT,
    )


def banner_line(done: subprocess.CompletedProcess[str]) -> str:
    assert done.returncode == 0, done.stderr[-3000:]
    assert "Traceback" not in done.stderr, done.stderr[-3000:]
    lines = [line for line in done.stdout.splitlines() if line.startswith("BANNER")]
    assert lines, done.stdout + done.stderr[-3000:]
    return lines[0]


def stored(done: subprocess.CompletedProcess[str]) -> list[str]:
    return [line for line in done.stdout.splitlines() if line.startswith("STORED")]


def test_a_file_that_is_not_a_database_opens_a_working_window(tmp_path: Path) -> None:
    data = tmp_path / "data"
    data.mkdir()
    (data / "tachy.sqlite3").write_bytes(b"\x00garbage from a bad sector\xff" * 500)
    done = run_tachy(data)
    line = banner_line(done)
    assert line.startswith("BANNER True Your history was damaged (file is not a database)")
    kept = [p for p in data.iterdir() if "damaged" in p.name]
    assert len(kept) == 1 and str(kept[0]) in line
    assert kept[0].read_bytes().startswith(b"\x00garbage")  # kept as it was
    # The new history took the question and its answer, on disk.
    assert any("'is anything lost?'" in s and "complete" in s for s in stored(done))
    with Database(data / "tachy.sqlite3") as db:
        texts = [row[0] for row in db.query("SELECT content FROM messages ORDER BY id")]
    assert texts[0] == "is anything lost?" and len(texts) == 2 and texts[1]


def test_damaged_pages_are_recovered_and_shown(tmp_path: Path) -> None:
    data = tmp_path / "data"
    with Database(data / "tachy.sqlite3") as db:
        history = HistoryStore(db)
        for n in range(40):
            chat = history.create_conversation(f"chat {n}")
            history.add_message(chat.id, "user", f"question {n} " + "word " * 400)
        pages = db.query("PRAGMA page_count")[0][0]
    with (data / "tachy.sqlite3").open("r+b") as file:
        file.seek(4096 * (pages - 3))
        file.write(b"\xa5" * 4096)
    done = run_tachy(data)
    line = banner_line(done)
    assert "Your history was damaged" in line and "readable entries were recovered" in line
    questions = [s for s in stored(done) if "question " in s]
    assert 30 <= len(questions) <= 40, done.stdout[-2000:]


def test_a_newer_history_is_shown_read_only(tmp_path: Path) -> None:
    data = tmp_path / "data"
    with Database(data / "tachy.sqlite3") as db:
        chat = HistoryStore(db).create_conversation("from the future")
        HistoryStore(db).add_message(chat.id, "user", "written by Tachy 9")
    with sqlite3.connect(data / "tachy.sqlite3") as conn:
        conn.execute("PRAGMA user_version = 9")
    conn.close()
    done = run_tachy(data)
    line = banner_line(done)
    assert "written by a newer Tachy (schema 9" in line and "nothing you do now is saved" in line
    assert any("'written by Tachy 9'" in s for s in stored(done))
    with sqlite3.connect(data / "tachy.sqlite3") as conn:
        assert conn.execute("SELECT content FROM messages").fetchall() == [("written by Tachy 9",)]
    conn.close()


def test_a_file_in_place_of_the_data_folder_keeps_the_chat_in_memory(tmp_path: Path) -> None:
    data = tmp_path / "data"
    data.write_text("a file where the folder should be")
    done = run_tachy(data)
    line = banner_line(done)
    assert line.startswith("BANNER True Nothing is being saved: Tachy cannot write to")
    assert "is a file, not a folder" in line
    rows = stored(done)
    assert any("'is anything lost?'" in s for s in rows)
    assert any(s.startswith("STORED assistant complete") for s in rows), done.stdout
    assert data.read_text() == "a file where the folder should be"


@pytest.fixture
def small_data_disk(data_dir: Path) -> Iterator[Path]:
    """The data folder on a 1 MiB tmpfs (set up before the app, so unmounted after it)."""
    with tmpfs(data_dir, 1024) as folder:
        yield folder


@needs_mount
def test_the_disk_filling_mid_answer_keeps_it_on_screen_and_saves_it_later(
    small_data_disk: Path, make_app: Any, server: ScriptedOllama, run: Any
) -> None:
    server.default = [("token", "First words."), ("hang",), ("token", " Then more."), ("done",)]
    app = make_app(server.url)
    history = app.stores.history

    def answer() -> Any:
        chats = history.list_conversations()
        path = history.active_path(chats[0].id) if chats else []
        return path[-1] if len(path) == 2 else None

    app.page.send("tell me everything")
    run(until(lambda: answer() is not None and answer().content == "First words."))
    filler = fill_to_the_brim(small_data_disk)
    server.release.set()
    run(until(lambda: app.page.runner.task is None or app.page.runner.task.done()))
    banner = app.storage_banner
    assert banner.isVisible()
    assert "cannot save right now" in banner.message_label.text()
    assert "First words. Then more." in app.window.chat_view.toPlainText()
    assert answer().state == "streaming"  # on disk: only what fitted
    filler.unlink()
    run(until(lambda: saving.waiting_writes() == 0))
    assert (answer().content, answer().state) == ("First words. Then more.", "complete")
    assert "Saving works again" in banner.message_label.text()
    # The request's figures waited for room too.
    rows = history.db.query(
        "SELECT outcome FROM request_metrics WHERE message_id = ?", (answer().id,)
    )
    assert [row[0] for row in rows] == ["complete"]


def test_a_damaged_window_ini_falls_back_to_the_default_layout(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture, qapp: Any
) -> None:
    from client.ui.shell.app import qt_settings
    from client.ui.shell.main_window import MainWindow

    data = tmp_path / "data"
    data.mkdir()
    (data / "window.ini").write_bytes(b"\x00\xff[window]\ngeometry=@ByteArray(\x01\nstate=[[[\n")
    monkeypatch.setenv("TACHY_DATA_DIR", str(data))
    with caplog.at_level("WARNING", logger="tachy.ui"):
        settings = qt_settings()
    assert "window layout at" in caplog.text and "FormatError" in caplog.text
    window = MainWindow(settings)  # opens with the default layout, no exception
    try:
        assert window.width() > 0 and window.hud_dock is not None
    finally:
        window.deleteLater()
