"""Feeds the latency HUD (client/ui/hud/hud.py) from the generation runner, the server
in use and the pool the chat goes to."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QCoreApplication, QTimer

from client.core.events import TokenKind
from client.services.chat.generation import Generation
from client.services.chat.session import ChatSession
from client.ui.common.async_errors import report

if TYPE_CHECKING:
    from PySide6.QtWidgets import QDockWidget, QLabel

    from client.services.tachy import Tachy
    from client.ui.hud.hud import LatencyHud
    from client.ui.servers.server_controller import ServerController

HISTORY_ROWS = 500
VIEWS_DELAY_MS = 16  # the HUD's per-reply views, after the answer's end is painted


class HudController:
    """The runner's listener: forwards each generation's stamps to the HUD."""

    def __init__(self, hud: LatencyHud, session_of: Callable[[], ChatSession | None]) -> None:
        self.hud = hud
        self._session_of = session_of  # the current session

    def request_started(self, generation: Generation) -> None:
        session = self._session_of()
        model = session.model if session is not None else ""
        server = session.server_name if session is not None else ""
        self._guard(self.hud.request_started, generation.timeline, model, server, generation.cold)

    def token(self, kind: TokenKind, chars: int, at_ns: int) -> None:
        self.hud.token(kind, chars, at_ns)  # O(1), no Qt work

    def request_finished(self, generation: Generation) -> None:
        finished = generation.finished
        if finished is None:
            return
        self._guard(
            self.hud.request_finished,
            finished.metrics,
            generation.timeline,
            finished.outcome,
            message_id=finished.message_id,
            views_now=False,
            answered_by=(route.model, route.server_name) if (route := generation.route) else None,
            cold=generation.cold,  # known by now: at the start the model's state may not be
        )
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
    page.runner.listener = HudController(hud, lambda: page.session)
    servers.serverChanged.connect(hud.set_server)
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
