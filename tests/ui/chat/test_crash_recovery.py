"""Crash recovery: the app, a real process, is killed (SIGKILL) mid-answer and reopened.

A slow scripted server (its own thread) streams a long answer and notes what it has
sent and when. The app process (tests/app_process.py --send) asks
and saves the answer as it streams. After some text is in SQLite the process is
killed: every word the server sent more than 250 ms before the kill must be stored.
Reopened, the answer shows as interrupted with Continue, and Continue appends to it.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sqlite3
import subprocess
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from aiohttp import web
from PySide6.QtCore import Qt

from client.services.chat.session_events import NextStep
from tests.app_process import ROOT as APP_ROOT
from tests.app_process import command as app_process_command
from tests.ui.conftest import until

TOKEN_EVERY_S = 0.02  # 50 tokens/s: a slow local model
MAX_LOSS_S = 0.25  # issue 3, item 7
ENDING = " And that is the end."


class SlowServer:
    """Ollama's chat API on loopback in a thread: the first reply is endless and slow
    (it records (unix time, text so far) after each token), later replies are short."""

    def __init__(self) -> None:
        self.sent: list[tuple[float, str]] = []
        self.requests: list[dict[str, Any]] = []
        self.url = ""
        self._ready = threading.Event()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stopped: asyncio.Event | None = None
        self._thread = threading.Thread(target=asyncio.run, args=(self._serve(),), daemon=True)

    def start(self) -> str:
        self._thread.start()
        assert self._ready.wait(10), "the scripted server did not start"
        return self.url

    def stop(self) -> None:
        if self._loop is not None and self._stopped is not None:
            self._loop.call_soon_threadsafe(self._stopped.set)
        self._thread.join(60)

    def text_sent_before(self, moment: float) -> str:
        return next((text for at, text in reversed(self.sent) if at <= moment), "")

    async def _serve(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._stopped = asyncio.Event()
        app = web.Application()
        app.router.add_get("/api/version", _answer({"version": "0.9.0"}))
        app.router.add_get("/api/tags", _answer({"models": [{"name": "scripted:1b"}]}))
        app.router.add_get("/api/ps", _answer({"models": []}))
        app.router.add_post("/api/chat", self._chat)
        runner = web.AppRunner(app, handle_signals=False)
        await runner.setup()
        site = web.TCPSite(runner, "127.0.0.1", 0)
        await site.start()
        port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
        self.url = f"http://127.0.0.1:{port}"
        self._ready.set()
        await self._stopped.wait()
        await runner.cleanup()

    async def _chat(self, request: web.Request) -> web.StreamResponse:
        body = await request.json()
        self.requests.append(body)
        response = web.StreamResponse(headers={"Content-Type": "application/x-ndjson"})
        await response.prepare(request)
        if len(self.requests) > 1:
            await _line(response, _chunk(ENDING, done=False))
            await _line(response, _chunk("", done=True))
            return response
        text = ""
        for i in range(2000):  # 40 s at most; the app is killed long before
            word = f"w{i} "
            try:
                await _line(response, _chunk(word, done=False))
            except (ConnectionError, RuntimeError):
                return response  # the app is gone
            text += word
            self.sent.append((time.time(), text))
            await asyncio.sleep(TOKEN_EVERY_S)
        return response


def _answer(data: dict[str, Any]) -> Any:
    async def handler(_: web.Request) -> web.Response:
        return web.json_response(data)

    return handler


def _chunk(text: str, done: bool) -> dict[str, Any]:
    return {
        "model": "scripted:1b",
        "created_at": "2026-01-01T00:00:00Z",
        "message": {"role": "assistant", "content": text},
        "done": done,
        **({"done_reason": "stop", "eval_count": 1, "eval_duration": 1_000_000} if done else {}),
    }


async def _line(response: web.StreamResponse, data: dict[str, Any]) -> None:
    await response.write(json.dumps(data).encode() + b"\n")


@pytest.fixture
def slow_server() -> Iterator[SlowServer]:
    server = SlowServer()
    server.start()
    yield server
    server.stop()


def stored_answer(database: Path) -> tuple[str, str] | None:
    """(content, state) of the stored answer, read-only, or None before it exists."""
    if not database.exists():
        return None
    connection = sqlite3.connect(f"file:{database}?mode=ro", uri=True, timeout=5)
    try:
        row = connection.execute(
            "SELECT content, state FROM messages WHERE role = 'assistant' ORDER BY id LIMIT 1"
        ).fetchone()
    except sqlite3.OperationalError:  # the schema is not there yet
        return None
    finally:
        connection.close()
    return (row[0], row[1]) if row else None


def wait_for(condition: Any, timeout_s: float, what: str) -> Any:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.02)  # a subprocess and a thread server: no Qt loop to serve here
    raise AssertionError(f"timed out waiting for {what}")


def tail(path: Path) -> str:
    return path.read_text(errors="replace")[-3000:] if path.exists() else ""


def test_killed_mid_answer_loses_at_most_250_ms_and_offers_continue(
    slow_server, data_dir, make_app, run, qtbot
):
    database = data_dir / "tachy.sqlite3"
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    log = data_dir.parent / "app.log"
    with log.open("w") as log_file:
        app_process = subprocess.Popen(
            app_process_command("--send", "Tell me a long story", "--url", slow_server.url,
                                "--api", "ollama", "--model", "scripted:1b"),
            env=env, stdout=log_file, stderr=subprocess.STDOUT, cwd=APP_ROOT,
        )  # fmt: skip
    try:
        try:
            wait_for(lambda: (stored_answer(database) or ("", ""))[0], 60, "text in SQLite")
        except AssertionError as error:
            raise AssertionError(f"{error}; the app's log:\n{tail(log)}") from None
        time.sleep(0.7)  # let it stream and flush a few more times
        killed_at = time.time()
        os.kill(app_process.pid, signal.SIGKILL)
    finally:
        app_process.kill()
        app_process.wait()
    stored = stored_answer(database)
    assert stored is not None
    content, state = stored
    assert state == "streaming"  # killed: nobody marked it
    sent = slow_server.text_sent_before(killed_at)
    assert sent.startswith(content) and content, "the stored text is what the server sent"
    must_have = slow_server.text_sent_before(killed_at - MAX_LOSS_S)
    lost_from = next(at for at, text in slow_server.sent if len(text) >= len(content))
    print(
        f"\n[crash] stored {len(content)} of {len(sent)} chars sent before the kill; "
        f"text lost: the last {(killed_at - lost_from) * 1000:.0f} ms"
    )
    assert len(content) >= len(must_have), "more than the last 250 ms of text was lost"

    app = make_app(slow_server.url)  # opening the history marks the answer interrupted
    w = app.window
    conversation_id = w.conversations.ids()[0]
    item = w.conversations.item_for(conversation_id)
    assert item is not None
    rect = w.conversations.list.visualItemRect(item)
    qtbot.mouseClick(w.conversations.list.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    answer_key = w.chat_view.keys()[-1]
    shown = w.chat_view.message(answer_key)
    assert shown.state == "interrupted" and shown.text == content
    assert "\nInterrupted   Copy" in w.chat_view.toPlainText()
    assert NextStep.CONTINUE.value in w.outcome_bar.buttons

    async def continue_it() -> None:
        qtbot.mouseClick(w.outcome_bar.button("continue"), Qt.MouseButton.LeftButton)
        await until(lambda: not app.page.busy and w.chat_view.message(answer_key).text != content)

    run(continue_it())
    assert w.chat_view.message(answer_key).text == content + ENDING
    assert app.stores.history.get_message(answer_key).state == "complete"
