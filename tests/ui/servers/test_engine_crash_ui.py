"""An engine that dies mid-answer (SIGKILL: what a crash in llama.cpp looks like from
outside) never takes the window down: the words so far stay, the failure says what
happened in one sentence and offers the next steps, and the window keeps working."""

from __future__ import annotations

import os
import signal
from typing import Any

import pytest
from PySide6.QtCore import Qt

from client.backends.engine.local_engine import LocalEngine
from tests.ui.conftest import last_answer_text, until

pytestmark = pytest.mark.engine


def test_a_crashed_engine_leaves_the_window_working(make_app: Any, run: Any, qtbot: Any) -> None:
    engine = LocalEngine()  # its own: the session's engine must survive this test
    engine.start_sync()
    try:
        app = make_app(engine.url, model=engine.model, api="openai")
        w = app.window
        w.composer.setPlainText("Write a long story about a lighthouse keeper and the sea.")
        qtbot.keyClick(w.composer, Qt.Key.Key_Return)

        async def scenario() -> None:
            await until(lambda: len(last_answer_text(w.chat_view).split()) >= 3, timeout_s=60)
            assert engine.pid is not None
            os.kill(engine.pid, signal.SIGKILL)
            await until(lambda: not app.page.busy)

        run(scenario(), timeout_s=120)
        assert w.isVisible()
        assert len(last_answer_text(w.chat_view).split()) >= 3  # the words that arrived are kept
        steps = list(w.outcome_bar.buttons)
        assert "retry" in steps and "continue" in steps
        assert w.send_button.isEnabled() and w.composer.isEnabled()
        assert "Traceback" not in w.stage_label.text()
    finally:
        engine.stop_sync()
