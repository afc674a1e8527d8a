"""The Chinese window after an answer and after a failure: the answer's footer, the
status line, the outcome bar and every view of the HUD (live, requests, waterfall with
its rows, tier, server) show no English word but the names kept on purpose.
tests/ui/shell/test_translations.py checks the window before anything was asked."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QWidget

from client.services.servers.servers import local_model_name
from client.ui.shell.app import TachyApp
from tests.ui.conftest import until
from tests.ui.shell.test_translations import _english, _texts

MODEL = "scripted:1b"
# Names a window keeps as they are: addresses and model names ("other:7b", the local
# engine's model, listed before its start).
NAMES = re.compile(rf"https?://\S+|\b[\w.-]+:\w+\b|{re.escape(local_model_name())}")


def _english_shown(app: TachyApp) -> list[str]:
    window = app.window
    found = []
    for widget in [window, *window.findChildren(QWidget)]:
        for where, text in _texts(widget):
            if _english(NAMES.sub("", text)):
                found.append(f"{where}: {text!r}")
    hud = app.hud
    rows = hud.waterfall.labels.shown()  # the names written above the bars
    found += [f"waterfall row: {t!r}" for t in rows if _english(t)]
    return found


def _ask(app: TachyApp, qtbot: Any, run: Any, question: str) -> None:
    async def ask() -> None:
        app.window.composer.setPlainText(question)
        qtbot.keyClick(app.window.composer, Qt.Key.Key_Return)
        await until(lambda: not app.page.busy and app.window.send_button.isEnabled())

    run(ask())


def test_after_an_answer_and_a_failure_nothing_is_english(
    chinese: None, make_app: Callable[..., TachyApp], server: Any, run: Any, qtbot: Any
) -> None:
    server.scripts.append([("token", "你好"), ("token", "！"), ("done",)])
    server.scripts.append([("status", 500, "out of memory")])
    app = make_app(server.url, MODEL)
    _ask(app, qtbot, run, "第一个问题")
    key = max(app.window.chat_view.keys())
    app.page.timingRequested.emit(key)  # the answer's Timing link: its waterfall
    assert app.hud.tabs.currentWidget() is app.hud.waterfall
    footer = app.window.chat_view.toPlainText()
    assert "词元" in footer, footer
    found = []
    for index in range(app.hud.tabs.count()):  # each view as a user opens it
        app.hud.tabs.setCurrentIndex(index)
        found += _english_shown(app)
    _ask(app, qtbot, run, "第二个问题")
    found += [f for f in _english_shown(app) if "out of memory" not in f]
    assert "out of memory" in app.window.outcome_bar.message_label.text()
    assert found == [], "\n".join(found)
