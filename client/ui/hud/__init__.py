"""The latency HUD: a dockable panel for the main window.
May import: ui.servers, ui.chat, ui.common, client.services, client.core.

How the window wires it (all calls on the GUI thread)::

    hud = LatencyHud(thresholds=settings_thresholds)
    window.set_hud_widget(hud)                      # goes into the `hudDock` QDockWidget
    hud.load_history(metrics_store.recent(...))     # past requests: mappings or objects with
                                                    # the request_metrics column names
    hud.set_server(url, api, model)                 # api "ollama" or "openai"; polled once a
                                                    # second, only while the HUD is visible
    hud.thresholds_changed.connect(...)             # the tier view edits TierThresholds

    # per turn: hud_controller.py adapts the root's HUD feed (services/hud/hud_feed.py,
    # the root's TurnStarted and AnswerFinished, whoever asked):
    hud.request_started(turn.timeline, turn.model, turn.server)
    hud.follow(turn.timeline)                       # its token stamps, read once a frame
    hud.add_reply(tachy.hud.last)                   # the answer's record
    # or, pushed by hand (the tests, the benchmarks):
    hud.token(token.kind, len(token.text), generation.timeline.tokens[-1].at_ns)  # per Token
    hud.request_finished(finished.metrics, generation.timeline, finished.outcome,
                         message_id=finished.message_id)
    hud.show_message(message_id)                    # the waterfall of a clicked message

    await hud.aclose()                              # on quit: stops timers, closes its client

`token()` is O(1) (one list append) and does no Qt work; a QTimer (12.5 frames a
second, running only while a reply streams) turns the stamps into series and calls
setData on curves made once. Server polling needs the qasync loop to be running.
Tabs (one view each in tabs/, added through `hud.add_tab`: docs/extending.md): Live
(token rate, gaps, stalls), Requests (TTFT by tier, mean/P50/P95/P99 with n per scope,
cold excludable), Waterfall, Tier, Server; Race from the first race (`hud.show_race`),
Pool while the chat goes to a pool (`hud.show_pool`, `hud.hide_pool`). hud_controller.py
feeds it from the root's events and the server in use. Export: `export_metrics(path.csv|json)`,
`export_graphs(path.png|svg)`.
"""

from __future__ import annotations

from client.ui.hud.hud import LatencyHud

__all__ = ["LatencyHud"]
