"""The Demo menu: the presenter's flow, typing -> slow -> reset, against the in-process lab."""

from __future__ import annotations

import re
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QMenu

from client.lab import PRESETS
from client.ui.chat.stage_line import TYPING
from client.ui.demo.demo_menu import LAB_MODEL, SCENARIO_NAMES
from tests.ui.conftest import until

STAGE_WITH_TIME = re.compile(r"^Reading your question… \d+\.\d s$")


def _menu(app: Any) -> QMenu:
    menu = app.window.menuBar().findChild(QMenu, "demoMenu")
    assert menu is not None and menu.title() == "&Demo"
    return menu


def _action(app: Any, text: str) -> QAction:
    """By its words, or a preset's by its id ("fast": the menu says "Fast reply …")."""
    actions = _menu(app).actions()
    found = [a for a in actions if a.text() == text or a.objectName() == f"scenario-{text}"]
    assert len(found) == 1, text
    return found[0]


def _ask(app: Any, qtbot: Any, question: str) -> None:
    app.window.composer.setPlainText(question)
    qtbot.keyClick(app.window.composer, Qt.Key.Key_Return)


async def _start_lab(app: Any) -> None:
    _action(app, "Start latency lab").trigger()
    demo = app.demo
    # The click returned at once: the lab starts in a worker thread, not in the GUI's.
    assert demo.lab is None and not demo.task.done()
    assert not _action(app, "Start latency lab").isEnabled()  # no second lab
    await until(lambda: demo.lab is not None and demo.task.done())
    await until(lambda: app.page.session.backend.base_url.startswith(demo.lab.url))


async def _pick(app: Any, name: str) -> None:
    _action(app, name).trigger()  # one click
    await until(lambda: app.demo.scenario == name)


def test_menu_lists_start_stop_and_every_preset(make_app, server) -> None:
    app = make_app(server.url)
    texts = [a.text() for a in _menu(app).actions() if not a.isSeparator()]
    submenus = ["Scenario files", "Next answers"]  # tests/ui/demo/test_demo_live.py
    submenus.append("Tool turns")  # tests/ui/demo/test_demo_tools.py
    races = ["Demo races", "Race…"]  # tests/ui/race/test_race_window.py
    plain = [SCENARIO_NAMES[name] for name in PRESETS]  # "Fast reply (under 300 ms)" ...
    assert texts == ["Start latency lab", "Stop latency lab", *plain, *submenus, *races]
    assert len(PRESETS) == 15  # tiers, faults, cold start, thinking, prefill, batching, bursts
    assert _action(app, "Start latency lab").isEnabled()
    assert not _action(app, "Stop latency lab").isEnabled()
    assert not any(_action(app, name).isEnabled() for name in PRESETS)  # no lab yet


def test_presenter_flow_typing_slow_reset_then_stop(make_app, server, run, qtbot) -> None:
    app = make_app(server.url)
    w = app.window
    view = w.chat_view

    async def flow() -> None:
        await _start_lab(app)
        assert app.page.session.model == LAB_MODEL
        assert app.page.session.backend.api == "ollama"
        assert app.servers.current.name == "Latency lab (demo)"
        assert _action(app, "fast").isChecked()  # the lab starts with "fast"

        await _pick(app, "typing")
        assert _action(app, "typing").isChecked() and not _action(app, "fast").isChecked()
        _ask(app, qtbot, "Why is the sky blue?")
        await until(lambda: w.stage_label.text() == TYPING)  # 300 ms .. first token
        await until(lambda: not app.page.busy)
        assert view.message(view.keys()[-1]).state == "complete"

        await _pick(app, "slow")
        _ask(app, qtbot, "And at sunset?")
        await until(lambda: STAGE_WITH_TIME.match(w.stage_label.text()) is not None)
        await until(lambda: not app.page.busy)
        assert view.message(view.keys()[-1]).state == "complete"
        assert w.stage_label.text() == ""

        await _pick(app, "reset")
        _ask(app, qtbot, "And on the Moon?")
        await until(lambda: not app.page.busy and w.outcome_bar.isVisible())

    run(flow(), 40)
    key = view.keys()[-1]
    partial = view.message(key).text
    assert view.message(key).state == "interrupted"
    assert partial and partial in view.toPlainText()
    assert list(w.outcome_bar.buttons) == ["continue", "retry"]
    assert [b.text() for b in w.outcome_bar.buttons.values()] == ["Continue", "Retry"]
    stored = app.stores.history.get_message(key)
    assert (stored.content, str(stored.state)) == (partial, "interrupted")

    async def continue_on_a_healthy_lab() -> None:
        await _pick(app, "instant")
        qtbot.mouseClick(w.outcome_bar.button("continue"), Qt.MouseButton.LeftButton)
        await until(lambda: not app.page.busy and view.message(key).state == "complete")

    run(continue_on_a_healthy_lab())
    assert view.message(key).text.startswith(partial)
    assert len(view.message(key).text) > len(partial)

    async def stop_lab() -> None:
        _action(app, "Stop latency lab").trigger()
        await until(lambda: app.demo.lab is None and app.demo.task.done())
        await until(lambda: app.page.session.backend.base_url.startswith(server.url))
        _ask(app, qtbot, "back home?")
        await until(lambda: not app.page.busy and "Hello there." in view.toPlainText())

    run(stop_lab())
    assert app.servers.current.url == server.url
    assert _action(app, "Start latency lab").isEnabled()
    assert not any(_action(app, name).isChecked() for name in PRESETS)
    assert all(c.name != "Latency lab (demo)" for c in w.server_bar.choices)


def test_quitting_the_app_stops_the_lab(make_app, server, run) -> None:
    app = make_app(server.url)
    run(_start_lab(app))
    thread = app.demo.lab.thread
    assert thread.is_alive()
    run(app.aclose())
    assert not thread.is_alive()
    assert app.demo.lab is None


def test_stopping_after_choosing_another_server_stays_there(make_app, server, run) -> None:
    app = make_app(server.url)
    run(_start_lab(app))
    scripted = next(c for c in app.window.server_bar.choices if c.url == server.url)
    run(app.servers.select(scripted, "other:7b"))  # the presenter picked a server meanwhile

    async def stop() -> None:
        _action(app, "Stop latency lab").trigger()
        await until(lambda: app.demo.lab is None and app.demo.task.done())

    run(stop())
    assert app.servers.current == scripted
    assert app.page.session.model == "other:7b"  # not switched again
    assert app.window.server_bar.current_choice() == scripted
