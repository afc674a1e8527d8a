"""The footer's share in tools, "2.3 s in all, 0.4 s in tools (17%)", for a turn that
called tools: its tool servers' start and the runs (client/services/tools/call_records.py,
the HUD's share too), the wait for the user's approval apart, never counted. The live
turn's comes from its records (client/ui/tools/tool_turn_view.py), a reopened answer's
from those stored with its stages (services/chat/answer_figures.py stored_tool_time)."""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import QCoreApplication, QLocale

from client.services.chat.answer_figures import StageRecorded, stored_tool_time
from client.services.tools.call_records import ToolTime

APPROVAL_SHOWN_MS = 50.0  # a shorter wait for the user's yes goes unsaid (always allowed)


def stored_share_text(requests: Sequence[StageRecorded]) -> str:
    """A stored answer's share (a reopened conversation), from its requests' records."""
    return tool_share_words(stored_tool_time(requests))


def tool_share_words(spent: ToolTime | None) -> str:
    """The share's words; "" for a turn that called no tool."""
    if spent is None:
        return ""
    locale = QLocale()
    text = QCoreApplication.translate(
        "ToolTurnView", "{whole} s in all, {seconds} s in tools ({percent}%)"
    ).format(
        whole=locale.toString(spent.whole_ms / 1e3, "f", 1),
        seconds=locale.toString(spent.tools_ms / 1e3, "f", 1),
        percent=locale.toString(round(100 * spent.share)),
    )
    if spent.approval_ms < APPROVAL_SHOWN_MS:
        return text
    waited = QCoreApplication.translate(
        "ToolTurnView", "{seconds} s waiting for your approval, not counted"
    )
    return f"{text} · {waited.format(seconds=locale.toString(spent.approval_ms / 1e3, 'f', 1))}"
