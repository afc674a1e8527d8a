"""View > Present (F5): for a room. Full screen at 150 % zoom, the chat column, the
current answer's tier in large type with its time to first token, and the latency
panel on its Tier tab (the last several replies). Esc or F5 leaves, and everything
comes back as it was."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from PySide6.QtCore import QLocale, QObject, Qt, QTimer, Signal
from PySide6.QtGui import QFont, QKeySequence, QShortcut
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QWidget

from client.core.tiers import DEFAULT_THRESHOLDS, TierThresholds
from client.ui.common.reading_style import ReadingStyle
from client.ui.common.shortcuts import key_of
from client.ui.common.theme import is_dark
from client.ui.common.tier_words import tier_name
from client.ui.hud.plots.palette import TIER_TEXT_COLORS
from client.ui.view.answer_glance import Glance
from client.ui.view.latency_fold import LatencyFold

if TYPE_CHECKING:
    from client.ui.chat.chat_window import ChatWindow

PRESENT_ZOOM = 1.5
BANNER_REFRESH_MS = 100
TIER_POINT_SIZE = 40
FIGURE_POINT_SIZE = 18


class PresentBanner(QFrame):
    """The current answer's tier word, large, and its time to first token."""

    def __init__(
        self,
        figures: Callable[[], Glance],
        thresholds: Callable[[], TierThresholds],
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setObjectName("presentBanner")
        self.figures, self.thresholds = figures, thresholds
        self.tier = QLabel("–", self)
        self.tier.setObjectName("presentTier")
        self.tier.setTextFormat(Qt.TextFormat.PlainText)
        font = QFont(self.tier.font())
        font.setPointSize(TIER_POINT_SIZE)
        font.setBold(True)
        self.tier.setFont(font)
        self.ttft = QLabel(self.tr("Ask a question: its tier shows here."), self)
        self.ttft.setObjectName("presentTtft")
        figure = QFont(self.ttft.font())
        figure.setPointSize(FIGURE_POINT_SIZE)
        self.ttft.setFont(figure)
        layout = QHBoxLayout(self)
        layout.addWidget(self.tier)
        layout.addWidget(self.ttft, 1)
        self.timer = QTimer(self)
        self.timer.setInterval(BANNER_REFRESH_MS)
        self.timer.timeout.connect(self.refresh)

    def refresh(self) -> None:
        glance = self.figures()
        if glance.ttft_ms is None:
            self.tier.setText("…" if glance.answering else "–")
            self.tier.setStyleSheet("")
            if glance.answering:
                self.ttft.setText(self.tr("waiting for the first token…"))
            return
        tier = self.thresholds().tier_of(glance.ttft_ms)
        self.tier.setText(tier_name(tier).upper())
        self.tier.setStyleSheet(f"color: {TIER_TEXT_COLORS[is_dark()][tier]};")
        ms = QLocale().toString(glance.ttft_ms, "f", 0)
        self.ttft.setText(self.tr("first token after {ms} ms").format(ms=ms))


@dataclass
class _Before:
    """What Present changed, to put back."""

    full_screen: bool
    maximized: bool
    zoom: float
    conversations: bool
    panel: bool


class PresentMode(QObject):
    changed = Signal(bool)  # presenting

    def __init__(
        self,
        window: ChatWindow,
        conversations: QWidget,
        zoom: ReadingStyle,
        fold: LatencyFold,
        figures: Callable[[], Glance],
        show_tier_tab: Callable[[], None] = lambda: None,
        thresholds: Callable[[], TierThresholds] = lambda: DEFAULT_THRESHOLDS,
    ) -> None:
        super().__init__(window)
        self.window, self.zoom, self.fold = window, zoom, fold
        self.conversations = conversations  # hidden while presenting
        self.show_tier_tab = show_tier_tab
        self.banner = PresentBanner(figures, thresholds, window)
        self.banner.hide()
        window.centre_layout.insertWidget(0, self.banner)
        self.leave_key = QShortcut(QKeySequence(key_of("stop")), window)  # Esc: stop is off
        self.leave_key.setContext(Qt.ShortcutContext.WindowShortcut)
        self.leave_key.setEnabled(False)
        self.leave_key.activated.connect(self.leave)
        self._before: _Before | None = None

    @property
    def presenting(self) -> bool:
        return self._before is not None

    def toggle(self) -> None:
        self.leave() if self.presenting else self.enter()

    def enter(self) -> None:
        if self.presenting:
            return
        w = self.window
        self._before = _Before(
            w.isFullScreen(),
            w.isMaximized(),
            self.zoom.zoom,
            not self.conversations.isHidden(),
            self.fold.open_when_wide if self.fold.folded else not self.fold.dock.isHidden(),
        )
        self._esc_stops(False)
        self.fold.suspended = True
        self.conversations.hide()
        self.fold.dock.show()
        self.show_tier_tab()
        self.zoom.set_zoom(PRESENT_ZOOM)
        self.banner.show()
        self.banner.refresh()
        self.banner.timer.start()
        w.showFullScreen()
        self.changed.emit(True)

    def leave(self) -> None:
        before = self._before
        if before is None:
            return
        self._before = None
        w = self.window
        self.banner.timer.stop()
        self.banner.hide()
        self.zoom.set_zoom(before.zoom)
        self.conversations.setVisible(before.conversations)
        if before.full_screen:
            w.showFullScreen()
        elif before.maximized:
            w.showMaximized()
        else:
            w.showNormal()
        self.fold.restore(before.panel)
        self._esc_stops(True)
        self.changed.emit(False)

    def _esc_stops(self, on: bool) -> None:
        """While presenting Esc leaves Present (the Stop button still stops)."""
        stop = self.window.shortcuts.get("stop")
        if stop is not None:
            stop.setEnabled(on)
        self.leave_key.setEnabled(not on)
