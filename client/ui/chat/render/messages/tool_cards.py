"""A tool call in the chat: a compact card between the answer's parts.

    ⚙ add · Tachy demo tools · 39 ms · Done                 (the header: one link)
      Arguments  {"a": 2, "b": 3}                           (folded until clicked)
      Result     5.0

The header is one link of the view's private scheme (action `tool<round>_<place>`), so
a click, or Tab to it and Enter, folds and unfolds the card; its text says what it is
(the tool, the server, the time, how it ended) for a screen reader too. The call's
arguments and its result may come from a model or a tool: they are inserted as plain
text, never read as Markdown or HTML, and never load anything. The card is a frame the
document draws (a tinted box with a border, in the theme's colours, at the reading
zoom's size), so the chat's scrolling, selection and copy work across it.
"""

from __future__ import annotations

import json
from collections.abc import Callable

from PySide6.QtCore import QCoreApplication, QLocale
from PySide6.QtGui import (
    QBrush,
    QColor,
    QFont,
    QTextBlockFormat,
    QTextCharFormat,
    QTextCursor,
    QTextFrame,
    QTextFrameFormat,
)

from client.services.chat.turn_state import TurnState
from client.services.tools.tool_history import StoredToolCall
from client.ui.chat.render.look import ChatColours, shrink
from client.ui.common.noop_tr import QT_TRANSLATE_NOOP
from client.ui.common.turn_words import turn_word

SHOWN_CHARS = 4000  # of a result or arguments in an open card (Copy gives them whole)
LinkFormat = Callable[[str], QTextCharFormat]  # (action) -> a link of the view's scheme

WORDS = {  # how a call stands (the card's header)
    "ready": QT_TRANSLATE_NOOP("ToolCard", "Arguments complete"),
    "running": QT_TRANSLATE_NOOP("ToolCard", "Running…"),
    "done": QT_TRANSLATE_NOOP("ToolCard", "Done"),
    "error": QT_TRANSLATE_NOOP("ToolCard", "Error"),
    "denied": QT_TRANSLATE_NOOP("ToolCard", "Denied"),
    "stopped": QT_TRANSLATE_NOOP("ToolCard", "Stopped"),
    "lost": QT_TRANSLATE_NOOP("ToolCard", "No result"),
}


def _tr(text: str) -> str:
    return QCoreApplication.translate("ToolCard", text)


def card_action(call: StoredToolCall) -> str:
    """The header link's action (the view's anchor: `<scheme>:<action>/<message key>`)."""
    return f"tool{call.round}_{call.position}"


def place_of(action: str) -> tuple[int, int] | None:
    """(round, place) from a header link's action, or None when it is not one."""
    if not action.startswith("tool"):
        return None
    round_, _, position = action[4:].partition("_")
    if not (round_.isdigit() and position.isdigit()):
        return None
    return int(round_), int(position)


def standing(call: StoredToolCall, live: bool) -> str:
    """How the call stands: a key of WORDS, or "waiting" (for the user's approval)."""
    if call.status != "done" or call.result is None:
        if not live:
            return "lost"  # Tachy closed (or the answer ended) before it finished
        return call.status if call.status in ("waiting", "running") else "ready"
    if call.problem in ("denied", "stopped"):
        return call.problem
    return "error" if call.is_error else "done"


def standing_words(call: StoredToolCall, live: bool) -> str:
    stands = standing(call, live)
    if stands == "waiting":
        return turn_word(TurnState.APPROVAL)
    return _tr(WORDS[stands])


def time_words(call: StoredToolCall) -> str:
    """ "39 ms" or "1.2 s" for a tool that ran; "" when nothing ran."""
    if call.status != "done" or call.ms <= 0:
        return ""
    if call.ms < 1000:
        return QCoreApplication.translate("ToolCard", "{ms} ms").format(ms=round(call.ms))
    return QCoreApplication.translate("ToolCard", "{seconds} s").format(
        seconds=QLocale().toString(call.ms / 1000, "f", 1)
    )


def header_text(call: StoredToolCall, live: bool) -> str:
    """The header's words: the tool, its server, its time, how it stands."""
    parts = [call.name, call.server, time_words(call), standing_words(call, live)]
    return " · ".join(part for part in parts if part)


