"""Edit question in the window: the edited question is a version beside the old one,
shown ‹1/2› on the question, each version with its own answers, and the
conversation's title following the first question as it now stands."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QUrl

from tests.ui.conftest import until


async def _ask(app: Any, question: str) -> None:
    app.window.composer.setPlainText(question)
    app.window.composer.submit()
    await until(lambda: not app.page.busy)


def _click(app: Any, action: str, key: int) -> None:
    """A link of the grey line under a message, as a click on it reaches the page."""
    view = app.window.chat_view
    view._on_anchor(QUrl(f"{view._action_scheme}:{action}/{key}"))


def _shown(app: Any) -> list[tuple[str, str, tuple[int, int] | None]]:
    """Each message shown: its role, text and ‹n/m› (None: the only version)."""
    view = app.window.chat_view
    messages = [view.message(key) for key in view.keys()]
    return [
        (m.role, m.text, m.version if m.version and m.version[1] > 1 else None) for m in messages
    ]


def _title(app: Any) -> str:
    listed = app.window.conversations.list
    return listed.item(0).text()


def _question_line(app: Any) -> str:
    return next(line for line in app.window.chat_view.toPlainText().splitlines() if "Edit" in line)


def test_an_edited_question_is_a_version_with_its_own_answers(make_app, server, run) -> None:
    server.scripts.append([("token", "Cats purr when content."), ("done",)])
    server.scripts.append([("token", "Cats also purr when hurt."), ("done",)])
    server.scripts.append([("token", "Dogs bark to warn."), ("done",)])
    app = make_app(server.url)
    view = app.window.chat_view
    run(_ask(app, "Why do cats purr?"))

    async def regenerate() -> None:
        app.window.shortcuts["regenerate"].activated.emit()
        await until(lambda: not app.page.busy and "when hurt" in view.toPlainText())

    run(regenerate())
    question = view.keys()[0]
    _click(app, "edit", question)
    assert app.window.composer.toPlainText() == "Why do cats purr?"
    run(_ask(app, "Why do dogs bark?"))
    assert _shown(app) == [
        ("user", "Why do dogs bark?", (2, 2)),
        ("assistant", "Dogs bark to warn.", None),
    ]
    assert "‹   2/2   ›" in _question_line(app)  # the switcher on the question
    assert _title(app) == "Why do dogs bark?"

    _click(app, "prev", view.keys()[0])  # the first version: its question and answers
    assert _shown(app) == [
        ("user", "Why do cats purr?", (1, 2)),
        ("assistant", "Cats also purr when hurt.", (2, 2)),
    ]
    assert _title(app) == "Why do cats purr?"
    _click(app, "prev", view.keys()[-1])  # its answers still switch among themselves
    assert _shown(app)[-1] == ("assistant", "Cats purr when content.", (1, 2))
    assert _title(app) == "Why do cats purr?"

    _click(app, "next", view.keys()[0])
    assert _shown(app) == [
        ("user", "Why do dogs bark?", (2, 2)),
        ("assistant", "Dogs bark to warn.", None),
    ]
    assert _title(app) == "Why do dogs bark?"
    app.page.show_conversation(app.page.conversation_id)  # reopened: the same
    assert _shown(app)[0] == ("user", "Why do dogs bark?", (2, 2))
