"""The window on a laptop's screen: narrow enough for 1280 px, opened inside the screen,
a remembered geometry from a bigger screen kept on this one, the same dock width each
first start."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QRect, QSettings
from PySide6.QtWidgets import QApplication

from client.ui.hud import LatencyHud
from client.ui.servers.welcome import StarterButton
from client.ui.shell.app import TachyApp
from client.ui.shell.main_window import HUD_WIDTH, MainWindow
from client.ui.shell.window_geometry import FIRST_START

LAPTOPS = [QRect(0, 0, 1366, 768), QRect(0, 0, 1280, 720), QRect(1920, 24, 1280, 696)]
MOST_WIDTH = 900  # px: the window's least width, with the latency dock open


def _settled(app: TachyApp, qtbot: Any) -> None:
    app.view.fold.open_panel()  # below 1,100 px it is folded: opened as by a click
    qtbot.waitUntil(lambda: app.window.hud_dock.isVisible(), timeout=60_000)
    QApplication.processEvents()  # (tests only) the layout settles before we measure


def test_the_window_can_be_900_px_wide_with_the_dock_open(
    language: str, make_app: Callable[..., TachyApp], server: Any, qtbot: Any
) -> None:
    app = make_app(server.url)  # a server, its models, the warming state, the welcome panel
    _settled(app, qtbot)
    window = app.window
    assert window.hud_dock.widget() is not None and not window.hud_dock.isFloating()
    assert window.minimumSizeHint().width() <= MOST_WIDTH, _widest(window)
    window.resize(MOST_WIDTH, 700)
    QApplication.processEvents()
    assert window.width() <= MOST_WIDTH
    assert window.chat_view.width() >= 200 and window.composer.width() >= 200


def _widest(window: MainWindow) -> dict[str, int]:
    """What sets the window's least width (said when the test fails)."""
    parts = [window.server_toolbar, window.conversations, window.splitter.widget(1)]
    return {
        type(part).__name__: part.minimumSizeHint().width() for part in [*parts, window.hud_dock]
    }


@pytest.mark.parametrize("available", LAPTOPS, ids=lambda r: f"{r.width()}x{r.height()}")
def test_the_first_start_fits_the_screen(
    available: QRect, language: str, qtbot: Any, tmp_path: Path
) -> None:
    window = MainWindow(QSettings(str(tmp_path / "w.ini"), QSettings.Format.IniFormat))
    qtbot.addWidget(window)
    window.set_hud_widget(LatencyHud())
    window.fit_first_start(available)
    window.show()
    qtbot.waitExposed(window)
    QApplication.processEvents()
    assert available.contains(window.geometry()), (window.geometry(), available)
    assert window.width() >= min(FIRST_START.width(), available.width() - 60)
    assert window.hud_dock.width() == HUD_WIDTH
    assert window.splitter.widget(1).width() > window.conversations.width()  # the chat first


def test_the_dock_has_the_same_width_at_every_first_start(
    language: str, qtbot: Any, tmp_path: Path
) -> None:
    widths = []
    for run in range(2):
        path = str(tmp_path / f"w{run}.ini")
        window = MainWindow(QSettings(path, QSettings.Format.IniFormat), chat_view_later=True)
        qtbot.addWidget(window)
        window.show()  # the launch paints first, then fills the dock
        QApplication.processEvents()
        window.finish_chat_view()
        window.set_hud_widget(LatencyHud())
        qtbot.waitUntil(lambda w=window: w.hud_dock.width() == HUD_WIDTH, timeout=60_000)
        widths.append(window.hud_dock.width())
    assert widths == [HUD_WIDTH, HUD_WIDTH]


def test_a_geometry_saved_on_a_bigger_screen_is_kept_on_this_one(
    qtbot: Any, tmp_path: Path
) -> None:
    path = str(tmp_path / "w.ini")
    first = MainWindow(QSettings(path, QSettings.Format.IniFormat))
    qtbot.addWidget(first)
    first.show()
    first.setGeometry(300, 200, 1700, 1000)  # a 1920x1080 monitor's window
    first.close()
    second = MainWindow(QSettings(path, QSettings.Format.IniFormat))
    qtbot.addWidget(second)
    second.show()
    available = second.screen().availableGeometry()  # offscreen: 800x800
    assert available.contains(second.geometry()), (second.geometry(), available)
    laptop = QRect(0, 0, 1280, 720)
    second.setGeometry(300, 200, 1700, 1000)
    second.keep_on_screen(laptop)
    assert laptop.contains(second.geometry()), second.geometry()
    assert second.width() >= 1200  # made to fit, not made small


def test_a_starter_in_a_narrow_column_is_cut_and_whole_in_its_tooltip(qtbot: Any) -> None:
    long = "A reasoning question: " + "the bat and the ball " * 6
    button = StarterButton(long)
    qtbot.addWidget(button)
    button.setToolTip("Send this question")
    assert button.minimumSizeHint().width() < 200 < button.sizeHint().width()
    button.resize(180, 30)
    button.show()
    qtbot.waitUntil(lambda: button.text().endswith("…"), timeout=60_000)
    assert long.startswith(button.text()[:-1]) and long in button.toolTip()
    button.resize(button.sizeHint().width() + 40, 30)
    qtbot.waitUntil(lambda: button.text() == long, timeout=60_000)
    assert button.toolTip() == "Send this question"
