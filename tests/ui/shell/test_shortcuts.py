"""The window's keys are declared once (client/ui/common/shortcuts.py) and never clash:
Qt runs neither of two enabled shortcuts with the same key (Ctrl+Shift+R was bound to
Demo > Race… and to the cascade's "Re-ask with the other model" and did nothing)."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from PySide6.QtGui import QAction, QKeySequence, QShortcut

from client.ui.common.shortcuts import SHORTCUTS
from client.ui.shell.help_dialogs import ShortcutsDialog

PORTABLE = QKeySequence.SequenceFormat.PortableText


def _text(sequence: QKeySequence) -> str:
    return sequence.toString(PORTABLE)


def test_no_two_entries_of_the_table_share_a_key() -> None:
    owners: dict[str, list[str]] = defaultdict(list)
    for name, entry in SHORTCUTS.items():
        for keys in entry.keys:
            owners[_text(QKeySequence(keys))].append(name)
    assert {key: names for key, names in owners.items() if len(names) > 1} == {}


def _window_keys(window: Any) -> dict[str, list[str]]:
    """Each key of an enabled action or shortcut of the main window, and who holds it."""
    owners: dict[str, list[str]] = defaultdict(list)
    for action in window.findChildren(QAction):
        if action.isEnabled():
            for sequence in action.shortcuts():
                owners[_text(sequence)].append(action.text() or action.objectName())
    for shortcut in window.findChildren(QShortcut):
        if shortcut.isEnabled() and shortcut.parent().window() is window:
            owners[_text(shortcut.key())].append(f"shortcut {shortcut.key().toString()}")
    return owners


def test_the_window_has_no_clash_and_only_declared_keys(make_app: Any, server: Any) -> None:
    app = make_app(server.url)
    owners = _window_keys(app.window)
    assert {key: names for key, names in owners.items() if len(names) > 1} == {}
    declared = {_text(QKeySequence(keys)) for entry in SHORTCUTS.values() for keys in entry.keys}
    assert set(owners) - declared == set()


def test_help_lists_every_declared_key(qtbot: Any) -> None:
    dialog = ShortcutsDialog()
    qtbot.addWidget(dialog)
    assert len(dialog.rows()) == len(SHORTCUTS)
