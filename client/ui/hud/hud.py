"""LatencyHud: the dockable latency panel. See client/ui/hud/__init__.py for how to wire it."""

from __future__ import annotations

import time
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QEvent, QTimer, Signal
from PySide6.QtGui import QHideEvent, QShowEvent
from PySide6.QtWidgets import (
    QFileDialog,
    QFrame,
    QHBoxLayout,
    QPushButton,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from client.core.metrics import RequestMetrics
from client.core.tiers import DEFAULT_THRESHOLDS, TierThresholds
from client.core.timeline import RequestTimeline, now_ns
from client.services.chat.session_events import Outcome
from client.services.chat.turn_state import TurnState
from client.services.hud.hud_live import LiveStream
from client.services.hud.hud_model import (
    HudRecord,
    RequestBook,
    export_csv,
    export_json,
    record_from_request,
    record_from_stored,
)
from client.services.hud.tool_pause import in_tools, paused_before, tool_spans
from client.services.hud.waterfall import build_waterfall, shown_states
from client.ui.chat.stage_line import AT_ONCE, STAGE_AFTER_MS
from client.ui.common.locale_text import clock
from client.ui.common.turn_words import outcome_words
from client.ui.hud.plots.graph_export import export_graph
from client.ui.hud.plots.plot_theme import apply_plot_theme, plot_colours
from client.ui.hud.tabs.live_plot import LivePlot
from client.ui.hud.tabs.requests_view import RequestsView
from client.ui.hud.tabs.server_view import ServerView
from client.ui.hud.tabs.tier_view import RECENT_REPLIES, TierView
from client.ui.hud.tabs.waterfall_view import WaterfallView

if TYPE_CHECKING:
    from client.services.fleet.book import MemberFigures
    from client.services.race.column import ColumnFigures
    from client.ui.hud.tabs.pool_view import PoolView
    from client.ui.hud.tabs.race_view import RaceView

# 12.5 frames a second: the live plot still reads as moving, and each frame is a pyqtgraph
# repaint on the GUI thread. At 34 ms the 5,000 tokens/s stream's loop lag p99 was
# 13-33 ms (median 23), at 80 ms 14-34 ms (median 18; tests/perf/test_stream_lag.py).
FRAME_INTERVAL_MS = 80
# A new request without a first token by then: the last reply's live figures go (the
# typing indicator's moment; a token sooner clears them with its own first frame).
CLEAR_LIVE_AFTER_MS = 300


class LatencyHud(QWidget):
    thresholds_changed = Signal(object)  # TierThresholds edited in the tier view

    def __init__(
        self, parent: QWidget | None = None, thresholds: TierThresholds = DEFAULT_THRESHOLDS
    ) -> None:
        super().__init__(parent)
        self.setObjectName("latencyHud")
        self.book = RequestBook(thresholds)
        self.stream = LiveStream()
        self.streaming = False
        self._clear_live = False
        self._clear_timer = QTimer(self)
        self._clear_timer.setSingleShot(True)
        self._clear_timer.setInterval(CLEAR_LIVE_AFTER_MS)
        self._clear_timer.timeout.connect(self._clear_waiting)
        self._timeline: RequestTimeline | None = None
        self._told = 0  # the followed timeline's token stamps already in the stream
        self._following: RequestTimeline | None = None
        self.model = ""
        self.frames = 0  # frames that changed the live plot (for tests)
        self._started: tuple[float, str, str, bool] = (0.0, "", "", False)
        self._last_record: HudRecord | None = None
        self.live = LivePlot()
        self.requests = RequestsView()
        self.waterfall = WaterfallView()
        self.tier = TierView()
        self.server = ServerView()
        self.race: RaceView | None = None  # the Race tab, from the first race on
        self.pool: PoolView | None = None  # the Pool tab, while the chat goes to a pool
        self.tabs = QTabWidget()
        self.add_tab(self.live, self.tr("Live"))
        self.add_tab(self.requests, self.tr("Requests"))
        self.add_tab(self.waterfall, self.tr("Waterfall"))
        self.add_tab(self.tier, self.tr("Tier"))
        self.add_tab(self.server, self.tr("Server"))
        self.frame_timer = QTimer(self)
        self.frame_timer.setInterval(FRAME_INTERVAL_MS)
        self.frame_timer.timeout.connect(self.flush_frame)
        self.requests.scope_changed.connect(self.refresh_requests)
        self.requests.request_clicked.connect(self.show_waterfall)
        self.tier.thresholds_changed.connect(self._thresholds_edited)
        self.tier.set_thresholds(thresholds)
        self.requests.set_thresholds(thresholds)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(2, 2, 2, 2)
        layout.addWidget(self.tabs)
        layout.addLayout(self._export_buttons())
        self.refresh_requests()
        self.apply_scheme()
        self._name_for_screen_readers()
        for plot in self.plots():  # a frame, so the stylesheet's focus ring has room
            plot.setObjectName("hudPlot")
            plot.setFrameShape(QFrame.Shape.StyledPanel)

    def _name_for_screen_readers(self) -> None:
        self.tabs.setAccessibleName(self.tr("Latency views"))
        self.live.graphs.setAccessibleName(self.tr("Live tokens per second and gaps"))
        self.requests.plot.setAccessibleName(self.tr("Time to first token per request"))
        self.waterfall.plot.setAccessibleName(self.tr("Timing waterfall"))
        self.requests.scope.setAccessibleName(self.tr("Scope"))
        self.requests.last_n.setAccessibleName(self.tr("Last N requests"))
        self.requests.table.setAccessibleName(self.tr("Statistics"))
        self.server.models.setAccessibleName(self.tr("Loaded models"))
        names = (self.tr("Instant below"), self.tr("Fast below"), self.tr("Typing below"))
        for edit, name in zip(self.tier.edits, names, strict=True):
            edit.setAccessibleName(name)

    # -- light / dark: the plots follow the window's palette --------------------------
    def plots(self) -> list[Any]:
        return [self.live.graphs, self.requests.plot, self.waterfall.plot]

    def apply_scheme(self) -> None:
        apply_plot_theme(self.plots(), self.palette())
        text_colour = plot_colours(self.palette())[1]
        self.waterfall.set_text_colour(text_colour)
        self.requests.set_text_colour(text_colour)
        if self.book.records:  # the tier's word in the new scheme's colour
            self.tier.show_reply(self.book.records[-1].ttft_ms, self.book.thresholds)

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.PaletteChange:  # the system scheme changed
            self.apply_scheme()

    # -- the API the window calls -------------------------------------------------

    def request_started(
        self, timeline: RequestTimeline, model: str, server: str, cold: bool = False
    ) -> None:
        self.model = model
        self._started = (time.time(), model, server, cold)
        self._timeline = timeline  # usually not yet written: read its stamp at the first frame
        self._following = None
        self.stream.reset(timeline.request_written_ns)
        # No Qt work until the first token is painted: the live plot is cleared by the
        # first frame that has something to draw (clearing it now would schedule a
        # repaint of the HUD just when the first token is due).
        self._clear_live = True
        self._clear_timer.start()  # a timer the HUD owns: it goes with the HUD
        self.streaming = True
        if not self.frame_timer.isActive():
            self.frame_timer.start()

    def follow(self, timeline: RequestTimeline) -> None:
        """Read the reply's token stamps from its timeline at each frame (the root's
        events carry the timeline: nothing is pushed per token), instead of token()."""
        self._following, self._told = timeline, 0

    def token(self, kind: object, text_len: int, at_ns: int) -> None:
        """Per token-bearing chunk: one list append, no Qt work (the frame timer draws)."""
        self.stream.add(at_ns)

    def request_finished(
        self,
        metrics: RequestMetrics,
        timeline: RequestTimeline,
        outcome: Outcome | str,
        message_id: int | None = None,
        *,
        views_now: bool = True,
        answered_by: tuple[str, str] | None = None,
        cold: bool = False,
    ) -> None:
        """The reply ended: its record and the live plot's last frame now; the tier,
        waterfall and requests views now too, or (views_now=False) when the caller runs
        show_last_reply, e.g. a loop turn later, after the answer's final paint.
        `answered_by` (model, server): who answered, when not the model it started with
        (a cascade's route, or its other model after a fallback); `cold`: it waited
        for a load, as learned while it ran (the loading stage)."""
        at, model, server, started_cold = self._started
        cold = cold or started_cold
        model, server = answered_by or (model, server)
        record = record_from_request(
            metrics,
            timeline,
            at=at or time.time(),
            model=model,
            server=server,
            cold=cold,
            outcome=outcome.value if isinstance(outcome, Outcome) else outcome,
            message_id=message_id,
        )
        self.add_reply(record, views_now=views_now)

    def add_reply(self, record: HudRecord, *, views_now: bool = True) -> None:
        """The reply ended with this record (made by request_finished, or by the root's
        HUD feed, client/services/hud/hud_feed.py): as request_finished says."""
        self.book.add(record)
        self._take_stamps()
        if record.outcome != Outcome.COMPLETE:
            self._quiet_frame()  # the silence before a stop or a failure may be a stall
        self.streaming = False
        self.flush_frame()
        self._following = None
        self.frame_timer.stop()
        if self.frames and not self._clear_live and self.isVisible():
            self.live.show_summary(self.stream, self.stream.rate_now(self._now()))  # final numbers
        self._last_record = record
        if views_now:
            self.show_last_reply()

    def show_last_reply(self) -> None:
        record = self._last_record
        if record is None:
            return
        self.tier.show_reply(record.ttft_ms, self.book.thresholds, _said_states(record))
        self.tier.show_recent(
            [r.ttft_ms for r in self.book.records[-RECENT_REPLIES:]], self.book.thresholds
        )
        self.show_waterfall(record)
        self.refresh_requests()

    def load_history(self, records: Iterable[Any]) -> None:
        """Rows from the MetricsStore (mappings or objects with its column names)."""
        self.book.load_history(record_from_stored(r) for r in records)
        self.refresh_requests()

    def set_server(
        self, url: str, api: str, model: str | None = None, metrics_url: str | None = None
    ) -> None:
        self.server.set_server(url, api, model, metrics_url)  # a router's, if given
        if model and not self.streaming:
            self.model = model  # "This model" means the chosen one, even before a request
            self.refresh_requests()
        if self.isVisible():
            self.server.start()

    def show_message(self, message_id: int) -> bool:
        """Show the waterfall of a chosen message; False when the HUD has no record of it."""
        record = self.book.find_message(message_id)
        if record is not None:
            self.show_waterfall(record)
            self.tabs.setCurrentWidget(self.waterfall)
        return record is not None

    # -- the tabs: docs/extending.md, "A HUD tab" ---------------------------------------
    def add_tab(self, view: QWidget, title: str) -> None:
        """The one way a view becomes a tab: the five above when the HUD is made, the
        others by their show_... method when they first have something to show. Added
        once, at the end."""
        if self.tabs.indexOf(view) < 0:
            self.tabs.addTab(view, title)

    def remove_tab(self, view: QWidget) -> None:
        """A tab whose subject went (the Pool tab once the chat leaves the pool)."""
        index = self.tabs.indexOf(view)
        if index >= 0:
            self.tabs.removeTab(index)

    def show_race(self, columns: Sequence[ColumnFigures], bring_forward: bool = False) -> None:
        """A race's columns side by side, in a Race tab added with the first race."""
        if self.race is None:
            from client.ui.hud.tabs.race_view import RaceView

            self.race = RaceView()
        self.add_tab(self.race, self.tr("Race"))
        self.race.show_figures(columns)
        if bring_forward:
            self.tabs.setCurrentWidget(self.race)

    def show_pool(self, name: str, figures: Sequence[MemberFigures]) -> None:
        """The pool the chat goes to, its servers' figures, in a Pool tab."""
        if self.pool is None:
            from client.ui.hud.tabs.pool_view import PoolView

            self.pool = PoolView()
        self.add_tab(self.pool, self.tr("Pool"))
        self.pool.show_pool(name, figures)

    def hide_pool(self) -> None:
        """The chat no longer goes to a pool: no Pool tab."""
        if self.pool is not None:
            self.remove_tab(self.pool)

    def set_prediction_note(self, text: str) -> None:
        """How far the predicted waits for a first token were off, in a tooltip."""
        self.requests.set_prediction_note(text)

    def set_thresholds(self, thresholds: TierThresholds) -> None:
        self.tier.set_thresholds(thresholds)
        self._apply_thresholds(thresholds)

    async def aclose(self) -> None:
        self.frame_timer.stop()
        await self.server.aclose()

    # -- drawing ------------------------------------------------------------------

    def flush_frame(self) -> None:
        """Once per frame: new stamps into series, then setData. Bounded by the stamps
        that arrived since the last frame (about 80 at 1,000 tokens/s)."""
        if self.stream.written_ns is None and self._timeline is not None:
            self.stream.written_ns = self._timeline.request_written_ns
        self._take_stamps()
        if not self.stream.flush():
            self._quiet_frame()
            return
        self.frames += 1
        if self.isVisible():
            self._draw_live()

    def _take_stamps(self) -> None:
        """The followed timeline's new token stamps into the live stream, on the model's
        clock: a turn's time in tools and approvals is left out (it is not a gap)."""
        if self._following is not None:
            stamps = self._following.tokens
            paused = tool_spans(self._following)
            for stamp in stamps[self._told :]:
                at = stamp.at_ns
                self.stream.add(at - paused_before(paused, at) if paused else at)
            self._told = len(stamps)

    def _now(self) -> int:
        """Now on the model's clock of the turn followed (its tools' time left out)."""
        now = now_ns()
        if self._following is None:
            return now
        return now - paused_before(tool_spans(self._following), now)

    def _quiet_frame(self) -> None:
        """No token this frame: an open gap becomes a stall once long enough, and the
        rate now falls as time passes without tokens, whether or not they resume. A
        tool running or an approval awaited is no stall."""
        if not self.streaming or not self.stream.tokens:
            return  # no token of this reply yet: the Live tab says it waits
        if self._following is not None and in_tools(self._following):
            return
        counted = self.stream.note_silence(self._now())
        if self.isVisible() and not self._clear_live:
            self.live.show_silence(self.stream, self.stream.rate_now(self._now()), counted)

    def _clear_waiting(self) -> None:
        """No first token yet: the live tab shows nothing of the last reply."""
        if self._clear_live:
            self._clear_live = False
            self.live.reset(waiting=True)

    def _draw_live(self, summary_now: bool = False) -> None:
        if self._clear_live:
            self._clear_live = False
            self.live.reset()
        self.live.show_stream(self.stream, self.stream.rate_now(self._now()), summary_now)

    def refresh_requests(self) -> None:
        records = self.shown_records()
        self.requests.show_records(self.book, records, self.book.stats(records))

    def shown_records(self) -> list[HudRecord]:
        return self.book.in_scope(
            self.requests.current_scope(),
            model=self.model,
            last_n=self.requests.last_n.value(),
            exclude_cold=self.requests.exclude_cold.isChecked(),
        )

    def show_waterfall(self, record: HudRecord) -> None:
        outcome = outcome_words(record.outcome)  # said as the turn's state
        title = self.tr("{model} at {when} · {outcome}").format(
            model=record.model or self.tr("request"),
            when=clock(record.time),
            outcome=outcome or record.outcome or self.tr("unknown outcome"),
        )
        self.waterfall.show_waterfall(build_waterfall(record), title)

    def _thresholds_edited(self, thresholds: TierThresholds) -> None:
        self._apply_thresholds(thresholds)
        self.thresholds_changed.emit(thresholds)

    def _apply_thresholds(self, thresholds: TierThresholds) -> None:
        self.book.thresholds = thresholds
        self.requests.set_thresholds(thresholds)
        self.refresh_requests()
        if self.book.records:
            last = self.book.records[-1]
            self.tier.show_reply(last.ttft_ms, thresholds, _said_states(last))
            self.tier.show_recent(
                [r.ttft_ms for r in self.book.records[-RECENT_REPLIES:]], thresholds
            )

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        if self.server.poller is not None:
            self.server.start()
        if self.streaming:
            self.frame_timer.start()
        if self.stream.tokens:  # nothing is drawn while hidden: catch up now
            self._draw_live(summary_now=True)

    def hideEvent(self, event: QHideEvent) -> None:
        super().hideEvent(event)
        self.server.stop()

    # -- export -------------------------------------------------------------------

    def export_metrics(self, path: str | Path) -> None:
        """The requests in the current scope: .csv or .json by the file's suffix."""
        path = Path(path)
        records, thresholds = self.shown_records(), self.book.thresholds
        text = (
            export_csv(records, thresholds)
            if path.suffix.lower() == ".csv"
            else (export_json(records, thresholds))
        )
        path.write_text(text, encoding="utf-8")

    def export_graphs(self, path: str | Path) -> list[Path]:
        """Each graph as <stem>-<graph><suffix>; suffix .png or .svg."""
        path = Path(path)
        graphs = {
            "rate": self.live.rate_plot,
            "gaps": self.live.gap_plot,
            "ttft": self.requests.plot.getPlotItem(),
            "waterfall": self.waterfall.plot.getPlotItem(),
        }
        written = []
        for name, item in graphs.items():
            target = path.with_name(f"{path.stem}-{name}{path.suffix}")
            export_graph(item, target)
            written.append(target)
        return written

    def _export_buttons(self) -> QHBoxLayout:
        row = QHBoxLayout()
        metrics = QPushButton(self.tr("Export metrics…"))
        metrics.clicked.connect(self._ask_export_metrics)
        graphs = QPushButton(self.tr("Save graphs…"))
        graphs.clicked.connect(self._ask_export_graphs)
        row.addStretch(1)
        row.addWidget(metrics)
        row.addWidget(graphs)
        return row

    def _ask_export_metrics(self) -> None:
        path, _ = QFileDialog.getSaveFileName(
            self, self.tr("Export metrics"), "tachy-metrics.json", "JSON (*.json);;CSV (*.csv)"
        )
        if path:
            self.export_metrics(path)

    def _ask_export_graphs(self) -> None:
        path, _ = QFileDialog.getSaveFileName(
            self, self.tr("Save graphs"), "tachy.png", "PNG (*.png);;SVG (*.svg)"
        )
        if path:
            self.export_graphs(path)


def _said_states(record: HudRecord) -> tuple[TurnState, ...]:
    """The states the status line said while the reply was awaited (the Tier tab's)."""
    return shown_states(record, STAGE_AFTER_MS, AT_ONCE)