def shown_arguments(call: StoredToolCall) -> str:
    """The arguments laid out for reading (their text as written when not JSON)."""
    try:
        value = json.loads(call.arguments) if call.arguments.strip() else {}
    except (json.JSONDecodeError, RecursionError):
        return call.arguments
    return json.dumps(value, ensure_ascii=False, indent=2)


def plain_text(call: StoredToolCall, live: bool = False) -> str:
    """The card as Copy gives it: its header, its arguments and its result, whole."""
    tool = QCoreApplication.translate("ToolCard", "Tool")
    lines = [f"[{tool} {header_text(call, live)}]"]
    arguments = QCoreApplication.translate("ToolCard", "Arguments")
    lines.append(f"{arguments}: {shown_arguments(call)}")
    if call.result is not None:
        result = QCoreApplication.translate("ToolCard", "Result")
        lines.append(f"{result}: {call.result}")
    return "\n".join(lines)


def card_link(scheme: str, key: int, look: ChatColours) -> LinkFormat:
    """The header links of message `key`'s cards (the view's private scheme)."""

    def link(action: str) -> QTextCharFormat:
        fmt = QTextCharFormat()
        fmt.setAnchor(True)
        fmt.setAnchorHref(f"{scheme}:{action}/{key}")
        fmt.setForeground(QColor(look.link))
        return fmt

    return link


def card_format(look: ChatColours) -> QTextFrameFormat:
    fmt = QTextFrameFormat()
    fmt.setBorder(1)
    fmt.setBorderBrush(QBrush(QColor(look.rule)))
    fmt.setBorderStyle(QTextFrameFormat.BorderStyle.BorderStyle_Solid)
    fmt.setBackground(QColor(look.code))
    fmt.setPadding(6)
    fmt.setTopMargin(6)
    fmt.setBottomMargin(6)
    return fmt


def insert_card(
    cursor: QTextCursor,
    call: StoredToolCall,
    is_open: bool,
    live: bool,
    link: LinkFormat,
    look: ChatColours,
) -> QTextFrame:
    """The card at the cursor, as a frame of its own; the cursor ends after it."""
    frame = cursor.insertFrame(card_format(look))
    inside = frame.firstCursorPosition()
    header = link(card_action(call))
    header.setFontWeight(QFont.Weight.DemiBold)
    stands = standing(call, live)
    if stands in ("error", "denied", "lost"):
        header.setForeground(QColor(look.error))
    if is_open:
        tip = QCoreApplication.translate("ToolCard", "Hide the arguments and the result")
    else:
        tip = QCoreApplication.translate("ToolCard", "Show the arguments and the result")
    header.setToolTip(tip)
    mark = "▾" if is_open else "▸"
    inside.insertText(f"{mark} ⚙ {header_text(call, live)}", header)
    if is_open:
        _insert_details(inside, call, look)
    cursor.setPosition(frame.lastPosition() + 1)
    return frame


def _insert_details(cursor: QTextCursor, call: StoredToolCall, look: ChatColours) -> None:
    label = QTextCharFormat()
    label.setForeground(QColor(look.secondary))
    shrink(label)
    code = QTextCharFormat()
    code.setFontFixedPitch(True)
    code.setFontFamilies(["monospace"])
    parts = [(QCoreApplication.translate("ToolCard", "Arguments"), shown_arguments(call))]
    if call.result is not None:
        parts.append((QCoreApplication.translate("ToolCard", "Result"), call.result))
    room = QTextBlockFormat()
    room.setTopMargin(4)  # a little air between the header and each part
    for title, text in parts:
        cursor.insertBlock(room, label)
        cursor.insertText(title, label)
        cursor.insertBlock(QTextBlockFormat(), code)
        cursor.insertText(_cut(text) or " ", code)  # plain text: never markup


def _cut(text: str) -> str:
    if len(text) <= SHOWN_CHARS:
        return text
    more = QCoreApplication.translate(
        "ToolCard", "… ({count} more characters: Copy gives them all)"
    )
    return text[:SHOWN_CHARS] + more.format(count=len(text) - SHOWN_CHARS)
