"""Starting the desktop app: one QApplication, one qasync loop, one main window.

The loop runs until an asyncio.Event set on aboutToQuit (qasync's recommended shape),
then cleanup closes every backend's HTTP client and stops the local engine.
"""

from __future__ import annotations

import asyncio
import logging
import os
import sys
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

from PySide6.QtCore import QSettings
from PySide6.QtGui import QIcon
from PySide6.QtWidgets import QApplication

from client.ui.async_errors import (
    add_error_sink,
    loop_exception_handler,
    remove_error_sink,
    report,
    spawn,
)
from client.ui.chat_page import ChatPage
from client.ui.main_window import MainWindow
from client.ui.server_control import ServerControl

log = logging.getLogger("tachy.ui")
RESOURCES = Path(__file__).resolve().parents[2] / "resources"


@dataclass(slots=True)
class Stores:
    """The app's persistence (client.store), opened once."""

    history: Any = None
    metrics: Any = None
    endpoints: Any = None
    settings: Any = None


def open_stores(path: Path | None = None) -> Stores:
    from client.store.db import Database
    from client.store.endpoints import EndpointStore
    from client.store.history import HistoryStore
    from client.store.metrics_store import MetricsStore
    from client.store.settings import Settings

    db = Database(path)
    return Stores(HistoryStore(db), MetricsStore(db), EndpointStore(db), Settings(db))


def qt_settings() -> QSettings:
    """Window geometry and dock state (TACHY_DATA_DIR keeps tests away from the user's)."""
    from client.store.db import data_dir

    if os.environ.get("TACHY_DATA_DIR") or os.environ.get("TACHY_TEST"):
        return QSettings(str(data_dir() / "window.ini"), QSettings.Format.IniFormat)
    return QSettings("Tachy", "Tachy")


class TachyApp:
    """The main window wired to its controllers. Tests build this with their own parts."""

    def __init__(
        self,
        stores: Stores | None = None,
        settings: QSettings | None = None,
        engine_factory: Any = None,
    ) -> None:
        self.stores = stores or Stores()
        self.window = MainWindow(settings or qt_settings())
        self.page = ChatPage(self.window, self.stores.history, self.stores.metrics)
        self.servers = ServerControl(self.window, self.page, self.stores, engine_factory)
        self._wire()
        add_error_sink(self._show_error)

    def _wire(self) -> None:
        from client.ui.conversation_control import ConversationControl

        self.conversations = ConversationControl(self.window, self.page, self.stores)
        w, page = self.window, self.page
        w.add_shortcut("stop", "Esc", page.stop)
        w.add_shortcut("regenerate", "Ctrl+R", page.regenerate)
        w.add_shortcut("focus", "Ctrl+L", lambda: w.composer.setFocus())
        w.add_shortcut("new", "Ctrl+N", self.conversations.new)
        w.add_shortcut("search", "Ctrl+F", w.conversations.focus_search)
        self._attach_hud()

    def _attach_hud(self) -> None:
        from client.ui.hud_link import attach_hud

        self.hud: Any = None
        try:
            self.hud = attach_hud(self)
        except Exception as error:  # the chat works without its HUD
            report(error, "the latency HUD")

    def _show_error(self, sentence: str) -> None:
        self.window.stage_label.setText(sentence)

    async def start(
        self, url: str | None = None, api: str = "auto", model: str | None = None
    ) -> None:
        self.conversations.refresh()
        await self.servers.start(url, api, model)

    async def aclose(self) -> None:
        remove_error_sink(self._show_error)
        self.page.stop()
        try:
            if self.hud is not None:
                await self.hud.aclose()
        finally:
            await self.servers.aclose()


def track_async_generators(loop: asyncio.AbstractEventLoop) -> None:
    """Let the loop finalise async generators (httpx response iterators ...) itself.

    asyncio's own run_forever installs these hooks; qasync's does not, so without this
    an abandoned generator is finalised by the garbage collector with no loop running.
    """
    base = asyncio.BaseEventLoop
    sys.set_asyncgen_hooks(
        firstiter=partial(base._asyncgen_firstiter_hook, loop),  # type: ignore[attr-defined]
        finalizer=partial(base._asyncgen_finalizer_hook, loop),  # type: ignore[attr-defined]
    )


def run_app(url: str | None = None, api: str = "auto", model: str | None = None) -> int:
    import qasync

    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s")
    app = QApplication.instance() or QApplication(sys.argv)
    assert isinstance(app, QApplication)
    app.setApplicationName("Tachy")
    app.setDesktopFileName("tachy")
    icon = RESOURCES / "icons" / "tachy.svg"
    if icon.exists():
        app.setWindowIcon(QIcon(str(icon)))
    style = RESOURCES / "style.qss"
    if style.exists():
        app.setStyleSheet(style.read_text(encoding="utf-8"))
    loop = qasync.QEventLoop(app)
    asyncio.set_event_loop(loop)
    loop.set_exception_handler(loop_exception_handler)
    track_async_generators(loop)
    # Exceptions in plain (sync) Qt slots: logged with their traceback, one sentence shown.
    sys.excepthook = lambda kind, error, tb: report(error.with_traceback(tb), "a Qt slot")
    # The window's close ends main(): cleanup runs while the loop still runs, then the
    # loop stops. aboutToQuit covers other ways of quitting.
    app.setQuitOnLastWindowClosed(False)
    quit_event = asyncio.Event()
    app.aboutToQuit.connect(quit_event.set)
    tachy = TachyApp(open_stores())
    tachy.window.closed.connect(quit_event.set)
    tachy.window.show()

    async def main() -> None:
        starting = spawn(tachy.start(url, api, model), "start")
        await quit_event.wait()
        starting.cancel()
        await tachy.aclose()
        await loop.shutdown_asyncgens()

    with loop:
        loop.run_until_complete(main())
    return 0
