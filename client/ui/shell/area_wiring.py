"""The areas of the window wired to each other: the latency HUD and the warming
controller, each made with its own widgets and the parts it adapts, then connected here
to the areas beside it (the shell wires the areas together; no area imports the shell)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from client.ui.common.async_errors import report

if TYPE_CHECKING:
    from client.ui.conversations.conversation_list import ConversationPanel
    from client.ui.hud import LatencyHud
    from client.ui.servers.server_controller import ServerController
    from client.ui.shell.main_window import MainWindow
    from client.ui.warming.warming_controller import WarmingController


def attach_hud(window: MainWindow, servers: ServerController) -> LatencyHud | None:
    """The HUD in its dock, fed by the chat and the server in use; None when it could
    not be made (the chat works without its HUD)."""
    from client.ui.hud import LatencyHud
    from client.ui.hud.hud_controller import attach_hud as feed_hud

    try:
        hud = LatencyHud()
        window.set_hud_widget(hud)
        feed_hud(hud, servers, window.hud_dock)
    except Exception as error:
        report(error, "the latency HUD")
        return None
    return hud


def attach_warming(
    servers: ServerController, conversations: ConversationPanel, hud: LatencyHud | None
) -> WarmingController | None:
    """Warming after the HUD (how far its predictions were off goes in the HUD's tooltip).
    None without a warming policy, or when it could not be made (the chat works on)."""
    from client.ui.warming.warming_controller import WarmingController

    policy = servers.tachy.warming
    if policy is None:
        return None
    try:
        warming = WarmingController(servers, policy, servers.window)
    except Exception as error:  # the chat works without warming
        report(error, "keeping the model warm")
        return None
    for opened in (conversations.chosen, conversations.newRequested):
        opened.connect(lambda *_: warming.conversation_opened())
    if hud is not None:  # how far its predictions were off, in the HUD's tooltip
        warming.predictionNoteChanged.connect(hud.set_prediction_note)
        hud.set_prediction_note(warming.prediction_note)
    return warming
