"""A question asked while the chosen server cannot be reached is kept (the turn's
queued state): Stop is enabled and takes it back (its text returns to the composer,
nothing is sent), while the reach bar offers Try now and Use the local model."""

from __future__ import annotations

import socket
from typing import Any

import pytest
from PySide6.QtCore import Qt

from client.services.servers.reachability import Backoff
from tests.ui.conftest import until


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture
def quick_backoff(monkeypatch: pytest.MonkeyPatch) -> None:
    """Tries 50 ms apart (the app's are 1, 2, 4 ... 30 s): the test waits for events."""
    monkeypatch.setattr("client.services.tachy.Backoff", lambda: Backoff(0.05, 0.2))


def test_stop_takes_back_a_question_kept_for_an_unreachable_server(
    make_app: Any, run: Any, qtbot: Any, quick_backoff: None
) -> None:
    app = make_app(f"http://127.0.0.1:{_closed_port()}", api="auto", model=None)
    servers, w = app.servers, app.window
    run(until(lambda: servers.waiting is not None and servers.waiting.misses >= 1))
    w.composer.setPlainText("are you there?")
    qtbot.keyClick(w.composer, Qt.Key.Key_Return)
    assert app.page.kept_question == "are you there?"
    assert "are you there?" in w.chat_view.toPlainText()
    # The next steps while it waits: Stop, Try now, Use the local model.
    assert w.stop_button.isEnabled()
    bar = servers.reach_bar
    assert bar.isVisible() and bar.try_button.isVisible() and bar.local_button.isVisible()

    qtbot.mouseClick(w.stop_button, Qt.MouseButton.LeftButton)
    assert app.page.kept_question is None
    assert w.composer.toPlainText() == "are you there?"  # nothing lost
    assert "are you there?" not in w.chat_view.toPlainText()
    assert not w.stop_button.isEnabled() and w.send_button.isEnabled()
    assert w.stage_label.text() == ""
    misses = servers.waiting.misses
    run(until(lambda: servers.waiting is not None and servers.waiting.misses > misses))
    assert w.stage_label.text() == ""  # the next try does not say a question is kept

    # Asked again and taken back with Esc, from the composer.
    qtbot.keyClick(w.composer, Qt.Key.Key_Return)
    assert app.page.kept_question == "are you there?" and w.composer.toPlainText() == ""
    qtbot.keyClick(w.composer, Qt.Key.Key_Escape)
    assert app.page.kept_question is None and w.composer.toPlainText() == "are you there?"
