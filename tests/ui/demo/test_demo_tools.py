"""Demo ▸ Tool turns, end to end in the real window: each entry starts the in-process lab
(its tool-calling model) and the bundled demo MCP server (a stdio subprocess), asks its
question, and the window says each wait: the status line, the approval card, the error
result, the words kept on Stop, the final answer. Nothing is left running afterwards."""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

import psutil
import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QMenu

from client.services.tools.server_settings import DEMO_SERVER_NAME
from client.ui.demo.demo_tools import TOOL_DEMOS
from client.ui.tools.tool_turn_view import ApprovalCard
from tests.ui.conftest import LoopRunner, last_answer_text, until

Seen = list[str]


def _demo_servers() -> list[psutil.Process]:
    """The demo MCP servers this test process started (its children, any depth)."""
    found = []
    for child in psutil.Process(os.getpid()).children(recursive=True):
        try:
            if "client.lab.mcp_demo" in " ".join(child.cmdline()):
                found.append(child)
        except psutil.NoSuchProcess:
            continue
    return found


def _no_demo_server_left() -> bool:
    return not [p for p in _demo_servers() if p.status() != psutil.STATUS_ZOMBIE]


def _entry(app: Any, name: str) -> Any:
    menu = app.window.menuBar().findChild(QMenu, "demoToolTurns")
    assert menu is not None
    found = [a for a in menu.actions() if a.objectName() == f"toolDemo-{name}"]
    assert len(found) == 1, name
    return found[0]


def _watching(app: Any, seen: Seen, card_seen: Seen) -> Callable[[], None]:
    """Notes each status line and approval question the window shows, as a tester sees
    them (called from every wait's condition)."""
    label = app.window.stage_label
    card = app.window.findChild(ApprovalCard, "approvalCard")

    def note() -> None:
        text = label.text()
        if text and (not seen or seen[-1] != text):
            seen.append(text)
        if card.isVisible() and (not card_seen or card_seen[-1] != card.question.text()):
            card_seen.append(card.question.text())

    return note


def _chat(app: Any) -> str:
    """The chat as shown: the answers' words and their tool cards' headers."""
    return str(app.window.chat_view.document().toPlainText())


async def _play(app: Any, name: str, note: Callable[[], None]) -> None:
    """Click the entry; wait for its turn to start, then to end."""
    _entry(app, name).trigger()
    demo = app.demo.tool_turns
    await until(lambda: (note(), demo.task is not None and demo.task.done())[1], 60)
    await until(lambda: (note(), not app.page.busy)[1], 60)


@pytest.fixture
def app(make_app: Any, server: Any, memory_keyring: Any) -> Any:
    return make_app(server.url)


def test_the_menu_lists_each_wait_of_a_tool_turn(app: Any) -> None:
    menu = app.window.menuBar().findChild(QMenu, "demoToolTurns")
    assert menu.title() == "Tool turns"
    assert [a.text() for a in menu.actions()] == [
        "Fast tool (answers at once)",
        "Slow tool (3 s)",
        "Failing tool (its error goes to the model)",
        "Tool that hangs (press Stop)",
        "Parallel calls (a fast and a slow tool)",
        "Approval wait (not counted as latency)",
    ]
    assert [d.name for d in TOOL_DEMOS] == [
        "fast", "slow", "failing", "hang", "parallel", "approval",
    ]  # fmt: skip
    assert menu.isEnabled()


def test_fast_tool_runs_without_asking_and_the_model_answers(app: Any, run: LoopRunner) -> None:
    seen: Seen = []
    asked: Seen = []
    run(_play(app, "fast", _watching(app, seen, asked)))
    assert app.demo.lab is not None and app.servers.current.name == "Latency lab (demo)"
    assert app.demo.scenario == "fast"
    assert app.tachy.tools.saved.servers() == []  # nothing set up for the user
    generation = app.page.runner.generation
    assert generation.finished.outcome.value == "complete"
    text = last_answer_text(app.window.chat_view)
    [call] = generation.tool_calls  # its card, as stored
    assert (call.name, call.arguments, call.result) == ("add", '{"a": 2, "b": 3}', "5.0")
    assert f"⚙ add · {DEMO_SERVER_NAME} · " in _chat(app) and not call.is_error
    assert text.endswith("The tools answered: add gave 5.0.")
    assert asked == [] and "Waiting for your approval" not in seen
    assert app.window.stage_label.text() == ""


