"""The Settings window: four pages, each a click from the Settings menu.

- Server: what every server is sent (system prompt, temperature, longest answer), how
  long the model stays loaded, the prompt budget;
- Waiting: the slow-start offer (15 s), a stalled stream, a cascade's first token;
- Documents and cascade: the documents search (Ctrl+K), the cascade's switches;
- Appearance: theme, text size, language.

Every control writes through at once: the chat defaults to Tachy's SavedChatDefaults
(client/services/settings/chat_defaults.py), the rest through the menu actions that
already hold them (keep-alive, budget, documents, cascade, language) or the View menu.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Protocol

from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QCloseEvent
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFormLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QSpinBox,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from client.services.settings.chat_defaults import ChatDefaults
from client.ui.common.noop_tr import QT_TRANSLATE_NOOP
from client.ui.common.reading_style import MAX_ZOOM, MIN_ZOOM, ReadingStyle
from client.ui.settings.action_bound import bound_check, bound_choice

if TYPE_CHECKING:
    from PySide6.QtGui import QAction
    from PySide6.QtWidgets import QComboBox

    from client.services.tachy import Tachy
    from client.ui.cascade.cascade_menu import CascadeMenu
    from client.ui.knowledge.knowledge_controller import KnowledgeController
    from client.ui.warming.warming_controller import WarmingController

PAGES = (
    QT_TRANSLATE_NOOP("SettingsWindow", "Server"),
    QT_TRANSLATE_NOOP("SettingsWindow", "Waiting"),
    QT_TRANSLATE_NOOP("SettingsWindow", "Documents and cascade"),
    QT_TRANSLATE_NOOP("SettingsWindow", "Appearance"),
)
THEME_NAMES = {
    "system": QT_TRANSLATE_NOOP("SettingsWindow", "As the system"),
    "light": QT_TRANSLATE_NOOP("SettingsWindow", "Light"),
    "dark": QT_TRANSLATE_NOOP("SettingsWindow", "Dark"),
}
SAVE_TEXT_AFTER_MS = 400  # the system prompt is saved this long after the last keystroke


class Appearance(Protocol):
    """The View menu's theme and zoom (client/ui/view/view_menu.py)."""

    zoom: ReadingStyle

    def theme(self) -> str: ...

    def set_theme(self, theme: str) -> None: ...


@dataclass
class SettingsSources:
    """What the pages show and write through (the shell gathers them)."""

    tachy: Tachy  # its chat defaults, and the session they go on at once
    warming: WarmingController | None  # the keep-alive and budget actions (None: off)
    knowledge: KnowledgeController  # the documents switch, adding a folder
    cascade: CascadeMenu  # its switches
    languages: list[QAction]  # the Language menu's, one per language


