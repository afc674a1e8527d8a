"""Guards against a Qt binding that corrupts the interpreter.

PySide6 6.12.0 under Python 3.11 drops one reference to None on every call that returns
nothing; after a few thousand calls CPython aborts ("none_dealloc"). pyproject.toml pins
below it; this test fails if a broken build comes back.
"""

from __future__ import annotations

import sys

from PySide6.QtWidgets import QLabel


def test_void_calls_keep_none_alive(qtbot) -> None:  # type: ignore[no-untyped-def]
    label = QLabel("x")
    qtbot.addWidget(label)
    before = sys.getrefcount(None)
    for _ in range(2000):
        label.setText("y")
    assert before - sys.getrefcount(None) < 100
