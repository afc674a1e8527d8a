"""For demos: the last reply's tier in large type, what the UI did, editable thresholds."""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication, QLocale, Qt, Signal
from PySide6.QtGui import QFont
from PySide6.QtWidgets import QDoubleSpinBox, QFormLayout, QLabel, QVBoxLayout, QWidget

from client.core.tiers import DEFAULT_THRESHOLDS, Tier, TierThresholds
from client.services.chat.turn_state import TurnState
from client.ui.common.theme import is_dark
from client.ui.common.tier_words import tier_behaviour, tier_name
from client.ui.hud.plots.palette import TIER_TEXT_COLORS

RECENT_REPLIES = 8


class TierView(QWidget):
    thresholds_changed = Signal(object)  # TierThresholds

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.tier_label = QLabel("–")
        self.tier_label.setTextFormat(Qt.TextFormat.PlainText)
        self.tier_label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        font = QFont(self.tier_label.font())
        font.setPointSize(48)
        font.setBold(True)
        self.tier_label.setFont(font)
        self._tier: Tier | None = None
        self.ttft_label = QLabel(self.tr("No reply yet."))
        self.ttft_label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.behaviour_label = QLabel("")
        self.behaviour_label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.behaviour_label.setWordWrap(True)  # the slow tier's sentence, in a narrow panel
        self.recent_label = QLabel("")  # the last several replies (show_recent)
        self.recent_label.setObjectName("recentTiers")
        self.recent_label.setTextFormat(Qt.TextFormat.PlainText)
        self.recent_label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.edits = [
            self._spin(v)
            for v in (
                DEFAULT_THRESHOLDS.instant_below_ms,
                DEFAULT_THRESHOLDS.fast_below_ms,
                DEFAULT_THRESHOLDS.typing_below_ms,
            )
        ]
        form = QFormLayout()
        for text, edit in zip(
            (self.tr("instant below"), self.tr("fast below"), self.tr("typing below")),
            self.edits,
            strict=True,
        ):
            form.addRow(text, edit)
            edit.valueChanged.connect(self._edited)
        layout = QVBoxLayout(self)
        layout.addWidget(self.tier_label)
        layout.addWidget(self.ttft_label)
        layout.addWidget(self.behaviour_label)
        layout.addWidget(self.recent_label)
        layout.addStretch(1)
        layout.addLayout(form)

    @staticmethod
    def _spin(value: float) -> QDoubleSpinBox:
        suffix = QCoreApplication.translate("TierView", " ms")
        spin = QDoubleSpinBox(minimum=1.0, maximum=60_000.0, decimals=0, suffix=suffix)
        spin.setGroupSeparatorShown(True)  # 1,000 ms, as the window writes figures
        spin.setValue(value)
        return spin

    def thresholds(self) -> TierThresholds:
        instant, fast, typing = (e.value() for e in self.edits)
        return TierThresholds(instant, max(fast, instant), max(typing, fast, instant))

    def set_thresholds(self, thresholds: TierThresholds) -> None:
        values = (thresholds.instant_below_ms, thresholds.fast_below_ms, thresholds.typing_below_ms)
        for edit, value in zip(self.edits, values, strict=True):
            edit.blockSignals(True)
            edit.setValue(value)
            edit.blockSignals(False)

    def _edited(self) -> None:
        self.thresholds_changed.emit(self.thresholds())

    def show_reply(
        self,
        ttft_ms: float | None,
        thresholds: TierThresholds,
        states: tuple[TurnState, ...] = (),
    ) -> None:
        """states: those the reply went through (its waterfall's), said for a slow one."""
        if ttft_ms is None:
            self._tier = None
            self.tier_label.setText("–")
            self.ttft_label.setText(self.tr("The last reply had no first token."))
            self.behaviour_label.setText("")
            return
        tier = thresholds.tier_of(ttft_ms)
        self._tier = tier
        self.tier_label.setText(tier_name(tier).upper())
        colour = TIER_TEXT_COLORS[is_dark()][tier]
        self.tier_label.setStyleSheet(f"color: {colour};")
        ms = QLocale().toString(ttft_ms, "f", 1)
        self.ttft_label.setText(self.tr("time to first token {ms} ms").format(ms=ms))
        shown = self.tr("The window showed: {what}").format(what=tier_behaviour(tier, states))
        self.behaviour_label.setText(shown)

    def show_recent(self, ttfts: list[float | None], thresholds: TierThresholds) -> None:
        """The last replies, newest first: "fast · 212 ms" each (Present shows them)."""
        lines = []
        for ttft_ms in reversed(ttfts[-RECENT_REPLIES:]):
            if ttft_ms is None:
                lines.append(self.tr("no first token"))
                continue
            ms = QLocale().toString(ttft_ms, "f", 0)
            name = tier_name(thresholds.tier_of(ttft_ms))
            lines.append(self.tr("{tier} · {ms} ms").format(tier=name, ms=ms))
        title = self.tr("Last replies") if lines else ""
        self.recent_label.setText("\n".join([title, *lines]) if lines else "")

    def shown_tier(self) -> Tier | None:
        return self._tier
