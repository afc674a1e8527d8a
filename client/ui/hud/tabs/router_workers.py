"""The server view's part for a router: its workers (health, requests running, load, and
from its own metrics requests served and circuit breaker), its routing decisions by
policy, a sentence when a worker turns unhealthy, and whether warming can help."""

from __future__ import annotations

from PySide6.QtWidgets import (
    QHeaderView,
    QLabel,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from client.services.hud.server_stats import (
    ServerSnapshot,
    policies,
    turned_unhealthy,
    warming_helps,
)
from client.ui.common.locale_text import NOTHING, number, short_number
from client.ui.common.noop_tr import QT_TRANSLATE_NOOP

BREAKER_WORDS = {  # vllm-router's circuit breaker states (RouterWorkers.tr)
    "closed": QT_TRANSLATE_NOOP("RouterWorkers", "closed"),
    "open": QT_TRANSLATE_NOOP("RouterWorkers", "open: sent nothing"),
    "half_open": QT_TRANSLATE_NOOP("RouterWorkers", "half open: trying again"),
}


class RouterWorkers(QWidget):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.alert = QLabel()  # a worker that turned unhealthy, in one sentence
        self.alert.setWordWrap(True)
        self.table = QTableWidget(0, 6)
        self.table.setAccessibleName(self.tr("The router's workers"))
        self.table.setHorizontalHeaderLabels(
            [
                self.tr("worker"),
                self.tr("health"),
                self.tr("running"),
                self.tr("load"),
                self.tr("requests served"),
                self.tr("circuit breaker"),
            ]
        )
        self.table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.table.setTabKeyNavigation(False)
        self.table.verticalHeader().hide()
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)  # addresses are long
        self.decisions = QLabel()
        self.decisions.setWordWrap(True)
        self.warming = QLabel()
        self.warming.setWordWrap(True)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        for widget in (self.alert, self.table, self.decisions, self.warming):
            layout.addWidget(widget)
        self._last: ServerSnapshot | None = None
        self.hide()

    def forget(self) -> None:
        """Another server is chosen: its workers are not this one's."""
        self._last = None
        self.alert.clear()
        self.hide()

    def show_snapshot(self, snap: ServerSnapshot) -> None:
        if snap.error:
            return  # a failed poll says nothing of the workers: keep what was shown
        self.setVisible(bool(snap.workers))
        gone = turned_unhealthy(self._last, snap)
        if gone:
            self.alert.setText(
                self.tr(
                    "{worker} is unhealthy: the router sends it no requests until it "
                    "passes its health check again."
                ).format(worker=", ".join(gone))
            )
        elif all(w.healthy is not False for w in snap.workers):
            self.alert.clear()
        self.alert.setVisible(bool(self.alert.text()))
        self._last = snap
        self._fill(snap)
        self.decisions.setText(self._decisions(snap))
        self.decisions.setVisible(bool(self.decisions.text()))
        self.warming.setText(self._warming(snap))
        self.warming.setVisible(bool(self.warming.text()))

    def _fill(self, snap: ServerSnapshot) -> None:
        self.table.setRowCount(len(snap.workers))
        for row, w in enumerate(snap.workers):
            health = self.tr("healthy") if w.healthy else None
            if w.healthy is False:
                health = self.tr("unhealthy")
            breaker = BREAKER_WORDS.get(w.breaker or "")
            cells = (
                w.url,
                health or NOTHING,
                short_number(w.load),
                short_number(w.reported_load),
                self._counted(w.processed, w.processed_recent, snap.recent_s),
                self.tr(breaker) if breaker else (w.breaker or NOTHING),
            )
            for column, text in enumerate(cells):
                self.table.setItem(row, column, QTableWidgetItem(text))

    def _counted(self, total: float | None, recent: float | None, window: float | None) -> str:
        """ "12 in the last minute · 340 in all" (the window is shorter at first)."""
        if total is None:
            return NOTHING
        if recent is None or window is None:
            return self.tr("{total} in all").format(total=number(total))
        if window >= 59.5:
            text = self.tr("{recent} in the last minute · {total} in all")
        else:
            text = self.tr("{recent} in the last {s} s · {total} in all")
        return text.format(recent=number(recent), total=number(total), s=number(window))

    def _decisions(self, snap: ServerSnapshot) -> str:
        lines = [
            self.tr("{policy} chose {worker}: {counted}").format(
                policy=d.policy,
                worker=d.worker,
                counted=self._counted(d.total, d.recent, snap.recent_s),
            )
            for d in snap.decisions
        ]
        if not lines and snap.workers and snap.metrics_url is None:
            return self.tr(
                "The router's own metrics were not found: Tachy looks for them on port "
                "29000 of its host (vllm-router --prometheus-port 29000), or where the "
                "server's settings say (✎ Edit, Router metrics)."
            )
        return "\n".join(lines)

    def _warming(self, snap: ServerSnapshot) -> str:
        if warming_helps(snap) is not False:
            return ""
        return self.tr(
            "The router spreads requests ({policy}): a warm-up lands on one worker and the "
            "question most likely on another, so warming cannot help here."
        ).format(policy=", ".join(policies(snap)))
