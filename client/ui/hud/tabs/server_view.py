"""What the server says about itself, polled at most once a second and only while shown.

The 1 s QTimer schedules one asyncio task on the running (qasync) loop and skips a tick
while the previous poll is still out, so a slow server never piles up requests and the
GUI thread never waits on the network.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from datetime import UTC, datetime

from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import (
    QFormLayout,
    QHeaderView,
    QLabel,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from client.services.hud.server_stats import (
    ServerFigures,
    ServerSnapshot,
    ServerStatsPoller,
    lists_models,
    not_given,
)
from client.services.servers.servers import EngineSettings
from client.ui.common.error_text import error_text
from client.ui.common.locale_text import NOTHING, clock, number, percent, short_number
from client.ui.common.noop_tr import QT_TRANSLATE_NOOP
from client.ui.common.server_names import server_kind_name
from client.ui.hud.tabs.router_workers import RouterWorkers

POLL_INTERVAL_MS = 1000


# vLLM's engine_sleep_state, in words (ServerView.tr)
ENGINE_STATES = {
    "awake": QT_TRANSLATE_NOOP("ServerView", "awake"),
    "weights_offloaded": QT_TRANSLATE_NOOP("ServerView", "asleep: weights offloaded"),
    "discard_all": QT_TRANSLATE_NOOP("ServerView", "asleep: weights and cache discarded"),
}

FIGURE_NAMES = (  # the figures' row names, translated where shown (ServerView.tr)
    QT_TRANSLATE_NOOP("ServerView", "running"),
    QT_TRANSLATE_NOOP("ServerView", "waiting"),
    QT_TRANSLATE_NOOP("ServerView", "kv cache"),
    QT_TRANSLATE_NOOP("ServerView", "server TTFT"),
    QT_TRANSLATE_NOOP("ServerView", "server TTFT, last minute"),
    QT_TRANSLATE_NOOP("ServerView", "draft acceptance"),
    QT_TRANSLATE_NOOP("ServerView", "prompt tokens/s"),
    QT_TRANSLATE_NOOP("ServerView", "decode tokens/s"),
    QT_TRANSLATE_NOOP("ServerView", "prompt cache hits"),
    QT_TRANSLATE_NOOP("ServerView", "busy slots"),
    QT_TRANSLATE_NOOP("ServerView", "engine"),
)
FIGURE_KEYS = (
    "running",
    "waiting",
    "kv cache",
    "server TTFT",
    "server TTFT, last minute",
    "draft acceptance",
    "prompt tokens/s",
    "decode tokens/s",
    "prompt cache hits",
    "busy slots",
    "engine",
)

# The snapshot's figure each row shows: a row its server's kind never fills is hidden
# (client.services.hud.server_stats.not_given; an unknown server shows them all).
ROW_FIGURES = {
    "running": "running",
    "waiting": "waiting",
    "kv cache": "kv_cache_use",
    "server TTFT": "ttft_p50_ms",
    "server TTFT, last minute": "recent_ttft_p50_ms",
    "draft acceptance": "spec_acceptance",
    "prompt tokens/s": "prompt_tokens_per_s",
    "decode tokens/s": "decode_tokens_per_s",
    "prompt cache hits": "cache_hit_rate",
    "busy slots": "busy_slots",
    "engine": "engine_state",
}


class ServerView(QWidget):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.status = QLabel(self.tr("No server chosen."))
        self.status.setWordWrap(True)
        self.figures = {name: QLabel(NOTHING) for name in FIGURE_KEYS}
        self.figures["engine"].setWordWrap(True)
        self.engine_settings = ""  # the local engine's settings, when it is the server
        self.models = QTableWidget(0, 3)
        self.models.setHorizontalHeaderLabels(
            [self.tr("loaded model"), self.tr("VRAM"), self.tr("unloads in")]
        )
        self.models.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.models.setTabKeyNavigation(False)  # Tab leaves the table (arrows move in it)
        self.models.verticalHeader().hide()  # row numbers mean nothing here
        self.models.hide()  # Ollama's loaded models: shown for an Ollama server only
        header = self.models.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)  # model names are long
        self.form = form = QFormLayout()
        for name, label in self.figures.items():
            form.addRow(self.tr(name), label)  # the keys are marked in FIGURE_NAMES
        layout = QVBoxLayout(self)
        layout.addWidget(self.status)
        layout.addLayout(form)
        self.router = RouterWorkers()  # a router's workers; hidden for any other server
        layout.addWidget(self.router)
        layout.addWidget(self.models, 1)  # Ollama's table takes the height; else the
        layout.addStretch(0)  # figures stay together at the top (no band between them)
        self.timer = QTimer(self)
        self.timer.setTimerType(Qt.TimerType.PreciseTimer)  # a coarse timer may fire 5 % early
        self.timer.setInterval(POLL_INTERVAL_MS)
        self.timer.timeout.connect(self._tick)
        self.poller: ServerStatsPoller | None = None
        self._figures: ServerFigures | None = None
        self._in_flight: asyncio.Task[None] | None = None
        self.snapshot: ServerSnapshot | None = None
        self.polls = 0  # finished polls, for tests and the status line
        self._last_poll_at = -POLL_INTERVAL_MS / 1000.0  # monotonic seconds

    def set_server(
        self, url: str, api: str, model: str | None = None, metrics_url: str | None = None
    ) -> None:
        """`metrics_url`: a router's own metrics address, when its settings give one."""
        if self._figures is None:
            self._figures = ServerFigures()
        self.poller = ServerStatsPoller(self._figures, url, api, model, metrics_url)
        self.snapshot = None
        self.router.forget()
        self.models.setVisible(lists_models(None, api))
        self.status.setText(self.tr("Asking {url} …").format(url=url))

    def start(self) -> None:
        """Poll now and every second (the HUD calls this when it becomes visible)."""
        if not self.timer.isActive():
            self.timer.start()
            if time.monotonic() - self._last_poll_at >= POLL_INTERVAL_MS / 1000.0:
                self._tick()  # at once, unless the last poll was under a second ago

    def stop(self) -> None:
        self.timer.stop()

    async def aclose(self) -> None:
        self.stop()
        task, self._in_flight = self._in_flight, None
        if task is not None and not task.done():
            task.cancel()  # and wait for it: a poll left pending outlives the loop
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        if self._figures is not None:
            await self._figures.aclose()
            self._figures = None

    def _tick(self) -> None:
        self._show_countdown()
        if self.poller is None or (self._in_flight is not None and not self._in_flight.done()):
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return  # no asyncio loop runs Qt here (a bare test): nothing to poll with
        self._in_flight = loop.create_task(self._poll(self.poller))

    async def _poll(self, poller: ServerStatsPoller) -> None:
        # The tick is on time, but its task may start late on a busy loop: a poll started
        # late and the next on time would be under a second apart.
        wait = self._last_poll_at + POLL_INTERVAL_MS / 1000.0 - time.monotonic()
        if wait > 0:
            await asyncio.sleep(wait)
        self._last_poll_at = time.monotonic()
        try:
            snapshot = await poller.poll()
        except RuntimeError:  # httpx: its client was closed under it (the view closing)
            return
        if poller is self.poller:  # the server may have changed while we waited
            self.show_snapshot(snapshot)

    def show_snapshot(self, snap: ServerSnapshot) -> None:
        self.snapshot = snap
        self.polls += 1
        kind = server_kind_name(snap.kind, unknown=snap.name or self.tr("Server"))
        if snap.version:
            kind = f"{kind} {snap.version}"
        updated = self.tr("{kind} · updated {clock}").format(kind=kind, clock=clock(time.time()))
        self.status.setText(error_text(snap.error) if snap.error else updated)
        self.figures["running"].setText(short_number(snap.running))
        self.figures["waiting"].setText(short_number(snap.waiting))
        self.figures["kv cache"].setText(percent(snap.kv_cache_use))
        self.figures["server TTFT"].setText(
            self._ttft(snap.ttft_p50_ms, snap.ttft_p95_ms, snap.ttft_n)
        )
        recent = self._ttft(snap.recent_ttft_p50_ms, snap.recent_ttft_p95_ms, snap.recent_ttft_n)
        if snap.recent_s is not None and not snap.recent_ttft_n:
            recent = self.tr("no request in the last minute")
        self.figures["server TTFT, last minute"].setText(recent)
        self.figures["draft acceptance"].setText(percent(snap.spec_acceptance))
        self.figures["prompt tokens/s"].setText(number(snap.prompt_tokens_per_s, 1))
        self.figures["decode tokens/s"].setText(number(snap.decode_tokens_per_s, 1))
        self.figures["prompt cache hits"].setText(percent(snap.cache_hit_rate))
        self.figures["busy slots"].setText(self._slots(snap))
        self.figures["engine"].setText(self.engine_settings or self._engine_state(snap))
        self.models.setVisible(lists_models(snap))
        self.router.show_snapshot(snap)
        hidden = not_given(snap)
        for name, label in self.figures.items():  # a row the server left empty: not shown
            given = label.text() != NOTHING or name == "engine"
            self.form.setRowVisible(label, ROW_FIGURES[name] not in hidden and given)
        self._show_countdown()

    def _ttft(self, p50: float | None, p95: float | None, n: int) -> str:
        if p50 is None or p95 is None:
            return NOTHING
        return self.tr("P50 {p50} ms · P95 {p95} ms (n={n})").format(
            p50=number(p50), p95=number(p95), n=number(n)
        )

    def _engine_state(self, snap: ServerSnapshot) -> str:
        """vLLM's engine: awake or asleep (and how deeply)."""
        state = snap.engine_state
        if state is None:
            return NOTHING
        words = ENGINE_STATES.get(state)
        return self.tr(words) if words else state

    def show_engine(self, settings: EngineSettings | None) -> None:
        """The local engine's latency settings (an EngineSettings), or None: another server."""
        if settings is None:
            self.engine_settings = ""
        else:
            idle = settings.sleep_idle_s
            threads = self.tr("%Ln thread(s)", "", settings.threads)
            slots = self.tr("%Ln slot(s) of {ctx} tokens", "", settings.n_parallel)
            self.engine_settings = self.tr(
                "{threads} · {slots} · batch {batch} · "
                "prompt cache {cache} MiB · speculative: {spec} · unload after idle: {idle}"
            ).format(
                threads=threads,
                slots=slots.format(ctx=number(settings.n_ctx)),
                batch=number(settings.n_batch),
                cache=number(settings.cache_ram_mib),
                spec=settings.spec or self.tr("off"),
                idle=self.tr("never") if idle < 0 else self.tr("{s} s").format(s=number(idle)),
            )
        self.figures["engine"].setText(self.engine_settings or NOTHING)

    def _slots(self, snap: ServerSnapshot) -> str:
        if snap.total_slots is None:
            return NOTHING
        text = f"{number(snap.busy_slots or 0)} / {number(snap.total_slots)}"
        if snap.slot_ctx:
            text += self.tr(" · {ctx} tokens each").format(ctx=number(snap.slot_ctx))
        if snap.sleeping:
            text += self.tr(" · model asleep (unloaded after idle)")
        return text

    def _show_countdown(self) -> None:
        models = self.snapshot.models if self.snapshot else []
        now = datetime.now(UTC)
        self.models.setRowCount(len(models))
        for row, model in enumerate(models):
            left = model.seconds_left(now)
            vram = NOTHING
            if model.size_vram is not None:
                vram = f"{number(model.size_vram / 2**30, 2)} GiB"
            stays = left is None and model.expires_at
            until = self.tr("stays loaded") if stays else _countdown(left)
            for column, text in enumerate((model.name, vram, until)):
                self.models.setItem(row, column, QTableWidgetItem(text))


def _countdown(seconds: float | None) -> str:
    if seconds is None:
        return NOTHING
    minutes, secs = divmod(int(seconds), 60)
    return f"{number(minutes)}:{secs:02d}"
