"""The main window: names, focus, remembered layout, shortcuts, servers and models."""

from __future__ import annotations

import asyncio
from typing import Any

from PySide6.QtCore import QSettings, Qt
from PySide6.QtWidgets import (
    QApplication,
    QDockWidget,
    QLabel,
    QStyle,
    QStyleOptionComboBox,
    QWidget,
)

from client.cli import build_parser
from client.services.servers.servers import LOCAL_ENGINE_LABEL, ServerChoice
from client.services.storage.stores import open_stores
from client.ui.shell.app import TachyApp
from client.ui.shell.main_window import MainWindow
from tests.ui.conftest import NoEngine, until

NAMES = ["composer", "sendButton", "stopButton", "chatView", "conversationList", "stageLabel"]


def test_key_widgets_have_object_and_accessible_names(make_app, server) -> None:
    app = make_app(server.url)
    for name in NAMES:
        widget = app.window.findChild(QWidget, name)
        assert widget is not None, name
        assert widget.accessibleName(), name
    dock = app.window.findChild(QDockWidget, "hudDock")
    assert dock is not None and dock.accessibleName()
    assert dock.widget() is not None  # the HUD went into it


def test_composer_has_focus_when_the_window_opens(make_app, server, qtbot) -> None:
    app = make_app(server.url)
    qtbot.waitUntil(lambda: QApplication.focusWidget() is app.window.composer, timeout=60_000)


def test_url_and_model_open_with_that_server(make_app, server) -> None:
    app = make_app(server.url, model="other:7b")
    assert app.page.session.model == "other:7b"
    assert app.page.session.backend.base_url.startswith(server.url)
    assert app.window.server_bar.model_picker.currentText() == "other:7b"
    assert app.window.server_bar.model_names() == ["scripted:1b", "other:7b"]


def test_cli_parses_url_api_model() -> None:
    args = build_parser().parse_args(
        ["--url", "http://127.0.0.1:1", "--api", "openai", "--model", "m"]
    )
    assert (args.command, args.url, args.api, args.model) == (
        None,
        "http://127.0.0.1:1",
        "openai",
        "m",
    )


def test_geometry_splitter_and_dock_are_remembered(qtbot, tmp_path) -> None:
    path = str(tmp_path / "window.ini")
    first = MainWindow(QSettings(path, QSettings.Format.IniFormat))
    qtbot.addWidget(first)
    first.show()
    first.hud_dock.hide()
    first.resize(700, 500)  # the offscreen screen is 800x600: restore clamps to it
    first.splitter.setSizes([250, 450])
    saved_size, saved_left = first.size(), first.splitter.sizes()[0]
    first.close()
    second = MainWindow(QSettings(path, QSettings.Format.IniFormat))
    qtbot.addWidget(second)
    second.show()
    assert second.size() == saved_size
    assert abs(second.splitter.sizes()[0] - saved_left) <= 2
    assert not second.hud_dock.isVisible()


def tab_chain(window: MainWindow) -> list[str]:
    """Class and object name of each control Tab reaches, in order."""
    chain, widget = [], window.nextInFocusChain()
    while widget is not window:
        if widget.isVisible() and widget.focusPolicy() & Qt.FocusPolicy.TabFocus:
            chain.append(f"{type(widget).__name__}#{widget.objectName()}")
        widget = widget.nextInFocusChain()
    return chain


def test_a_chat_view_made_after_the_paint_takes_the_stand_ins_place(qtbot, tmp_path) -> None:
    """The launch paints a stand-in where the chat goes and puts the chat view there
    after the paint: the window then is the same as one built whole."""
    settings = QSettings(str(tmp_path / "window.ini"), QSettings.Format.IniFormat)
    whole = MainWindow(settings)
    later = MainWindow(settings, chat_view_later=True)
    for window in (whole, later):
        qtbot.addWidget(window)
        window.show()
    assert later.findChild(QWidget, "chatView") is not None  # the stand-in, styled as the chat
    later.finish_chat_view()
    qtbot.waitUntil(
        lambda: later.chat_view.geometry() == whole.chat_view.geometry(), timeout=60_000
    )
    assert later.findChild(QWidget, "chatView") is later.chat_view
    assert tab_chain(later) == tab_chain(whole)
    assert "ChatView#chatView" in tab_chain(whole)


def test_shortcuts(make_app, server, run, qtbot) -> None:
    app = make_app(server.url)
    w = app.window
    keys = {name: s.key().toString() for name, s in w.shortcuts.items()}
    assert keys == {
        "stop": "Esc",
        "regenerate": "Ctrl+R",
        "focus": "Ctrl+L",
        "new": "Ctrl+N",
        "search": "Ctrl+F",
        "quit": "Ctrl+Q",
    }
    w.shortcuts["search"].activated.emit()
    assert QApplication.focusWidget() is w.conversations.search_box
    w.shortcuts["focus"].activated.emit()
    assert QApplication.focusWidget() is w.composer
    qtbot.keyClick(w.composer, Qt.Key.Key_A)
    qtbot.keyClick(w.composer, Qt.Key.Key_Return, Qt.KeyboardModifier.ShiftModifier)
    qtbot.keyClick(w.composer, Qt.Key.Key_B)
    assert app.window.composer.toPlainText() == "a\nb"  # Shift+Enter: a new line, not a send
    assert not app.page.busy
    closed: list[bool] = []
    w.closed.connect(lambda: closed.append(True))  # what ends the app's main loop
    w.shortcuts["quit"].activated.emit()
    assert closed and not w.isVisible()


