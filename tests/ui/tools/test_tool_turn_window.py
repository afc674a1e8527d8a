"""A turn with tools in the real window: the lab's tool-calling model (Ollama's whole
calls) and the demo MCP server over stdio. The approval card asks; Allow runs the tool
and the model reads its result; Deny tells the model; Esc at the card stops the turn
and keeps its words. Each call is a card in the answer, and the same after reopening."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest

from client.core.tools import ToolCall
from client.lab import LabServer, scenario_from_dict
from client.services.tools.approval import ApprovalChoice
from client.services.tools.loop import ApprovalAsk
from client.services.tools.server_settings import demo_tool_server
from client.ui.tools.tool_turn_view import ApprovalCard
from tests.ui.conftest import LoopRunner, until

ADD = "Use add for 2 and 3."
ANSWER = "The tools answered: add gave 5.0."


@pytest.fixture
def tool_lab(run: LoopRunner) -> Iterator[str]:
    lab = LabServer(scenario_from_dict({"ttft": 5, "tpot_ms": 1, "seed": 3}))
    url = run(lab.start())
    yield url
    run(lab.stop())


def _last_answer(view: Any) -> Any:
    return [view.message(k) for k in view.keys() if view.message(k).role == "assistant"][-1]


def _app(make_app: Any, run: LoopRunner, url: str) -> Any:
    app = make_app(url, model="tachy-lab")
    run(app.tachy.tools.save(demo_tool_server()))
    return app


def test_allow_runs_the_tool_and_the_model_reads_it(
    make_app: Any, run: LoopRunner, tool_lab: str, memory_keyring: Any
) -> None:
    app = _app(make_app, run, tool_lab)
    card = app.window.findChild(ApprovalCard, "approvalCard")
    label = app.window.stage_label

    async def ask() -> None:
        app.page.send(ADD)
        await until(lambda: card.isVisible(), 30)
        assert "add" in card.question.text() and '"a": 2' in card.arguments.text()
        assert card.allow.isEnabled()
        await until(lambda: label.text() == "Waiting for your approval")
        QTest.mouseClick(card.allow, Qt.MouseButton.LeftButton)
        await until(lambda: not app.page.busy, 30)

    run(ask())
    assert not card.isVisible()
    view = app.window.chat_view
    answer = _last_answer(view)
    assert answer.text == ANSWER  # the model's words; the call is a card beside them
    [call] = answer.tool_calls
    assert (call.name, call.result, call.status, call.at) == ("add", "5.0", "done", 0)
    copied = view.copied_text(answer.key)
    assert copied.startswith("[Tool add · Tachy demo tools · ") and "Result: 5.0" in copied
    assert copied.endswith(ANSWER)
    generation = app.page.runner.generation
    assert generation.finished.outcome.value == "complete"
    app.page.show_conversation(app.page.conversation_id)  # reopened: the same card
    reopened = _last_answer(view)
    assert reopened.tool_calls == [call] and reopened.text == ANSWER


def test_deny_tells_the_model(
    make_app: Any, run: LoopRunner, tool_lab: str, memory_keyring: Any
) -> None:
    app = _app(make_app, run, tool_lab)
    card = app.window.findChild(ApprovalCard, "approvalCard")

    async def ask() -> None:
        app.page.send(ADD)
        await until(lambda: card.isVisible(), 30)
        QTest.mouseClick(card.deny, Qt.MouseButton.LeftButton)
        await until(lambda: not app.page.busy, 30)

    run(ask())
    [call] = _last_answer(app.window.chat_view).tool_calls
    assert (call.problem, call.result) == ("denied", "denied by the user")


def test_esc_at_the_card_stops_and_keeps_the_words(
    make_app: Any, run: LoopRunner, tool_lab: str, memory_keyring: Any
) -> None:
    app = _app(make_app, run, tool_lab)
    card = app.window.findChild(ApprovalCard, "approvalCard")

    async def ask() -> None:
        app.page.send(ADD)
        await until(lambda: card.isVisible(), 30)
        QTest.keyClick(app.window.composer, Qt.Key.Key_Escape)
        await until(lambda: not app.page.busy, 10)

    run(ask())
    assert not card.isVisible()
    generation = app.page.runner.generation
    assert generation.finished.outcome.value == "stopped"
    stored = app.stores.history.get_message(generation.assistant_message_id)
    assert stored is not None and stored.content == generation.finished.text
    [call] = app.page.stored.tool_calls([stored.id])[stored.id]
    assert (call.problem, call.result) == ("stopped", "stopped by the user before it ran")
    assert _last_answer(app.window.chat_view).tool_calls == [call]


def test_the_tools_chip_turns_tools_off_for_the_conversation(
    make_app: Any, run: LoopRunner, tool_lab: str, memory_keyring: Any
) -> None:
    app = _app(make_app, run, tool_lab)
    card = app.window.findChild(ApprovalCard, "approvalCard")
    chip = app.view.chips.chips["tools"]

    async def ask_twice() -> None:
        app.page.send(ADD)
        await until(lambda: card.isVisible(), 30)
        QTest.mouseClick(card.allow, Qt.MouseButton.LeftButton)
        await until(lambda: not app.page.busy, 30)
        await until(lambda: chip.isVisible())
        chip.click()  # stop offering tools here
        saved = app.tachy.tools.saved
        assert saved.enabled_for(app.page.conversation_id) == []
        app.page.send(ADD)
        await until(lambda: not app.page.busy, 30)

    run(ask_twice())
    generation = app.page.runner.generation
    assert generation.tool_loop is None and not card.isVisible()
    assert not chip.isVisible()


def test_a_running_tool_is_said_with_its_time_and_esc_stops_it(
    make_app: Any, run: LoopRunner, tool_lab: str, memory_keyring: Any
) -> None:
    app = _app(make_app, run, tool_lab)
    card = app.window.findChild(ApprovalCard, "approvalCard")
    label = app.window.stage_label

    async def ask() -> None:
        app.page.send("Use slow_count for 30 and 10.")
        await until(lambda: card.isVisible(), 30)
        QTest.mouseClick(card.allow, Qt.MouseButton.LeftButton)
        await until(lambda: label.text().startswith("Using slow_count… "))
        await until(lambda: label.text() != "Using slow_count… 0.0 s")  # it counts
        QTest.keyClick(app.window.composer, Qt.Key.Key_Escape)
        await until(lambda: not app.page.busy, 10)

    run(ask())
    generation = app.page.runner.generation
    assert generation.finished.outcome.value == "stopped"
    assert not label.text().startswith("Using")
    assert generation.tool_ns > 0
    [call] = generation.tool_calls
    assert call.name == "slow_count" and call.result == "stopped by the user while it ran"


def test_allow_waits_for_the_arguments(qtbot: Any, run: LoopRunner) -> None:
    card = ApprovalCard()
    qtbot.addWidget(card)
    card.follow("add")  # the model is still writing the call
    assert not card.isHidden()
    assert not card.allow.isEnabled() and not card.always.isEnabled()

    async def asked() -> None:
        call = ToolCall("c1", "add", {"a": 2, "b": 3}, '{"a": 2, "b": 3}')
        choice = asyncio.ensure_future(card.ask(ApprovalAsk(call, "demo", "Add.", 1)))
        await until(lambda: card.allow.isEnabled())
        card.follow("add")  # a tick while asking changes nothing
        assert card.allow.isEnabled()
        QTest.mouseClick(card.allow, Qt.MouseButton.LeftButton)
        assert await choice is ApprovalChoice.ALLOW_ONCE

    run(asked())
    assert card.isHidden()


def test_tools_turned_off_in_a_new_conversation_stay_off_for_it(
    make_app: Any, run: LoopRunner, tool_lab: str, memory_keyring: Any
) -> None:
    app = _app(make_app, run, tool_lab)
    card = app.window.findChild(ApprovalCard, "approvalCard")
    chip = app.view.chips.chips["tools"]

    async def ask() -> None:
        app.page.show_conversation(None)  # New, after the server was added
        await until(lambda: chip.isVisible())  # on by default
        chip.click()  # off before the conversation is stored
        app.page.send(ADD)
        await until(lambda: not app.page.busy, 30)

    run(ask())
    assert app.page.runner.generation.tool_loop is None and not card.isVisible()
    assert app.tachy.tools.saved.enabled_for(app.page.conversation_id) == []
    assert not chip.isVisible()


def test_the_footer_says_the_turns_time_and_its_share_in_tools(
    make_app: Any, run: LoopRunner, tool_lab: str, memory_keyring: Any
) -> None:
    app = _app(make_app, run, tool_lab)
    card = app.window.findChild(ApprovalCard, "approvalCard")

    async def ask() -> None:
        app.page.send(ADD)
        await until(lambda: card.isVisible(), 30)
        QTest.mouseClick(card.allow, Qt.MouseButton.LeftButton)
        await until(lambda: not app.page.busy, 30)

    run(ask())
    key = app.page.last_answer_key()
    footer = app.window.chat_view.message(key).footer
    assert " s in all, " in footer and " s in tools (" in footer
    share = next(part for part in footer.split(" · ") if " s in tools (" in part)
    app.page.show_conversation(app.page.conversation_id)  # reopened (as after a restart)
    reopened = app.window.chat_view.message(key).footer
    assert share in reopened.split(" · ")  # read from the stored call records