def test_slow_tool_says_using_it_for_a_while(app: Any, run: LoopRunner) -> None:
    seen: Seen = []
    note = _watching(app, seen, [])
    label = app.window.stage_label

    async def play() -> None:
        _entry(app, "slow").trigger()
        await until(lambda: (note(), label.text().startswith("Using slow_count… "))[1], 60)
        first = label.text()
        await until(lambda: (note(), label.text() not in ("", first))[1])  # it counts on
        await until(lambda: (note(), not app.page.busy)[1], 60)

    run(play())
    using = [s for s in seen if s.startswith("Using slow_count… ")]
    assert len(using) >= 2 and all(s.endswith(" s") for s in using)
    text = last_answer_text(app.window.chat_view)
    [call] = app.page.runner.generation.tool_calls
    assert (call.name, call.result) == ("slow_count", "counted to 10 in 3 s")
    assert f"⚙ slow_count · {DEMO_SERVER_NAME} · " in _chat(app)
    assert text.endswith("The tools answered: slow_count gave counted to 10 in 3 s.")
    assert app.window.stage_label.text() == ""


def test_failing_tool_returns_its_error_to_the_model(app: Any, run: LoopRunner) -> None:
    run(_play(app, "failing", _watching(app, [], [])))
    generation = app.page.runner.generation
    finished = [t for t in generation.tool_loop.figures.tool_calls if t.name == "fail"]
    assert len(finished) == 1 and finished[0].is_error  # the result is marked as an error
    text = last_answer_text(app.window.chat_view)
    error = "Error executing tool fail: Use fail to show how a tool's error reaches the model."
    [call] = generation.tool_calls  # the error result, as the model got it
    assert (call.name, call.result, call.is_error) == ("fail", error, True)
    assert f"⚙ fail · {DEMO_SERVER_NAME} · " in _chat(app) and "Error" in _chat(app)
    assert generation.finished.outcome.value == "complete"  # the model answered it
    assert text.endswith(f"The tools answered: fail gave {error}.")


def test_stop_ends_a_hanging_tool_and_keeps_every_word(app: Any, run: LoopRunner) -> None:
    label = app.window.stage_label
    kept: list[str] = []

    async def play() -> None:
        _entry(app, "hang").trigger()
        await until(lambda: label.text().startswith("Using hang… "), 60)
        kept.append(last_answer_text(app.window.chat_view))
        QTest.mouseClick(app.window.stop_button, Qt.MouseButton.LeftButton)
        await until(lambda: not app.page.busy, 10)

    run(play())
    generation = app.page.runner.generation
    assert generation.finished.outcome.value == "stopped"
    text = last_answer_text(app.window.chat_view)
    assert text.startswith(kept[0])
    [call] = generation.tool_calls
    assert (call.name, call.result, call.problem) == (
        "hang", "stopped by the user while it ran", "stopped",
    )  # fmt: skip
    assert f"⚙ hang · {DEMO_SERVER_NAME} · " in _chat(app) and "Stopped" in _chat(app)
    stored = app.stores.history.get_message(generation.assistant_message_id)
    assert stored is not None and stored.content == text
    assert not label.text().startswith("Using")

    async def fast_after() -> None:  # the hung server is not the next entry's problem
        _entry(app, "fast").trigger()
        await until(lambda: app.demo.tool_turns.task.done(), 60)
        await until(lambda: not app.page.busy, 60)

    run(fast_after())
    assert last_answer_text(app.window.chat_view).endswith("The tools answered: add gave 5.0.")


