"""The Settings window: each page two clicks from the menu bar; each control writes
through to the services and the setting takes effect."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtWidgets import QMenu

from client.ui.common.reading_style import reading_style
from client.ui.settings.settings_window import PAGES, SettingsWindow
from client.ui.shell.app import TachyApp
from client.ui.shell.translations import LANGUAGE_KEY
from tests.ui.conftest import until


def _settings_menu(app: TachyApp) -> QMenu:
    menu = app.window.menuBar().findChild(QMenu, "settingsMenu")
    assert menu is not None
    return menu


def _open(app: TachyApp, page: int) -> SettingsWindow:
    """Click 1: the Settings menu; click 2: the page's item."""
    app.view.settings.page_actions[page].trigger()
    window = app.view.settings.window
    assert window is not None and window.isVisible()
    assert window.tabs.currentIndex() == page
    return window


def test_every_page_is_two_clicks_from_the_menu_bar(
    make_app: Callable[..., TachyApp], server: Any
) -> None:
    app = make_app(server.url)
    texts = [a.text() for a in _settings_menu(app).actions() if not a.isSeparator()]
    assert texts == [f"{page}…" for page in PAGES] + [
        "Tools (MCP servers)…", "Use tools in this conversation", "All settings…",
    ]  # fmt: skip
    for page in range(len(PAGES)):
        _open(app, page)
    assert app.view.settings.all_action.shortcut().toString() == "Ctrl+,"


def test_server_defaults_and_waits_take_effect_on_the_next_question(
    make_app: Callable[..., TachyApp], server: Any, run: Any
) -> None:
    app = make_app(server.url)
    window = _open(app, 0)
    window.system_prompt.setPlainText("Answer in one sentence.")
    window.temperature.setValue(0.3)
    window.max_tokens.setValue(512)
    window = _open(app, 1)
    window.slow_start.setValue(20)
    window.stall.setValue(30)
    window.close()  # the system prompt's last keystrokes are saved on closing
    saved = app.tachy.chat_defaults.load()
    assert saved.system_prompt == "Answer in one sentence." and saved.temperature == 0.3
    assert saved.max_tokens == 512 and saved.slow_start_after_s == 20.0
    session = app.page.session
    assert session is not None and session.settings.slow_start_after_s == 20.0
    assert session.settings.stall_timeout_s == 30.0

    async def ask() -> None:
        app.window.composer.setPlainText("hi")
        app.window.composer.submit()
        await until(lambda: not app.page.busy and server.requests)

    run(ask())
    body = server.requests[-1]
    assert body["messages"][0] == {"role": "system", "content": "Answer in one sentence."}
    assert body["options"]["temperature"] == 0.3 and body["options"]["num_predict"] == 512


def test_keep_alive_and_prompt_budget_write_through_their_menu(
    make_app: Callable[..., TachyApp], server: Any
) -> None:
    app = make_app(server.url, warm_models=True)
    warming = app.warming
    assert warming is not None
    window = _open(app, 0)
    assert window.keep_alive is not None and window.budget is not None
    window.keep_alive.setCurrentIndex(0)  # 5 min
    assert warming.policy.warmer.settings.keep_alive == "5m"
    assert warming.keep_alive_actions[0].isChecked()  # the server bar's menu agrees
    window.budget.setCurrentIndex(3)  # 2,000 tokens
    assert warming.policy.budget_setting == 2000
    warming.budget_actions[1].trigger()  # chosen in the menu: the window follows
    assert window.budget.currentIndex() == 1
    # The items say what their row's label does not repeat.
    assert window.keep_alive.itemText(0) == "5 min"
    assert window.budget.itemText(0) == "the model's context"
    assert window.budget.itemText(3) == "2,000 tokens"
    # The rows at the top of the page, not spread over its height.
    window.resize(560, 640)
    gap = window.budget.geometry().top() - window.keep_alive.geometry().bottom()
    assert gap < 20, gap


def test_documents_and_cascade_follow_their_menus_and_show_chips(
    make_app: Callable[..., TachyApp], server: Any
) -> None:
    app = make_app(server.url)
    window = _open(app, 2)
    chips = app.view.chips
    assert chips.isHidden()
    window.documents.setChecked(True)  # as Ctrl+K
    assert app.knowledge.toggle.isChecked()
    assert not chips.chips["documents"].isHidden() and not chips.isHidden()
    chips.chips["documents"].click()  # the chip turns it off
    assert not app.knowledge.toggle.isChecked() and not window.documents.isChecked()
    assert chips.isHidden()
    app.cascade_menu.compress_action.trigger()
    assert window.compress.isChecked() == app.cascade_menu.compress_action.isChecked()
    assert window.cascade.isEnabled() == app.cascade_menu.use_action.isEnabled()


def test_theme_text_size_and_language(make_app: Callable[..., TachyApp], server: Any) -> None:
    app = make_app(server.url)
    window = _open(app, 3)
    window.theme.setCurrentIndex(window.theme.findData("dark"))
    assert app.view.menu.theme() == "dark" and app.view.menu.theme_actions["dark"].isChecked()
    window.text_size.setValue(150)
    assert reading_style().zoom == 1.5
    app.view.menu.zoom_reset_action.trigger()  # Ctrl+0: the window follows
    assert window.text_size.value() == 100
    codes = list(app.language_menu.actions)
    window.language.setCurrentIndex(codes.index("zh_CN"))
    assert app.window.settings.value(LANGUAGE_KEY) == "zh_CN"
    assert app.language_menu.actions["zh_CN"].isChecked()
    window.theme.setCurrentIndex(window.theme.findData("system"))
