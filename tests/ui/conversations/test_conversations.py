"""Conversations: new, rename, delete with Undo, search, regenerate, edit, export."""

from __future__ import annotations

import json
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication

from tests.ui.conftest import until


async def _ask(app: Any, question: str) -> None:
    app.window.composer.setPlainText(question)
    app.window.composer.submit()
    await until(lambda: not app.page.busy)


def _titles(app: Any) -> list[str]:
    lst = app.window.conversations.list
    return [lst.item(i).text() for i in range(lst.count())]


def test_new_rename_delete_undo_and_search(make_app, server, run, qtbot) -> None:
    app = make_app(server.url)
    run(_ask(app, "first question about cats"))
    first = app.page.conversation_id
    assert first is not None
    app.window.shortcuts["new"].activated.emit()
    assert app.page.conversation_id is None and app.window.chat_view.keys() == []
    run(_ask(app, "second question about dogs"))
    second = app.page.conversation_id
    assert second != first and len(_titles(app)) == 2

    app.conversations.rename(first, "Cats")
    assert "Cats" in _titles(app)

    app.window.conversations.search_box.setText("dogs")
    qtbot.waitUntil(lambda: len(_titles(app)) == 1, timeout=60_000)
    app.window.conversations.search_box.setText("Hello there")  # answer text matches too
    qtbot.waitUntil(lambda: len(_titles(app)) == 2, timeout=60_000)
    app.window.conversations.search_box.clear()

    app.conversations.delete(first)
    qtbot.waitUntil(lambda: "Cats" not in _titles(app), timeout=60_000)
    assert app.window.undo_bar.isVisible()
    qtbot.mouseClick(app.window.undo_bar.button("undo"), Qt.MouseButton.LeftButton)
    assert "Cats" in _titles(app)

    app.conversations.choose(first)
    assert "first question about cats" in app.window.chat_view.toPlainText()


def test_regenerate_keeps_both_versions_switchable(make_app, server, run) -> None:
    server.scripts.append([("token", "Answer one."), ("done",)])
    server.scripts.append([("token", "Answer two."), ("done",)])
    app = make_app(server.url)
    view = app.window.chat_view
    run(_ask(app, "question"))

    async def regenerate() -> None:
        app.window.shortcuts["regenerate"].activated.emit()
        await until(lambda: not app.page.busy and "Answer two." in view.toPlainText())

    run(regenerate())
    key = view.keys()[-1]
    assert view.message(key).version == (2, 2)
    assert "Answer one." not in view.toPlainText() and "2/2" in view.toPlainText()
    app.page.switch_version(key, -1)
    assert "Answer one." in view.toPlainText() and "1/2" in view.toPlainText()
    app.page.switch_version(view.keys()[-1], +1)
    assert "Answer two." in view.toPlainText()


def test_edit_earlier_question_branches(make_app, server, run) -> None:
    app = make_app(server.url)
    view = app.window.chat_view
    run(_ask(app, "one"))
    run(_ask(app, "two"))
    first_question = view.keys()[0]
    view.actionRequested.emit("edit", first_question)
    assert app.window.composer.toPlainText() == "one"
    run(_ask(app, "one, edited"))
    texts = [view.message(k).text for k in view.keys()]
    assert texts == ["one, edited", "Hello there."]
    assert len(app.stores.history.siblings(view.keys()[0])) == 2  # the old question stays


def test_copy_a_message(make_app, server, run) -> None:
    app = make_app(server.url)
    run(_ask(app, "copy me"))
    view = app.window.chat_view
    view._on_anchor(
        __import__("PySide6.QtCore", fromlist=["QUrl"]).QUrl(
            f"{view._action_scheme}:copy/{view.keys()[-1]}"
        )
    )
    assert QGuiApplication.clipboard().text() == "Hello there."


def test_export_markdown_and_json_with_metrics(make_app, server, run, tmp_path) -> None:
    app = make_app(server.url)
    run(_ask(app, "export me"))
    conversation = app.page.conversation_id
    app.conversations.export_to(conversation, "markdown", tmp_path / "c.md")
    app.conversations.export_to(conversation, "json", tmp_path / "c.json")
    markdown = (tmp_path / "c.md").read_text()
    assert "export me" in markdown and "Hello there." in markdown
    data = json.loads((tmp_path / "c.json").read_text())
    assert "ttft" in json.dumps(data)


def test_crash_left_streaming_message_opens_with_continue(make_app, server, run, data_dir) -> None:
    from client.services.storage.stores import open_stores

    stores = open_stores(data_dir / "tachy.sqlite3")
    conversation = stores.history.create_conversation("crashed")
    question = stores.history.add_message(conversation.id, "user", "q")
    stores.history.add_message(
        conversation.id, "assistant", "half an ans", parent_id=question.id, state="streaming"
    )
    stores.close()
    app = make_app(server.url)  # opening the history marks it interrupted
    app.conversations.choose(conversation.id)
    view = app.window.chat_view
    assert view.message(view.keys()[-1]).state == "interrupted"
    assert list(app.window.outcome_bar.buttons) == ["continue", "retry"]


def test_a_new_conversation_is_listed_while_its_first_answer_is_awaited(
    make_app, server, run, qtbot
) -> None:
    server.scripts.append([("hang",), ("token", "Late answer."), ("done",)])
    app = make_app(server.url)

    async def scenario() -> None:
        app.window.composer.setPlainText("a question about owls")
        app.window.composer.submit()
        # No token has arrived (the server hangs): the conversation is listed all the same.
        await until(lambda: any("owls" in title for title in _titles(app)))
        assert app.page.busy and app.page.conversation_id is not None
        assert "Late answer" not in app.window.chat_view.toPlainText()
        server.release.set()
        await until(lambda: not app.page.busy)

    run(scenario())
    assert "Late answer." in app.window.chat_view.toPlainText(), app.window.stage_label.text()
