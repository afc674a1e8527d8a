"""The HUD's Race tab: the last race's columns side by side in one table (time to
first token, rate, tier, when each finished, which won the first token and the finish,
and each answer's QoE). The words each race column shows under its answer come from here too."""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import QCoreApplication
from PySide6.QtWidgets import QHeaderView, QTableWidget, QTableWidgetItem, QVBoxLayout, QWidget

from client.services.chat.session_events import Outcome
from client.services.race.column import ColumnFigures
from client.ui.common.locale_text import NOTHING, number
from client.ui.common.status_text import duration_text
from client.ui.common.tier_words import tier_name

translate = QCoreApplication.translate


def ttft_text(figures: ColumnFigures) -> str:
    return duration_text(figures.ttft_ms) if figures.ttft_ms is not None else NOTHING


def rate_text(figures: ColumnFigures) -> str:
    if figures.tokens_per_s is None:
        return NOTHING
    return translate("RaceView", "{n} tokens/s").format(n=number(figures.tokens_per_s, 1))


def finished_text(figures: ColumnFigures) -> str:
    if figures.finished_at_ms is None:
        return NOTHING
    return translate("RaceView", "at {time}").format(time=duration_text(figures.finished_at_ms))


def marks_text(figures: ColumnFigures) -> str:
    marks = []
    if figures.first_token:
        marks.append(translate("RaceView", "first token"))
    if figures.first_finish:
        marks.append(translate("RaceView", "first to finish"))
    return translate("RaceView", ", ").join(marks)


def figures_line(figures: ColumnFigures) -> str:
    """ "TTFT 120 ms · 48.0 tokens/s · QoE 1.00 · fast · finished at 1.3 s" (as far as
    known)."""
    parts = [translate("RaceView", "TTFT {ttft}").format(ttft=ttft_text(figures))]
    if figures.tokens_per_s is not None:
        parts.append(rate_text(figures))
    if figures.qoe is not None:
        parts.append(translate("RaceView", "QoE {q}").format(q=number(figures.qoe, 2)))
    if figures.tier is not None:
        parts.append(tier_name(figures.tier))
    if figures.finished_at_ms is not None:
        parts.append(ended_words(figures).format(at=finished_text(figures)))
    return " · ".join(parts)


def ended_words(figures: ColumnFigures) -> str:
    """How the column ended, around "{at}": only a complete answer "finished"."""
    if figures.outcome is Outcome.COMPLETE:
        return translate("RaceView", "finished {at}")
    if figures.outcome is Outcome.STOPPED:
        return translate("RaceView", "stopped {at}")
    return translate("RaceView", "failed {at}")


class RaceView(QWidget):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.table = QTableWidget(0, 7, self)
        self.table.setObjectName("raceTable")
        self.table.setAccessibleName(self.tr("Race"))
        self.table.setHorizontalHeaderLabels(
            [
                self.tr("Route"),
                self.tr("TTFT"),
                self.tr("tokens/s"),
                self.tr("Tier"),
                self.tr("Finished"),
                self.tr("Won"),
                self.tr("QoE"),  # Andes' figure (client/core/qoe.py)
            ]
        )
        self.table.verticalHeader().setVisible(False)
        self.table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header.setStretchLastSection(True)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.table)

    def show_figures(self, columns: Sequence[ColumnFigures]) -> None:
        self.table.setRowCount(len(columns))
        for row, figures in enumerate(columns):
            tier = tier_name(figures.tier) if figures.tier is not None else NOTHING
            finished = figures.finished_at_ms
            cells = (  # the figures alone: the dock is narrow, the headings say what
                figures.name,
                ttft_text(figures),
                number(figures.tokens_per_s, 1),
                tier,
                _ended_cell(figures) if finished is not None else NOTHING,
                marks_text(figures),
                number(figures.qoe, 2),
            )
            for column, text in enumerate(cells):
                self.table.setItem(row, column, QTableWidgetItem(text))


def _ended_cell(figures: ColumnFigures) -> str:
    """The Finished column: the time, and for a column that did not complete, how it ended."""
    assert figures.finished_at_ms is not None
    if figures.outcome is Outcome.COMPLETE:
        return duration_text(figures.finished_at_ms)
    return ended_words(figures).format(at=finished_text(figures))
