"""Cycles are freed on the GUI thread, never on a thread that happened to allocate."""

from __future__ import annotations

import gc
import threading
import weakref
from collections.abc import Iterator
from typing import Any

import pytest
from PySide6.QtCore import QObject

from client.ui.shell.gui_thread_gc import GuiThreadCollector, collect_if_due


class Window:
    """A Python object in a cycle with the Qt object it holds, as a widget and a lambda
    connected to its signal are."""

    def __init__(self) -> None:
        self.qt = QObject()
        self.me = self


@pytest.fixture
def as_at_start() -> Iterator[None]:
    """The automatic collector on, as in a new process (the suite turns it off)."""
    gc.enable()
    yield
    gc.disable()
    KEPT.clear()


KEPT: list[list[object]] = []


def _allocate_past_the_threshold() -> None:
    """New objects kept (the collector counts allocations less deallocations)."""
    KEPT.append([[] for _ in range(20 * gc.get_threshold()[0])])


def test_a_cycle_left_by_the_window_is_freed_on_the_gui_thread(
    qapp: Any, qtbot: Any, as_at_start: None
) -> None:
    collector = GuiThreadCollector(every_ms=20)
    collector.start()
    assert not gc.isenabled()
    freed_on: list[str] = []
    window = Window()
    weakref.finalize(window, lambda: freed_on.append(threading.current_thread().name))
    del window
    worker = threading.Thread(target=_allocate_past_the_threshold, name="lab")
    worker.start()
    worker.join()
    assert freed_on == []  # the lab's thread allocated past the threshold, freed nothing
    qtbot.waitUntil(lambda: freed_on != [], timeout=10_000)
    collector.stop()
    assert freed_on == [threading.main_thread().name]


def test_nothing_is_collected_before_a_threshold_is_passed(as_at_start: None) -> None:
    gc.collect()
    gc.disable()
    assert collect_if_due() == 0
    garbage = Window()
    del garbage
    _allocate_past_the_threshold()
    assert collect_if_due() >= 1  # the window and its QObject's wrapper
