"""A question asked while the chosen server does not answer yet is kept and goes out
when it answers, whether or not its API is known (a session may exist, on it or on the
server chosen before): never "not sent: server unreachable", never sent to another
server. The sentence says what it waits for (no local model is involved here), the
welcome card goes, and a server that cannot be reached is not shown as warm."""

from __future__ import annotations

import socket
import time
from typing import Any

import pytest

from client.services.servers.model_status import ModelState, ModelStatus
from client.services.servers.reachability import Backoff
from tests.ui.conftest import last_answer_text, until
from tests.ui.scripted_server import ScriptedOllama


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture
def quick_backoff(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("client.services.tachy.Backoff", lambda: Backoff(0.05, 0.2))


def test_a_question_for_a_server_still_down_is_kept_then_sent(
    make_app: Any, run: Any, quick_backoff: None
) -> None:
    port = _closed_port()
    app = make_app(f"http://127.0.0.1:{port}", api="ollama", model="scripted:1b")
    w = app.window
    app.page.send("are you there?")  # at once, before the server is up
    assert app.page.kept_question == "are you there?" and not app.page.busy
    said = w.stage_label.text()
    assert "goes out when the server answers" in said and "local model" not in said
    assert not app.welcome.panel.isVisible()  # not drawn over the kept question
    # What the picker knew of the model before (warm, N min left) is not shown now.
    in_use = w.server_bar.server_in_use
    assert in_use is not None and app.servers.waiting is not None
    warm = ModelStatus(ModelState.WARM, unloads_at=time.monotonic() + 1800)
    app.model_picker._states = {(in_use.key, "scripted:1b"): warm}
    app.model_picker.show_details()
    assert "warm" not in " ".join(w.server_bar._lists.details.values())

    server = ScriptedOllama()
    run(server.start(port))
    try:
        run(until(lambda: "Hello there." in last_answer_text(w.chat_view)))
        assert server.requests[-1]["messages"][-1]["content"] == "are you there?"
        assert "not sent" not in w.chat_view.toPlainText()
    finally:
        run(server.stop())


def test_a_question_asked_while_switching_to_a_down_server_waits_for_it(
    make_app: Any, server: Any, run: Any, quick_backoff: None
) -> None:
    app = make_app(server.url)
    port = _closed_port()
    run(app.servers._save_server("Later", f"http://127.0.0.1:{port}", "ollama", ""))
    run(until(lambda: app.servers.waiting is not None))
    asked = len(server.requests)
    app.page.send("which one answers?")
    assert app.page.kept_question == "which one answers?"
    assert len(server.requests) == asked  # not sent to the server chosen before

    later = ScriptedOllama()
    run(later.start(port))
    try:
        run(until(lambda: "Hello there." in last_answer_text(app.window.chat_view)))
        assert later.requests[-1]["messages"][-1]["content"] == "which one answers?"
        assert len(server.requests) == asked
    finally:
        run(later.stop())


def test_a_question_kept_for_the_local_model_says_so(make_app: Any) -> None:
    app = make_app(None, model=None)  # nothing found: the local engine starts (and hangs)
    assert app.servers.starting_local
    app.page.send("hello")
    assert app.page.kept_question == "hello"
    assert app.window.stage_label.text().startswith("Starting local model… your question")
    assert not app.welcome.panel.isVisible()
