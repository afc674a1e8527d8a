"""A cascade in the window: the route under each answer, Ask the strong model (its key),
Re-ask with the other model kept as a version, and the fallback said once."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QKeySequence

from client.services.planning.planner import Route
from client.ui.cascade.cascade_controller import ASK_STRONG_KEYS, REASK_KEYS
from tests.ui.conftest import until

PROOF = "Prove that √2 is irrational, step by step"


def _cascade(app: Any) -> None:
    session = app.page.session
    backend = session.backend  # one scripted server, two models
    app.tachy.use_cascade(Route(backend, "scripted:1b", "s"), Route(backend, "other:7b", "s"))


def _footer(app: Any) -> str:
    lines = app.window.chat_view.toPlainText().splitlines()
    return [line for line in lines if "Copy" in line and "Timing" in line][-1]


async def _answered_by_the_fast_model(app: Any, qtbot: Any, text: str) -> None:
    """Send text with Enter; wait for the answer and the fast model's route under it."""
    w = app.window
    w.composer.setPlainText(text)
    qtbot.keyClick(w.composer, Qt.Key.Key_Return)
    await until(lambda: not app.page.busy and "Hello there." in w.chat_view.toPlainText())
    await until(lambda: "fast · scripted:1b" in _footer(app))


def test_routes_labels_overrides_and_versions(make_app, server, run, qtbot):
    app = make_app(server.url)
    _cascade(app)
    w = app.window
    assert app.cascade.ask_strong_action.shortcut() == QKeySequence(ASK_STRONG_KEYS)
    assert app.cascade.reask_action.shortcut() == QKeySequence(REASK_KEYS)

    async def answered(count: int) -> None:
        await until(lambda: not app.page.busy and len(server.requests) >= count)
        await until(lambda: not app.page.busy and "Hello there." in w.chat_view.toPlainText())

    async def flow() -> None:
        w.composer.setPlainText("hi")
        qtbot.keyClick(w.composer, Qt.Key.Key_Return)
        await answered(1)
        await until(lambda: "fast · scripted:1b" in _footer(app))
        w.composer.setPlainText("hello again")
        app.cascade.ask_strong_action.trigger()
        await answered(2)
        await until(lambda: "strong · other:7b" in _footer(app))
        app.cascade.reask_action.trigger()  # the strong answer, asked of the fast model
        await answered(3)
        await until(lambda: "fast · scripted:1b" in _footer(app))

    run(flow())
    chat_models = [r["model"] for r in server.requests if r.get("messages")]
    assert chat_models == ["scripted:1b", "other:7b", "scripted:1b"]
    assert "2/2" in w.chat_view.toPlainText()  # the re-asked answer is a second version


def test_the_strong_model_failing_is_answered_by_the_fast_one_and_said(
    make_app, server, run, qtbot
):
    server.scripts.append([("status", 503, "queue full")])
    app = make_app(server.url)
    _cascade(app)
    w = app.window

    run(_answered_by_the_fast_model(app, qtbot, PROOF))
    chat_models = [r["model"] for r in server.requests if r.get("messages")]
    assert chat_models == ["other:7b", "scripted:1b"]
    said = w.stage_label.text()
    assert "strong model (other:7b) failed before answering" in said
    assert "fast model (scripted:1b) answered" in said and "queue full" in said
    assert not w.outcome_bar.isVisible()
    # the live waterfall names the model that answered, and shows both attempts
    key = app.page.last_answer_key()
    assert key is not None and app.hud.show_message(key)
    assert app.hud.book.find_message(key).model == "scripted:1b"
    ticks = _ticks(app)
    assert any(t.startswith("Reading your question · strong · other:7b ") for t in ticks), ticks
    second = "Reading your question · fast · scripted:1b · attempt 2 "
    assert any(t.startswith(second) for t in ticks)
    caption = app.hud.waterfall.caption.text()
    assert "Route: fast · scripted:1b · the strong model failed before answering" in caption


