"""A tool's time in the real window, with the demo MCP server over stdio (the official
SDK): the status line says the server's progress notifications ("Using slow_count… 3 of
20 · 0.4 s"), and the answer's footer the turn's time and its share in tools, the wait
for the user's approval apart."""

from __future__ import annotations

import re
from collections.abc import Iterator
from types import SimpleNamespace
from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest

from client.core.timeline import now_ns
from client.lab import LabServer, scenario_from_dict
from client.services.chat.tool_step import RunningTool
from client.services.chat.turn_state import TurnState
from client.services.tools.tool_types import ToolProgress
from client.ui.tools.tool_turn_view import ApprovalCard, progress_text, tool_state_text
from tests.ui.conftest import LoopRunner, until
from tests.ui.tools.test_tool_turn_window import _app


@pytest.fixture
def tool_lab(run: LoopRunner) -> Iterator[str]:
    lab = LabServer(scenario_from_dict({"ttft": 5, "tpot_ms": 1, "seed": 3}))
    url = run(lab.start())
    yield url
    run(lab.stop())


PROGRESS = re.compile(r"^Using slow_count… (\d+) of 20 · \d+\.\d s$")


def test_the_status_line_says_the_servers_progress_and_the_footer_the_share(
    make_app: Any,
    run: LoopRunner,
    tool_lab: str,
    memory_keyring: Any,
) -> None:
    app = _app(make_app, run, tool_lab)
    card = app.window.findChild(ApprovalCard, "approvalCard")
    label = app.window.stage_label
    said: list[str] = []

    async def ask() -> None:
        app.page.send("Use slow_count for 2 and 20.")
        await until(lambda: card.isVisible(), 30)
        QTest.mouseClick(card.allow, Qt.MouseButton.LeftButton)
        await until(lambda: bool(PROGRESS.match(label.text())), 30)
        said.append(label.text())
        steps = int(PROGRESS.match(label.text()).group(1))  # type: ignore[union-attr]
        await until(lambda: _step(label.text()) > steps, 30)  # it counts on
        said.append(label.text())
        await until(lambda: not app.page.busy, 30)

    run(ask())
    assert all(PROGRESS.match(text) for text in said)
    key = app.page.last_answer_key()
    footer = app.window.chat_view.message(key).footer
    assert re.search(r"[\d.]+ s in all, [\d.]+ s in tools \(\d+%\)", footer), footer


def _step(text: str) -> int:
    found = PROGRESS.match(text)
    return int(found.group(1)) if found else 0


def test_progress_reads_as_counted_a_share_or_the_servers_words(qtbot: Any) -> None:
    def said(*progress: ToolProgress | None) -> str:
        return progress_text(tuple(RunningTool(str(i), "t", p) for i, p in enumerate(progress)))

    assert said(ToolProgress(3, 10, "step 3 of 10")) == "3 of 10"
    assert said(ToolProgress(0.35, 1.0)) == "35%"
    assert said(ToolProgress(2, None, "fetching the page")) == "fetching the page"
    assert said(ToolProgress(1500, None)) == "1,500"
    assert said(None) == ""
    assert said(ToolProgress(3, 10), ToolProgress(1, 2)) == ""  # two at once: the names only


def test_the_status_line_says_the_tool_servers_start(qtbot: Any) -> None:
    since = now_ns() - 2_100_000_000
    starting = SimpleNamespace(state=TurnState.QUEUED, tools_starting_since_ns=since)
    text = tool_state_text(starting)  # type: ignore[arg-type]
    assert re.fullmatch(r"Starting the tool servers… 2\.\d s", text), text
