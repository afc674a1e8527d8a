"""The context-budget marker is drawn again when a stored conversation is reopened."""

from __future__ import annotations

from typing import Any

from client.ui.warming.warming_controller import CUT_MARKER
from tests.ui.conftest import until

QUESTION = "Tell me about the weather on the coast in late autumn, please. " * 3


def _ask(app: Any, text: str, answers: int) -> Any:
    view = app.window.chat_view
    app.window.composer.setPlainText(text)
    app.window.composer.submit()

    def done() -> bool:
        shown = [view.message(k) for k in view.keys() if view.message(k).role == "assistant"]
        return len(shown) >= answers and shown[-1].state == "complete" and not app.page.busy

    return until(done)


def test_reopened_conversation_shows_its_cut_marker(make_app, server, run):
    app = make_app(server.url, warm_models=True)  # the warming link draws the marker
    link = app.warming
    assert link is not None
    view = app.window.chat_view

    async def body() -> None:
        link.set_budget_setting(60)
        await _ask(app, QUESTION, 1)
        await _ask(app, "And in spring? " + QUESTION, 2)
        cut = view.cut_marked_before()
        assert cut is not None and CUT_MARKER in view.toPlainText()
        conversation = app.page.conversation_id
        panel = app.window.conversations
        panel.newRequested.emit()
        await until(lambda: not view.keys())
        assert CUT_MARKER not in view.toPlainText()
        panel.chosen.emit(conversation)
        await until(lambda: CUT_MARKER in view.toPlainText())
        assert view.cut_marked_before() == cut
        assert view.message(cut).text.startswith("And in spring?")

    run(body())