def test_no_first_token_in_time_is_answered_by_the_fast_one_not_keep_waiting(
    make_app, server, run, qtbot
):
    server.scripts.append([("hang",)])  # the strong model never sends a token
    app = make_app(server.url)
    _cascade(app)
    app.page.session.configure(fallback_after_s=0.3)
    w = app.window

    run(_answered_by_the_fast_model(app, qtbot, PROOF))
    chat_models = [r["model"] for r in server.requests if r.get("messages")]
    assert chat_models == ["other:7b", "scripted:1b"]
    said = w.stage_label.text()
    assert "strong model (other:7b) failed before answering" in said
    assert "No first token came within 0.3 s." in said
    assert not w.outcome_bar.isVisible()  # no Keep waiting / Cancel


def test_without_a_cascade_the_overrides_say_why_not(make_app, server, run, qtbot):
    app = make_app(server.url)
    app.window.composer.setPlainText("hi")
    app.cascade.ask_strong_action.trigger()
    assert "Choose a cascade first" in app.window.stage_label.text()
    assert not server.requests or all(not r.get("messages") for r in server.requests)


def test_the_cascade_menu_sets_both_halves_saves_them_and_they_come_back(
    make_app, server, run, qtbot
):
    app = make_app(server.url)
    menu = app.cascade_menu
    assert not menu.use_action.isEnabled()  # nothing set up yet
    menu.fast_action.trigger()  # the model chosen now: scripted:1b
    assert "scripted:1b" in app.window.stage_label.text()
    app.page.session.use_model("other:7b")
    menu.strong_action.trigger()
    assert menu.use_action.isEnabled() and not app.cascade.active()
    menu.use_action.setChecked(True)

    async def on() -> None:
        await until(app.cascade.active)

    run(on())
    routes = app.page.session.routes
    assert [(r.tier, r.model) for r in routes] == [("fast", "scripted:1b"), ("strong", "other:7b")]

    again = make_app(server.url)  # the next start: saved, and on again
    run(until(again.cascade.active))
    assert again.cascade_menu.use_action.isChecked()
    assert [r.model for r in again.page.session.routes] == ["scripted:1b", "other:7b"]
    again.cascade_menu.use_action.setChecked(False)
    run(until(lambda: not again.cascade.active()))
    assert len(again.page.session.routes) == 1


def test_after_tokens_the_text_stays_and_continue_with_the_other_model(
    make_app, server, run, qtbot
):
    server.scripts.append([("token", "Half an"), ("reset",)])
    server.scripts.append([("token", " answer."), ("done",)])
    app = make_app(server.url)
    _cascade(app)
    w = app.window

    async def flow() -> None:
        w.composer.setPlainText(PROOF)
        qtbot.keyClick(w.composer, Qt.Key.Key_Return)
        await until(lambda: not app.page.busy and w.outcome_bar.isVisible())
        assert "continue_other" in w.outcome_bar.buttons
        assert "Half an" in w.chat_view.toPlainText()
        w.outcome_bar.button("continue_other").click()
        await until(lambda: not app.page.busy and "Half an answer." in w.chat_view.toPlainText())

    run(flow())
    chat_models = [r["model"] for r in server.requests if r.get("messages")]
    assert chat_models == ["other:7b", "scripted:1b"]  # the fast model went on


def test_a_long_conversation_is_summarised_in_the_background_unless_turned_off(
    make_app, server, run, qtbot
):
    app = make_app(server.url)
    w = app.window
    long_text = "word " * 500

    async def ask(count: int) -> None:
        for index in range(count):
            w.composer.setPlainText(f"question {index} {long_text}")
            qtbot.keyClick(w.composer, Qt.Key.Key_Return)
            await until(lambda: not app.page.busy)
            await until(lambda: not app.cascade.tasks._running)

    run(ask(4))
    assert "Earlier turns summarised" in w.stage_label.text()
    summary_requests = [r for r in server.requests if "Summarise" in str(r.get("messages"))]
    assert summary_requests
    conversation = app.page.conversation_id
    assert app.page.session.summaries[conversation].summary.text == "Hello there."
    app.cascade_menu.compress_action.setChecked(False)
    assert app.page.session.settings.compress_history is False
    before = len(server.requests)
    run(ask(1))
    asked = [r for r in server.requests[before:] if "Summarise" in str(r.get("messages"))]
    assert asked == []  # turned off: no summary request
    sent = server.requests[-1]["messages"]
    assert not any("Hello there." in m["content"] and m["role"] == "system" for m in sent)


