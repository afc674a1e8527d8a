"""The real window against the real local engine: Esc mid-answer keeps the words and
the engine goes idle."""

from __future__ import annotations

import time
from typing import Any

import psutil
import pytest
from PySide6.QtCore import Qt

from tests.ui.conftest import last_answer_text, until

pytestmark = pytest.mark.engine

IDLE_CPU_PERCENT = 15.0


def _engine_cpu(pid: int, seconds: float = 0.3) -> float:
    return psutil.Process(pid).cpu_percent(interval=seconds)


def test_escape_mid_answer_keeps_words_and_engine_goes_idle(
    local_engine: Any, make_app: Any, run: Any, qtbot: Any
) -> None:
    app = make_app(local_engine.url, model=local_engine.model, api="openai")
    w = app.window
    w.composer.setPlainText("Write a long story about a lighthouse keeper and the sea.")
    qtbot.keyClick(w.composer, Qt.Key.Key_Return)

    async def scenario() -> None:
        await until(lambda: len(last_answer_text(w.chat_view).split()) >= 3, timeout_s=60)
        qtbot.keyClick(w.composer, Qt.Key.Key_Escape)
        await until(lambda: not app.page.busy)

    run(scenario(), timeout_s=90)
    kept = last_answer_text(w.chat_view)
    assert len(kept.split()) >= 3
    view = w.chat_view
    key = view.keys()[-1]
    assert view.message(key).state == "stopped"
    assert list(w.outcome_bar.buttons) == ["continue", "retry"]
    assert app.page.runner.generation.timeline.painted_ns is not None
    # The server stopped generating: its process goes idle (within a couple of seconds).
    deadline = time.monotonic() + 3.0
    cpu = _engine_cpu(local_engine.pid)
    while cpu > IDLE_CPU_PERCENT and time.monotonic() < deadline:
        cpu = _engine_cpu(local_engine.pid)
    assert cpu <= IDLE_CPU_PERCENT, f"the engine still uses {cpu:.0f}% CPU after Stop"
    assert w.send_button.isEnabled()
