"""Feeds the latency HUD (client/ui/hud, another module) from the generation runner."""

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
    from client.ui.hud.hud import LatencyHud
    from client.ui.shell.app import TachyApp

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


def _show_timing(app: TachyApp, hud: LatencyHud, message_id: int) -> None:
    if hud.show_message(message_id):
        app.window.hud_dock.show()
        app.window.hud_dock.raise_()
    else:
        app.window.stage_label.setText(
            QCoreApplication.translate("HudController", "No timing was recorded for that answer.")
        )


def _show_last_n(hud: LatencyHud) -> None:
    from client.services.hud.hud_model import Scope

    index = hud.requests.scope.findData(Scope.LAST_N)
    if index >= 0:
        hud.requests.scope.setCurrentIndex(index)


def _show_engine(app: TachyApp, hud: LatencyHud, url: str) -> None:
    """The local engine's settings beside its counters, when it is the server shown."""
    engine = app.tachy.engine
    is_engine = engine is not None and engine.running and engine.url == url
    hud.server.show_engine(engine.settings if engine is not None and is_engine else None)


def attach_hud(app: TachyApp) -> LatencyHud:
    """Create the HUD, put it in the dock, load past metrics and listen to generations."""
    from client.ui.hud import LatencyHud

    hud = LatencyHud()
    app.window.set_hud_widget(hud)
    from client.services.storage.stores import recent_requests

    past = recent_requests(app.stores, HISTORY_ROWS)
    if past:  # "This session" would start empty: show the earlier runs' requests
        hud.load_history(past)
        _show_last_n(hud)
    app.page.runner.listener = HudController(hud, lambda: app.page.session)
    app.servers.serverChanged.connect(hud.set_server)
    app.servers.serverChanged.connect(lambda url, *_: _show_engine(app, hud, url))
    app.page.timingRequested.connect(lambda key: _show_timing(app, hud, key))
    _attach_pool_view(app, hud)
    return hud


def _attach_pool_view(app: TachyApp, hud: LatencyHud) -> None:
    """The Pool tab while the chat goes to a pool: its servers, renewed after each
    answer; no tab otherwise."""
    from client.ui.servers.pools.pool_view import PoolView

    view = PoolView()
    title = QCoreApplication.translate("LatencyHud", "Pool")

    def renew(*_: object) -> None:
        pool = app.tachy.pool_in_use()
        index = hud.tabs.indexOf(view)
        if pool is None:
            if index >= 0:
                hud.tabs.removeTab(index)
            return
        if index < 0:
            hud.tabs.addTab(view, title)
        view.show_pool(pool.pool.name, pool.book.figures())

    app.page.answerEnded.connect(renew)
    app.servers.serverChanged.connect(renew)
