"""What the chat says and offers around an answer: a Regenerate link on a finished
answer (not only Ctrl+R); a chip while an earlier question is being edited; cancelling
your own wait is "Stopped", not "Failed"; "Typing…" only once the server took the
question up; one wording for a stopped answer; each rate says which rate it is."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QUrl

from client.services.chat.session_events import Finished, Outcome
from client.services.chat.turn_state import TurnState
from client.ui.chat.chat_page import RESUMABLE, _outcome_sentence
from client.ui.chat.stage_line import waiting_text
from client.ui.common.turn_words import outcome_words
from tests.ui.conftest import until


def _click(app: Any, action: str, key: int) -> None:
    view = app.window.chat_view
    view._on_anchor(QUrl(f"{view._action_scheme}:{action}/{key}"))


async def _ask(app: Any, question: str) -> None:
    app.window.composer.setPlainText(question)
    app.window.composer.submit()
    await until(lambda: not app.page.busy and app.page.last_answer_key() is not None)


def test_a_finished_answer_offers_regenerate(make_app: Any, server: Any, run: Any) -> None:
    app = make_app(server.url)
    run(_ask(app, "Name a colour"))
    assert "Regenerate" in app.window.chat_view.toPlainText()
    asked = len(server.requests)
    key = app.page.last_answer_key()

    async def regenerate() -> None:
        _click(app, "regenerate", key)
        await until(lambda: len(server.requests) == asked + 1 and not app.page.busy)

    run(regenerate())
    answer = app.window.chat_view.message(app.page.last_answer_key())
    assert answer.version is not None and answer.version[1] == 2  # beside the old one


def test_editing_a_question_shows_a_chip_until_it_is_sent(
    make_app: Any, server: Any, run: Any
) -> None:
    app = make_app(server.url)
    run(_ask(app, "Name a colour"))
    chip = app.view.chips.chips["editing"]
    assert chip.isHidden()
    question = next(k for k in app.window.chat_view.keys() if k > 0)
    _click(app, "edit", question)
    assert not chip.isHidden() and app.window.composer.toPlainText() == "Name a colour"
    chip.click()  # asked as a new question instead
    assert chip.isHidden() and app.page._editing is None
    _click(app, "edit", question)
    run(_ask(app, "Name a fruit"))
    assert chip.isHidden()


def test_cancelling_your_own_wait_is_stopped_not_failed() -> None:
    assert outcome_words(Outcome.TIMED_OUT.value) == "Stopped · cancelled while waiting"


def test_typing_only_once_the_server_took_the_question_up() -> None:
    assert waiting_text(500, TurnState.WAITING) == ""
    assert waiting_text(500, TurnState.CONNECTING) == ""
    assert waiting_text(500, TurnState.READING) == "Typing…"


def test_one_wording_for_a_stopped_answer() -> None:
    stopped = Finished(outcome=Outcome.STOPPED, text="half", message_id=1)
    assert _outcome_sentence(stopped) == RESUMABLE["stopped"][0]