def test_no_server_starts_the_local_engine_without_blocking(qtbot, run, data_dir, monkeypatch):
    async def nothing(*_: Any, **__: Any) -> list[Any]:
        return []

    monkeypatch.setattr("client.ui.servers.server_controller.detected_choices", nothing)
    stores = open_stores(data_dir / "tachy.sqlite3")
    settings = QSettings(str(data_dir / "w.ini"), QSettings.Format.IniFormat)
    app = TachyApp(stores, settings, engine_factory=NoEngine)
    app.window.show()
    try:
        run(app.start())  # returns while the engine is still starting
        assert app.window.stage_label.text() == "Starting local model…"
        assert app.servers.engine is not None and NoEngine.started >= 1
        # The user can type and send meanwhile; the question waits for the engine.
        app.window.composer.setPlainText("hi")
        app.window.composer.submit()
        assert app.page._pending_question == "hi"
        label = app.window.findChild(QLabel, "stageLabel")
        assert label is not None and label.text().startswith("Starting local model")
        assert "hi" in app.window.chat_view.toPlainText()  # shown, waiting for the engine
        picker = app.window.server_bar.server_picker
        assert picker.currentText() == LOCAL_ENGINE_LABEL
    finally:
        run(app.aclose())
        stores.close()
        app.window.close()


def test_local_engine_label_and_waiting_question_go_out_when_it_runs(
    qtbot, run, data_dir, monkeypatch, server
):
    ready = asyncio.Event()

    class ReadyEngine(NoEngine):
        async def start(self) -> None:
            await ready.wait()
            self.url = server.url  # the scripted server plays the engine
            self.running = True

    async def nothing(*_: Any, **__: Any) -> list[Any]:
        return []

    def scripted_choice(url: str) -> ServerChoice:
        return ServerChoice(LOCAL_ENGINE_LABEL, url, "ollama", is_local=True)

    monkeypatch.setattr("client.ui.servers.server_controller.detected_choices", nothing)
    monkeypatch.setattr("client.ui.servers.server_controller.local_engine_choice", scripted_choice)
    stores = open_stores(data_dir / "tachy.sqlite3")
    settings = QSettings(str(data_dir / "w.ini"), QSettings.Format.IniFormat)
    app = TachyApp(stores, settings, engine_factory=ReadyEngine)
    app.window.show()
    try:
        run(app.start())
        app.window.composer.setPlainText("asked while starting")
        app.window.composer.submit()
        ready.set()
        run(until(lambda: "Hello there." in app.window.chat_view.toPlainText()))
        picker = app.window.server_bar.server_picker
        assert picker.currentText() == LOCAL_ENGINE_LABEL  # its port means nothing to users
        assert picker.toolTip() == f"{LOCAL_ENGINE_LABEL}  —  {server.url}"
        # The whole label shows at the first-start size, with the latency dock open
        # (it was cut to "Local model (SmolLM2").
        app.window.resize(1240, 780)
        run(until(lambda: app.window.hud_dock.isVisible()))
        QApplication.processEvents()
        shown = picker.style().subControlRect(
            QStyle.ComplexControl.CC_ComboBox,
            _combo_option(picker),
            QStyle.SubControl.SC_ComboBoxEditField,
            picker,
        )
        assert shown.width() >= picker.fontMetrics().horizontalAdvance(LOCAL_ENGINE_LABEL)
        assert app.page.session.is_local
        assert server.requests[-1]["messages"][-1]["content"] == "asked while starting"
        view = app.window.chat_view
        assert [view.message(k).role for k in view.keys()] == ["user", "assistant"]
    finally:
        run(app.aclose())
        stores.close()
        app.window.close()


def test_conversations_deleted_by_an_earlier_session_are_purged_at_start(tmp_path) -> None:
    from client.services.storage.stores import DELETED_GRACE_S

    path = tmp_path / "tachy.sqlite3"
    stores = open_stores(path)
    history, clock = stores.history, stores.history.db.clock
    old = history.create_conversation("deleted yesterday")
    history.add_message(old.id, "user", "a private question")
    recent = history.create_conversation("deleted a minute ago")
    kept = history.create_conversation("not deleted")
    history.db.clock = lambda: clock() - 86_400
    history.soft_delete(old.id)
    history.db.clock = lambda: clock() - 60
    history.soft_delete(recent.id)
    history.db.clock = clock
    stores.close()

    stores = open_stores(path)  # the next start
    assert stores.history.get_conversation(old.id) is None  # gone, with its messages
    messages = "SELECT id FROM messages WHERE conversation_id = ?"
    assert not stores.history.db.query(messages, (old.id,))
    assert stores.history.get_conversation(recent.id) is not None  # within the grace period
    assert stores.history.get_conversation(kept.id) is not None
    assert DELETED_GRACE_S < 86_400
    stores.close()


def _combo_option(combo: Any) -> Any:
    option = QStyleOptionComboBox()
    combo.initStyleOption(option)
    return option
