"""Feeds the latency HUD (client/ui/hud/hud.py) from the root's HUD feed
(client/services/hud/hud_feed.py: the turns and answers of the root's events, whoever
asked), the server in use and the pool the chat goes to."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QCoreApplication, QObject, QTimer

from client.services.events import AnswerFinished
from client.services.hud.hud_feed import HudFeed, HudTurn
from client.ui.common.async_errors import report

if TYPE_CHECKING:
    from PySide6.QtWidgets import QDockWidget, QLabel

    from client.services.tachy import Tachy
    from client.ui.hud.hud import LatencyHud
    from client.ui.servers.server_controller import ServerController

HISTORY_ROWS = 500
VIEWS_DELAY_MS = 16  # the HUD's per-reply views, after the answer's end is painted


class HudController(QObject):
    """The thin Qt adapter: a view of the HUD feed that shows its turns in the HUD
    (the live plot reads each turn's token stamps from its timeline, once a frame)."""

    def __init__(self, hud: LatencyHud, feed: HudFeed) -> None:
        super().__init__(hud)  # goes with the HUD
        self.hud = hud
        self.feed = feed
        feed.views.append(self)
        self.destroyed.connect(lambda *_: self.close())

    def close(self) -> None:
        if self in self.feed.views:
            self.feed.views.remove(self)

    def turn_started(self, turn: HudTurn) -> None:
        timeline = turn.timeline
        if timeline is None:
            return
        self._guard(self.hud.request_started, timeline, turn.model, turn.server)
        self._guard(self.hud.follow, timeline)

    def answer_finished(self, turn: HudTurn, answer: AnswerFinished) -> None:
        record = self.feed.last
        if record is None or turn.timeline is None:  # no turn of a window: not its HUD's
            return
        self._guard(self.hud.add_reply, record, views_now=False)
        # The tier, waterfall and requests views a frame later: the answer's last
        # words and end state are painted first, and the loop is never held for both.
        QTimer.singleShot(VIEWS_DELAY_MS, partial(self._guard, self.hud.show_last_reply))

    def _guard(self, call: Callable[..., object], *args: Any, **kwargs: Any) -> None:
        try:
            call(*args, **kwargs)
        except Exception as error:  # the HUD must never break the chat
            report(error, "the latency HUD")


def _show_timing(dock: QDockWidget, status: QLabel, hud: LatencyHud, message_id: int) -> None:
    if hud.show_message(message_id):
        dock.show()
        dock.raise_()
    else:
        status.setText(
            QCoreApplication.translate("HudController", "No timing was recorded for that answer.")
        )


def _show_last_n(hud: LatencyHud) -> None:
    from client.services.hud.hud_model import Scope

    index = hud.requests.scope.findData(Scope.LAST_N)
    if index >= 0:
        hud.requests.scope.setCurrentIndex(index)


def _show_engine(tachy: Tachy, hud: LatencyHud, url: str) -> None:
    """The local engine's settings beside its counters, when it is the server shown."""
    engine = tachy.engine
    is_engine = engine is not None and engine.running and engine.url == url
    hud.server.show_engine(engine.settings if engine is not None and is_engine else None)


def attach_hud(hud: LatencyHud, servers: ServerController, dock: QDockWidget) -> None:
    """Load past metrics into the HUD and feed it: each generation of the chat, the
    server in use, an answer's timing when asked for (in `dock`, the HUD's place in the
    window), and the pool the chat goes to."""
    from client.services.storage.stores import recent_requests

    page, tachy = servers.page, servers.tachy
    past = recent_requests(tachy.stores, HISTORY_ROWS)
    if past:  # "This session" would start empty: show the earlier runs' requests
        hud.load_history(past)
        _show_last_n(hud)
    HudController(hud, tachy.hud)  # the root's turns, whoever asked
    servers.serverChanged.connect(  # with a router's metrics address, if its settings give one
        lambda url, api, model: hud.set_server(url, api, model, servers.saved.metrics_url(url))
    )
    servers.serverChanged.connect(lambda url, *_: _show_engine(tachy, hud, url))
    status = page.window.stage_label
    page.timingRequested.connect(lambda key: _show_timing(dock, status, hud, key))

    def show_pool(*_: object) -> None:
        """The Pool tab while the chat goes to a pool, renewed after each answer."""
        pool = tachy.pool_in_use()
        if pool is None:
            hud.hide_pool()
        else:
            hud.show_pool(pool.pool.name, pool.book.figures())

    page.answerEnded.connect(show_pool)
    servers.serverChanged.connect(show_pool)
