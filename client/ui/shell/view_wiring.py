"""The window's view: the latency panel's width and fold, the View and Settings menus,
Present, the composer's chips. Wired once by TachyApp after the HUD, the warming, the
knowledge and cascade menus it refers to."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from PySide6.QtCore import QCoreApplication
from PySide6.QtGui import QAction

from client.core.tiers import DEFAULT_THRESHOLDS, TierThresholds
from client.ui.chat.composer_chips import ComposerChips
from client.ui.common.noop_tr import QT_TRANSLATE_NOOP
from client.ui.common.reading_style import reading_style
from client.ui.settings.settings_menu import SettingsMenu
from client.ui.settings.settings_window import SettingsSources
from client.ui.tools.tool_turn_view import ToolTurnView
from client.ui.view.answer_glance import AnswerGlance
from client.ui.view.latency_fold import LatencyFold
from client.ui.view.present_mode import PresentMode
from client.ui.view.view_menu import ViewMenu

if TYPE_CHECKING:
    from client.ui.chat.chat_page import ChatPage
    from client.ui.hud import LatencyHud
    from client.ui.shell.main_window import MainWindow

EDITING_WORDS = (
    QT_TRANSLATE_NOOP("ComposerChips", "Editing your question"),
    QT_TRANSLATE_NOOP(
        "ComposerChips",
        "Enter sends the edit as a new version of the question. Click to ask it as a new "
        "question instead.",
    ),
)
CHIP_WORDS = (  # the documents chip, its tip; the cascade chip, its tip
    QT_TRANSLATE_NOOP("ComposerChips", "Searching your documents"),
    QT_TRANSLATE_NOOP(
        "ComposerChips", "Your documents are searched for each question (Ctrl+K). Click to stop."
    ),
    QT_TRANSLATE_NOOP("ComposerChips", "Cascade"),
    QT_TRANSLATE_NOOP(
        "ComposerChips", "The cascade chooses the fast or the strong model. Click to stop."
    ),
)

TOOLS_CHIP_WORDS = (
    QT_TRANSLATE_NOOP("ComposerChips", "Tools"),
    QT_TRANSLATE_NOOP(
        "ComposerChips",
        "The model may ask to use this conversation's tools; you approve each call. "
        "Click to stop offering them here.",
    ),
)


def _chip_word(text: str) -> str:
    return QCoreApplication.translate("ComposerChips", text)


@dataclass
class WindowView:
    glance: AnswerGlance
    fold: LatencyFold
    menu: ViewMenu
    present: PresentMode
    settings: SettingsMenu
    chips: ComposerChips


def attach_view(
    window: MainWindow, page: ChatPage, hud: LatencyHud | None, sources: SettingsSources
) -> WindowView:
    glance = AnswerGlance(sources.tachy.events)  # the root's turns, as the HUD hears them
    fold = LatencyFold(window, window.hud_dock, glance.figures)
    if hud is not None:
        fold.keep_width(hud)
    zoom = reading_style()
    menu = ViewMenu(window, window.conversations, window.hud_dock, zoom)

    def thresholds() -> TierThresholds:
        return hud.book.thresholds if hud is not None else DEFAULT_THRESHOLDS

    def tier_tab() -> None:
        if hud is not None:
            hud.tabs.setCurrentWidget(hud.tier)

    present = PresentMode(
        window, window.conversations, zoom, fold, glance.figures, tier_tab, thresholds
    )
    menu.present_action.triggered.connect(present.toggle)
    settings = SettingsMenu(window, sources, menu)
    chips = _chips(window, page, sources)
    tools = ToolTurnView(window, page, sources.tachy.turn_tools)  # approval card, stages
    after_tools = settings.menu.actions()  # the switch goes under "Tools (MCP servers)…"
    settings.menu.insertAction(after_tools[after_tools.index(settings.tools_action) + 1],
                               tools.use_action)  # fmt: skip
    words = TOOLS_CHIP_WORDS
    chips.follow("tools", tools.use_action, _chip_word(words[0]), _chip_word(words[1]))
    page.conversationChanged.connect(lambda _id: chips.refresh())
    page.conversationShown.connect(chips.refresh)
    settings.menu.aboutToShow.connect(tools.refresh)  # a server added meanwhile
    menu.restore()
    return WindowView(glance, fold, menu, present, settings, chips)


def _chips(window: MainWindow, page: ChatPage, sources: SettingsSources) -> ComposerChips:
    chips = ComposerChips(window)
    layout = window.centre_layout
    layout.insertWidget(layout.indexOf(window.stage_label) + 1, chips)

    def tr(text: str) -> str:
        return QCoreApplication.translate("ComposerChips", text)

    words = CHIP_WORDS
    chips.follow("documents", sources.knowledge.toggle, tr(words[0]), tr(words[1]))
    chips.follow("cascade", sources.cascade.use_action, tr(words[2]), tr(words[3]))
    editing = QAction(chips)  # on while an earlier question is edited in the composer
    editing.setCheckable(True)
    page.editingChanged.connect(editing.setChecked)
    editing.toggled.connect(lambda on: None if on else page.stop_editing())
    chips.follow("editing", editing, tr(EDITING_WORDS[0]), tr(EDITING_WORDS[1]))
    page.conversationChanged.connect(lambda _id: chips.refresh())
    return chips
