"""The Demo menu's scenario files and live control: a bundled file played from the menu,
and one question moved through instant, fast, typing and slow while the lab runs."""

from __future__ import annotations

import re
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QMenu

from client.lab import PRESETS
from client.ui.chat.stage_line import TYPING
from client.ui.demo.demo_live import FILE_NAMES, bundled_scenarios
from tests.ui.conftest import until

STAGE_WITH_TIME = re.compile(r"^Reading your question… \d+\.\d s$")


def _submenu(app: Any, name: str) -> QMenu:
    menu = app.window.menuBar().findChild(QMenu, name)
    assert menu is not None
    return menu


def _by_name(app: Any, name: str) -> QAction:
    found = app.window.findChildren(QAction, name)
    assert len(found) == 1, name
    return found[0]


def _checked(app: Any) -> list[QAction]:
    """The Next answers items checked: what the presenter has set live."""
    return [a for a in _submenu(app, "labLiveControl").actions() if a.isChecked()]


def _ask(app: Any, qtbot: Any, question: str) -> None:
    app.window.composer.setPlainText(question)
    qtbot.keyClick(app.window.composer, Qt.Key.Key_Return)


def test_file_names_are_the_bundled_files() -> None:
    assert list(FILE_NAMES) == [path.stem for path in bundled_scenarios()]


def test_submenus_list_the_files_and_wait_for_the_lab(make_app, server) -> None:
    app = make_app(server.url)
    files = _submenu(app, "labScenarioFiles")
    assert [a.text() for a in files.actions()] == list(FILE_NAMES)
    live = _submenu(app, "labLiveControl")
    tiers = ["Instant (about 30 ms)", "Fast (about 180 ms)", "Typing (about 600 ms)"]
    assert [a.text() for a in live.actions()][:4] == [*tiers, "Slow (about 2.5 s)"]
    assert not files.isEnabled() and not live.isEnabled()


def test_a_file_from_the_menu_and_one_question_through_the_tiers(
    make_app, server, run, qtbot
) -> None:
    app = make_app(server.url)
    w = app.window
    view = w.chat_view
    book = app.hud.book

    async def flow() -> None:
        _by_name(app, "startLab").trigger()
        await until(lambda: app.demo.lab is not None and app.demo.task.done())
        await until(lambda: app.page.session.backend.base_url.startswith(app.demo.lab.url))
        assert _submenu(app, "labLiveControl").isEnabled()

        _by_name(app, "scenario-file-retry-after-503").trigger()
        await until(lambda: app.demo.scenario == "retry-after-503")
        assert _by_name(app, "scenario-file-retry-after-503").isChecked()
        assert not any(_by_name(app, f"scenario-{name}").isChecked() for name in PRESETS)
        _ask(app, qtbot, "Why is the sky blue?")
        await until(lambda: not app.page.busy)
        assert view.message(view.keys()[-1]).state == "failed"  # its first step: 503

        _by_name(app, "scenario-instant").trigger()
        await until(lambda: app.demo.scenario == "instant")
        _ask(app, qtbot, "And at sunset?")
        await until(lambda: not app.page.busy)
        # One question through the four tiers: the presenter picks the next answers'
        # tier and regenerates (Ctrl+R); the HUD shows each tier in large type.
        asked = [key for key in view.keys() if view.message(key).role == "user"]
        for tier, seen in (("instant", ""), ("fast", ""), ("typing", TYPING), ("slow", None)):
            _by_name(app, f"live-{tier}").trigger()
            await until(lambda: app.demo.task.done())
            assert [a.objectName() for a in _checked(app)] == [f"live-{tier}"]
            replies = len(book.records)
            w.shortcuts["regenerate"].activated.emit()
            if seen is None:
                await until(lambda: STAGE_WITH_TIME.match(w.stage_label.text()) is not None)
            elif seen:
                await until(lambda s=seen: w.stage_label.text() == s)
            await until(lambda: not app.page.busy)
            assert [key for key in view.keys() if view.message(key).role == "user"] == asked
            last = view.message(view.keys()[-1])
            assert last.state == "complete", tier
            # The HUD shows the tier of the TTFT measured (the lab's dial's tier on a
            # quiet machine; a busy one pushed an instant reply past 100 ms).
            await until(lambda n=replies: len(book.records) > n)
            await until(lambda: app.hud.tier.shown_tier() == _measured_tier(book))
            timing = app.demo.lab.server.state.live.describe()
            assert timing["ttft_ms"] == PRESETS[tier].ttft.p50_ms

        _by_name(app, "live-busy").trigger()
        await until(lambda: app.demo.task.done())
        assert [a.objectName() for a in _checked(app)] == ["live-slow", "live-busy"]
        _by_name(app, "live-busy").trigger()  # a second click: still set, still checked
        await until(lambda: app.demo.task.done())
        assert [a.objectName() for a in _checked(app)] == ["live-slow", "live-busy"]
        _ask(app, qtbot, "And on the Moon?")
        await until(lambda: not app.page.busy)
        assert view.message(view.keys()[-1]).state == "failed"
        _by_name(app, "live-clear").trigger()
        await until(lambda: app.demo.task.done())
        assert app.demo.lab.server.state.live.describe()["fault"] is None
        assert _checked(app) == []

        _by_name(app, "live-typing").trigger()
        await until(lambda: app.demo.task.done())
        _by_name(app, "scenario-fast").trigger()  # the lab forgets the live settings
        await until(lambda: app.demo.scenario == "fast")
        assert app.demo.lab.server.state.live.describe()["ttft_ms"] is None
        assert _checked(app) == []

    run(flow(), 90)


def _measured_tier(book: Any) -> object:
    ttft_ms = book.records[-1].ttft_ms
    return None if ttft_ms is None else book.thresholds.tier_of(ttft_ms)