class SettingsWindow(QDialog):
    def __init__(
        self, parent: QWidget | None, sources: SettingsSources, appearance: Appearance
    ) -> None:
        super().__init__(parent)
        self.setObjectName("settingsWindow")
        self.setWindowTitle(self.tr("Settings"))
        self.sources, self.appearance = sources, appearance
        self.saved = sources.tachy.chat_defaults
        self.tabs = QTabWidget(self)
        self.tabs.setObjectName("settingsPages")
        for page, title in zip(
            (self._server_page(), self._waiting_page(), self._knowledge_page(), self._look_page()),
            PAGES,
            strict=True,
        ):
            self.tabs.addTab(page, self.tr(title))
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, self)
        buttons.rejected.connect(self.close)
        note = QLabel(self.tr("Changes take effect at once."), self)
        note.setObjectName("settingsNote")
        layout = QVBoxLayout(self)
        layout.addWidget(self.tabs, 1)
        layout.addWidget(note)
        layout.addWidget(buttons)
        self.resize(560, 460)

    def show_page(self, index: int) -> None:
        self.tabs.setCurrentIndex(index)
        self.show()
        self.raise_()
        self.activateWindow()

    # --- pages --------------------------------------------------------------------
    def _server_page(self) -> QWidget:
        page, form = _form_page(self)
        now = self.saved.load()
        self.system_prompt = QPlainTextEdit(now.system_prompt, page)
        self.system_prompt.setObjectName("systemPrompt")
        self.system_prompt.setTabChangesFocus(True)
        self.system_prompt.setPlaceholderText(self.tr("None: the model's own"))
        self.system_prompt.setMaximumHeight(90)
        self._text_timer = QTimer(self)
        self._text_timer.setSingleShot(True)
        self._text_timer.setInterval(SAVE_TEXT_AFTER_MS)
        self._text_timer.timeout.connect(self._save_defaults)
        self.system_prompt.textChanged.connect(self._text_timer.start)
        form.addRow(self.tr("System prompt"), self.system_prompt)
        self.temperature = QDoubleSpinBox(page, minimum=-0.1, maximum=2.0, singleStep=0.1)
        self.temperature.setDecimals(1)
        self.temperature.setSpecialValueText(self.tr("the server's own"))
        self.temperature.setValue(now.temperature if now.temperature is not None else -0.1)
        self.temperature.valueChanged.connect(self._save_defaults)
        form.addRow(self.tr("Temperature"), self.temperature)
        self.max_tokens = QSpinBox(page, minimum=0, maximum=1_000_000, singleStep=256)
        self.max_tokens.setSpecialValueText(self.tr("the server's own"))
        self.max_tokens.setGroupSeparatorShown(True)
        self.max_tokens.setValue(now.max_tokens or 0)
        self.max_tokens.valueChanged.connect(self._save_defaults)
        form.addRow(self.tr("Longest answer (tokens)"), self.max_tokens)
        warming = self.sources.warming
        self.keep_alive: QComboBox | None = None
        self.budget: QComboBox | None = None
        if warming is not None:
            keep, budget = self.tr("Keep the model loaded"), self.tr("Prompt budget")
            self.keep_alive = bound_choice(warming.keep_alive_actions, page, keep)
            self.budget = bound_choice(warming.budget_actions, page, budget)
            form.addRow(keep, self.keep_alive)
            form.addRow(budget, self.budget)
        return page

    def _waiting_page(self) -> QWidget:
        page, form = _form_page(self)
        now = self.saved.load()
        self.slow_start = self._seconds(page, now.slow_start_after_s, 1, 600)
        form.addRow(self.tr("Offer Keep waiting / Cancel after"), self.slow_start)
        self.stall = self._seconds(page, now.stall_timeout_s, 1, 600)
        form.addRow(self.tr("A silent stream has stalled after"), self.stall)
        self.first_token = self._seconds(page, now.first_token_timeout_s, 1, 3600)
        form.addRow(self.tr("A cascade's model waits at most"), self.first_token)
        return page

    def _seconds(self, page: QWidget, value: float, least: int, most: int) -> QDoubleSpinBox:
        spin = QDoubleSpinBox(page, minimum=least, maximum=most, decimals=0)
        spin.setSuffix(self.tr(" s"))
        spin.setValue(value)
        spin.valueChanged.connect(self._save_defaults)
        return spin

    def _knowledge_page(self) -> QWidget:
        page, form = _form_page(self)
        knowledge = self.sources.knowledge
        self.documents = bound_check(
            knowledge.toggle, self.tr("Search my documents in this conversation (Ctrl+K)"), page
        )
        form.addRow(self.documents)
        add = QPushButton(self.tr("Add a folder of documents…"), page)
        add.clicked.connect(knowledge.choose_folder)
        form.addRow(add)
        menu = self.sources.cascade
        self.cascade = bound_check(menu.use_action, self.tr("Use the cascade"), page)
        self.classify = bound_check(
            menu.classify_action, self.tr("Let the fast model choose the model"), page
        )
        self.compress = bound_check(
            menu.compress_action, self.tr("Summarise long conversations"), page
        )
        for box in (self.cascade, self.classify, self.compress):
            form.addRow(box)
        hint = QLabel(self.tr("The fast and strong models are chosen in the Cascade menu."), page)
        hint.setWordWrap(True)
        form.addRow(hint)
        return page

    def _look_page(self) -> QWidget:
        page, form = _form_page(self)
        from PySide6.QtWidgets import QComboBox

        self.theme = QComboBox(page)
        for key, name in THEME_NAMES.items():
            self.theme.addItem(self.tr(name), key)
        self.theme.setCurrentIndex(max(0, self.theme.findData(self.appearance.theme())))
        self.theme.currentIndexChanged.connect(
            lambda i: self.appearance.set_theme(str(self.theme.itemData(i)))
        )
        form.addRow(self.tr("Theme"), self.theme)
        zoom = self.appearance.zoom
        self.text_size = QSpinBox(page, minimum=int(MIN_ZOOM * 100), maximum=int(MAX_ZOOM * 100))
        self.text_size.setSingleStep(10)
        self.text_size.setSuffix(self.tr(" %"))
        self.text_size.setValue(round(zoom.zoom * 100))
        self.text_size.valueChanged.connect(lambda v: zoom.set_zoom(v / 100))
        zoom.zoom_changed.connect(self._zoom_changed)
        form.addRow(self.tr("Text size"), self.text_size)
        self.language = bound_choice(self.sources.languages, page)
        form.addRow(self.tr("Language"), self.language)
        return page

    def _zoom_changed(self, factor: float) -> None:
        self.text_size.blockSignals(True)
        self.text_size.setValue(round(factor * 100))
        self.text_size.blockSignals(False)

    # --- writing ------------------------------------------------------------------
    def defaults(self) -> ChatDefaults:
        """What the Server and Waiting pages show."""
        temperature = self.temperature.value()
        return replace(
            self.saved.load(),
            system_prompt=self.system_prompt.toPlainText().strip(),
            temperature=None if temperature < 0 else temperature,
            max_tokens=self.max_tokens.value() or None,
            slow_start_after_s=self.slow_start.value(),
            stall_timeout_s=self.stall.value(),
            first_token_timeout_s=self.first_token.value(),
        )

    def _save_defaults(self) -> None:
        self.saved.save(self.defaults(), self.sources.tachy.session)

    def done(self, result: int) -> None:
        if self._text_timer.isActive():  # the last keystrokes of the system prompt
            self._text_timer.stop()
            self._save_defaults()
        super().done(result)

    def closeEvent(self, event: QCloseEvent) -> None:
        if self._text_timer.isActive():
            self._text_timer.stop()
            self._save_defaults()
        super().closeEvent(event)


def _form_page(parent: QWidget) -> tuple[QWidget, QFormLayout]:
    page = QWidget(parent)
    column = QVBoxLayout(page)
    form = QFormLayout()
    column.addLayout(form)
    column.addStretch(1)  # the rows at the top, as close as on the other pages
    form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.ExpandingFieldsGrow)
    form.setLabelAlignment(Qt.AlignmentFlag.AlignRight)
    return page, form