def test_parallel_calls_run_side_by_side(app: Any, run: LoopRunner) -> None:
    seen: Seen = []
    run(_play(app, "parallel", _watching(app, seen, [])))
    generation = app.page.runner.generation
    calls = generation.tool_loop.figures.tool_calls
    assert [c.name for c in calls] == ["add", "slow_count"]
    add, count = calls
    assert count.run_started_ns < add.run_ended_ns  # both ran at once
    # Said while it runs, also once add has finished, and its run counted in tools (not
    # only up to add's end: the stage's stamps are the window's, a little after the loop's).
    assert len([s for s in seen if s.startswith("Using slow_count… ")]) >= 2
    assert generation.tool_ns > (count.run_ended_ns - count.run_started_ns) / 2
    text = last_answer_text(app.window.chat_view)
    assert [c.name for c in generation.tool_calls] == ["add", "slow_count"]
    assert "⚙ add · " in _chat(app) and "⚙ slow_count · " in _chat(app)
    assert text.endswith("The tools answered: add gave 5.0; slow_count gave counted to 4 in 2 s.")


def test_approval_wait_is_asked_and_not_counted_in_ttft(app: Any, run: LoopRunner) -> None:
    seen: Seen = []
    asked: Seen = []
    note = _watching(app, seen, asked)
    card = app.window.findChild(ApprovalCard, "approvalCard")
    label = app.window.stage_label

    async def play() -> None:
        _entry(app, "approval").trigger()
        await until(lambda: (note(), card.isVisible() and card.allow.isEnabled())[1], 60)
        assert card.question.text() == f"Run the tool add of {DEMO_SERVER_NAME}?"
        assert card.arguments.text() == '{"a": 4, "b": 5}'
        await until(lambda: (note(), label.text() == "Waiting for your approval")[1])
        QTest.mouseClick(card.allow, Qt.MouseButton.LeftButton)
        await until(lambda: (note(), not app.page.busy)[1], 60)
        await until(lambda: app.hud.book.records)

    run(play())
    assert asked and not card.isVisible()
    generation = app.page.runner.generation
    assert generation.finished.outcome.value == "complete"
    assert last_answer_text(app.window.chat_view).endswith("The tools answered: add gave 9.0.")
    approval_start, approval_end = generation.tool_spans[0]
    written = generation.timeline.request_written_ns
    ttft_ms = app.hud.book.records[-1].ttft_ms
    assert ttft_ms is not None
    # The TTFT ended before the user was asked: the wait for the click is not in it.
    assert written + ttft_ms * 1e6 <= approval_start < approval_end
    assert generation.tool_ns >= approval_end - approval_start


def test_stopping_the_lab_ends_the_demo_server(app: Any, run: LoopRunner) -> None:
    run(_play(app, "fast", lambda: None))
    assert _demo_servers()  # it ran as this process's child

    async def stop() -> None:
        app.demo.stop_action.trigger()
        await until(lambda: app.demo.lab is None and app.demo.task.done())
        await until(_no_demo_server_left, 30)

    run(stop())
    assert app.tachy.turn_tools.lent == []
    assert app.tachy.tools.approval.needs_asking(DEMO_SERVER_NAME, "add")  # asks again


def test_quitting_during_a_tool_turn_leaves_no_process(app: Any, run: LoopRunner) -> None:
    label = app.window.stage_label

    async def start() -> None:
        _entry(app, "hang").trigger()
        await until(lambda: label.text().startswith("Using hang… "), 60)

    run(start())
    assert _demo_servers()
    run(app.aclose())
    run(until(_no_demo_server_left, 30))


def test_in_chinese_the_question_still_names_the_tools(
    chinese: None, make_app: Any, server: Any, run: LoopRunner, memory_keyring: Any
) -> None:
    app = make_app(server.url)
    assert _entry(app, "parallel").text() == "并行调用（一个快速、一个慢速工具）"
    run(_play(app, "parallel", lambda: None))
    view = app.window.chat_view
    question = [view.message(k).text for k in view.keys() if view.message(k).role == "user"]
    assert question == ["用 add 计算 2 和 3，同时用 slow_count 在 2 秒内分 4 步计数。"]
    assert last_answer_text(view).endswith(
        "The tools answered: add gave 5.0; slow_count gave counted to 4 in 2 s."
    )