def _ticks(app: Any) -> list[str]:
    return app.hud.waterfall.row_texts()


def test_the_fast_model_choosing_past_its_budget_the_rules_decide_and_the_waterfall_says_so(
    make_app, server, run, qtbot
):
    server.scripts.append([("hang",)])  # the classification never answers
    app = make_app(server.url)
    _cascade(app)
    menu = app.cascade_menu
    assert not menu.classify_action.isChecked()  # off unless asked for
    menu.classify_action.setChecked(True)
    assert app.page.session.settings.classify and menu.saved.load().classify

    run(_answered_by_the_fast_model(app, qtbot, "hi"))
    asked = [r for r in server.requests if r.get("messages")]
    assert "Reply with one word" in asked[0]["messages"][0]["content"]  # the classification
    assert [r["model"] for r in asked] == ["scripted:1b", "scripted:1b"]
    key = app.page.last_answer_key()
    assert key is not None and app.hud.show_message(key)
    ticks = _ticks(app)
    # Ollama sends its headers with the first token: no signal says it read the question.
    assert any(t.startswith("Waiting for the server · fast · scripted:1b ") for t in ticks), ticks
    assert any(t.startswith("route decision · classifier out of budget 1") for t in ticks), ticks
    caption = app.hud.waterfall.caption.text()
    assert "Route: fast · scripted:1b · classifier out of budget, rules decided: " in caption
    assert "a short everyday question · decided in 1" in caption

    again = make_app(server.url)  # the next start: the setting and the stored waterfall
    assert again.cascade_menu.classify_action.isChecked()
    run(until(lambda: again.page.session is not None and again.page.session.settings.classify))
    assert again.hud.show_message(key)
    assert any(t.startswith("Waiting for the server · fast · scripted:1b ") for t in _ticks(again))
    assert "classifier out of budget, rules decided" in again.hud.waterfall.caption.text()


def test_a_reopened_conversation_labels_each_answer_with_the_model_that_wrote_it(
    make_app, server, run, qtbot
):
    server.scripts.append([("status", 503, "queue full")])  # the strong model fails first
    app = make_app(server.url)
    _cascade(app)
    w = app.window

    async def ask(text: str, answers: int) -> None:
        w.composer.setPlainText(text)
        qtbot.keyClick(w.composer, Qt.Key.Key_Return)
        await until(lambda: not app.page.busy and len(_footers(app)) == answers)

    run(ask(PROOF, 1))  # fell back to the fast model
    run(ask("Compare TCP and UDP", 2))
    live = _footers(app)
    assert "fast · scripted:1b" in live[0] and "strong · other:7b" in live[1]
    strong_key = app.page.last_answer_key()
    assert app.hud.book.find_message(strong_key).model == "other:7b"  # not the session's
    conversation = app.page.conversation_id

    again = make_app(server.url)  # a restart, then the conversation opened again
    again.page.show_conversation(conversation)
    reopened = _footers(again)
    assert len(reopened) == 2
    assert reopened[0].endswith("fast · scripted:1b") and "other:7b" not in reopened[0]
    assert reopened[1].endswith("strong · other:7b")
    assert "s to first token" in reopened[1]  # the figures too, as live


def _footers(app: Any) -> list[str]:
    lines = app.window.chat_view.toPlainText().splitlines()
    return [line for line in lines if "Copy" in line and "Timing" in line]


def test_the_window_has_a_phrase_for_every_rule_of_the_router() -> None:
    from client.services.planning.router import RULE_REASONS
    from client.ui.common import route_words

    assert route_words.RULE_REASONS == RULE_REASONS
