"""The real window against the real local engine: Esc mid-answer keeps the words and
the engine stops writing (counted in its CPU work; tests/perf times a cancel)."""

from __future__ import annotations

from typing import Any

import pytest
from PySide6.QtCore import Qt

from tests.engine_work import cpu_ticks, wait_until_idle, work_after_stop
from tests.ui.conftest import last_answer_text, until

pytestmark = pytest.mark.engine


def test_escape_mid_answer_keeps_words_and_engine_goes_idle(
    local_engine: Any, make_app: Any, run: Any, qtbot: Any
) -> None:
    app = make_app(local_engine.url, model=local_engine.model, api="openai")
    w = app.window
    w.composer.setPlainText("Write a long story about a lighthouse keeper and the sea.")
    wait_until_idle(local_engine.url)
    before = cpu_ticks(local_engine.pid)
    qtbot.keyClick(w.composer, Qt.Key.Key_Return)
    stopped: list[tuple[int, int]] = []  # (CPU ticks, tokens) at the Esc

    async def scenario() -> None:
        await until(lambda: len(last_answer_text(w.chat_view).split()) >= 3)
        tokens = len(app.page.runner.generation.timeline.tokens)
        stopped.append((cpu_ticks(local_engine.pid), tokens))
        qtbot.keyClick(w.composer, Qt.Key.Key_Escape)
        await until(lambda: not app.page.busy)

    run(scenario())
    kept = last_answer_text(w.chat_view)
    assert len(kept.split()) >= 3
    view = w.chat_view
    key = view.keys()[-1]
    assert view.message(key).state == "stopped"
    assert list(w.outcome_bar.buttons) == ["continue", "retry"]
    assert app.page.runner.generation.timeline.painted_ns is not None
    # The server stopped writing: a token costs at most this many ticks (the question's
    # reading is counted in), and it wrote one or two more after the Esc, not the story.
    ((ticks_at_stop, tokens),) = stopped
    per_token = (ticks_at_stop - before) / tokens
    after = work_after_stop(local_engine.pid, local_engine.url, ticks_at_stop)
    assert after < 50 * per_token, f"the engine wrote on after Esc ({after} ticks)"
    assert w.send_button.isEnabled()
