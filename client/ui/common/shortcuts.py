"""Every key of the window, declared once: the keys each action or shortcut is given,
and what it does (Help > Keyboard shortcuts lists this table in its order).

Two entries never share a key: tests/ui/shell/test_shortcuts.py reads this table and
every action and shortcut the window holds, and fails on a clash (Qt runs neither of
two enabled shortcuts with the same key: Ctrl+Shift+R once did nothing at all).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

from client.ui.common.noop_tr import QT_TRANSLATE_NOOP

if TYPE_CHECKING:  # (the window's first paint needs only the text: QKeySequence, ~1 ms)
    from PySide6.QtGui import QKeySequence


class Keys(NamedTuple):  # (not a dataclass: its import costs ~2 ms before the paint)
    keys: tuple[str, ...]  # Qt's portable text; the first is the one shown
    does: str  # in the "Shortcuts" translation context


SHORTCUTS: dict[str, Keys] = {
    "send": Keys(("Return",), QT_TRANSLATE_NOOP("Shortcuts", "Send the message")),
    "new_line": Keys(("Shift+Return",), QT_TRANSLATE_NOOP("Shortcuts", "New line in the message")),
    "stop": Keys(("Esc",), QT_TRANSLATE_NOOP("Shortcuts", "Stop the answer (leave Present)")),
    "regenerate": Keys(("Ctrl+R",), QT_TRANSLATE_NOOP("Shortcuts", "Ask again")),
    "ask_strong": Keys(
        ("Ctrl+Shift+Return",), QT_TRANSLATE_NOOP("Shortcuts", "Ask the strong model (cascade)")
    ),
    "reask": Keys(
        ("Ctrl+Shift+R",), QT_TRANSLATE_NOOP("Shortcuts", "Re-ask with the other model (cascade)")
    ),
    "race": Keys(
        ("Ctrl+Alt+R",), QT_TRANSLATE_NOOP("Shortcuts", "Race one question on several routes")
    ),
    "documents": Keys(
        ("Ctrl+K",), QT_TRANSLATE_NOOP("Shortcuts", "Search my documents in this conversation")
    ),
    "new": Keys(("Ctrl+N",), QT_TRANSLATE_NOOP("Shortcuts", "New conversation")),
    "search": Keys(("Ctrl+F",), QT_TRANSLATE_NOOP("Shortcuts", "Search the conversations")),
    "focus": Keys(("Ctrl+L",), QT_TRANSLATE_NOOP("Shortcuts", "Go to the message box")),
    "conversations": Keys(
        ("Ctrl+Shift+L",), QT_TRANSLATE_NOOP("Shortcuts", "Show or hide the conversations")
    ),
    "latency_panel": Keys(
        ("Ctrl+Shift+H",), QT_TRANSLATE_NOOP("Shortcuts", "Show or hide the latency panel")
    ),
    "zoom_in": Keys(("Ctrl++", "Ctrl+="), QT_TRANSLATE_NOOP("Shortcuts", "Zoom in")),
    "zoom_out": Keys(("Ctrl+-",), QT_TRANSLATE_NOOP("Shortcuts", "Zoom out")),
    "zoom_reset": Keys(("Ctrl+0",), QT_TRANSLATE_NOOP("Shortcuts", "Actual size")),
    "full_screen": Keys(("F11",), QT_TRANSLATE_NOOP("Shortcuts", "Full screen")),
    "present": Keys(("F5",), QT_TRANSLATE_NOOP("Shortcuts", "Present (F5 or Esc leaves)")),
    "settings": Keys(("Ctrl+,",), QT_TRANSLATE_NOOP("Shortcuts", "Settings")),
    "quit": Keys(("Ctrl+Q",), QT_TRANSLATE_NOOP("Shortcuts", "Quit")),
}


def key_of(name: str) -> str:
    """The entry's first key, as Qt's portable text ("Ctrl+Shift+R")."""
    return SHORTCUTS[name].keys[0]


def sequences(name: str) -> list[QKeySequence]:
    """All the entry's keys, for QAction.setShortcuts."""
    from PySide6.QtGui import QKeySequence

    return [QKeySequence(keys) for keys in SHORTCUTS[name].keys]
