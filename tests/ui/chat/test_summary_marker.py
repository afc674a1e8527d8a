"""History compression in the chat: "Earlier turns summarised" under the last
summarised message, opened to show the summary, the summarised turns still shown;
after a restart the reopened conversation has its marker and its next request sends the
summary; an edit before the summarised turns or the switch off takes it away."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt, QUrl

from tests.ui.conftest import until

LONG = "word " * 500
MARKER = "Earlier turns summarised ("
SENT = "Summary of the earlier conversation"


def _ask(app: Any, qtbot: Any, count: int, start: int = 0) -> Any:
    async def asked() -> None:
        for index in range(start, start + count):
            app.window.composer.setPlainText(f"question {index} {LONG}")
            qtbot.keyClick(app.window.composer, Qt.Key.Key_Return)
            await until(lambda: not app.page.busy)
            await until(lambda: not app.cascade.tasks._running)

    return asked()


def _click(view: Any, text: str) -> None:
    """Click the link that reads `text` (the view's anchorClicked, as a mouse click)."""
    found = view.document().find(text)
    assert not found.isNull()
    href = found.charFormat().anchorHref()
    assert href.endswith(f":summary/{view.summary_marked_after()}")
    view.anchorClicked.emit(QUrl(href))


def _summary_sent(request: dict[str, Any]) -> bool:
    return any(SENT in m["content"] for m in request["messages"] if m["role"] == "system")


def test_the_marker_sits_after_the_summarised_turns_and_opens_to_the_summary(
    make_app, server, run, qtbot
):
    app = make_app(server.url)
    view = app.window.chat_view
    run(_ask(app, qtbot, 4))
    after = view.summary_marked_after()
    assert after is not None and MARKER in view.toPlainText()
    keys = view.keys()
    stored = app.page.session.summaries[app.page.conversation_id]
    assert after == stored.covered_ids[-1] == keys[len(stored.covered_ids) - 1]
    text = view.toPlainText()
    assert len(keys) == 8 and len(stored.covered_ids) == 4  # the last 4 are sent as they are
    assert text.index("question 1") < text.index(MARKER) < text.index("question 2")
    assert "Show summary" in text and "Hide summary" not in text
    _click(view, "Show summary")
    opened = view.toPlainText()
    assert "Hide summary" in opened
    assert opened.index("Hello there.", opened.index(MARKER)) < opened.index("question 2")
    assert "question 0" in opened and "question 1" in opened  # the turns stay as they are
    _click(view, "Hide summary")
    assert "Show summary" in view.toPlainText()


def test_after_a_restart_the_summary_is_marked_and_sent_until_turned_off(
    make_app, server, run, qtbot
):
    first = make_app(server.url)
    run(_ask(first, qtbot, 4))
    conversation = first.page.conversation_id
    run(first.aclose())

    again = make_app(server.url)  # the next start, on the same data
    view = again.window.chat_view
    again.window.conversations.chosen.emit(conversation)
    run(until(lambda: MARKER in view.toPlainText()))
    before = len(server.requests)
    run(_ask(again, qtbot, 1, start=4))
    asked = [r for r in server.requests[before:] if "question 4" in str(r.get("messages"))]
    assert asked and _summary_sent(asked[0])
    assert MARKER in view.toPlainText()

    again.cascade_menu.compress_action.setChecked(False)
    assert MARKER not in view.toPlainText()
    before = len(server.requests)
    run(_ask(again, qtbot, 1, start=5))
    asked = [r for r in server.requests[before:] if "question 5" in str(r.get("messages"))]
    assert asked and not _summary_sent(asked[0])
    again.cascade_menu.compress_action.setChecked(True)
    assert MARKER in view.toPlainText()


def test_an_edit_before_the_summarised_turns_takes_the_marker_away(make_app, server, run, qtbot):
    app = make_app(server.url)
    view = app.window.chat_view
    run(_ask(app, qtbot, 4))
    assert view.summary_marked_after() is not None
    session, conversation = app.page.session, app.page.conversation_id
    first_question = session.history.active_path(conversation)[0].id

    async def edit() -> None:
        generation = session.edit_and_resend(first_question, "a new first question")
        async for _ in generation:
            pass
        app.page.show_conversation(conversation)

    run(edit())
    assert view.summary_marked_after() is None and MARKER not in view.toPlainText()
