"""An answer's tool calls survive a crash as its words do: a writer killed (SIGKILL)
while a tool runs leaves the words, the finished call and the running one stored, and
the reopened answer is laid out for the model with the lost call told so."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from client.services.chat.turn_store import read_context
from client.services.tools.tool_history import NO_RESULT
from client.store.conversations.history import HistoryStore
from client.store.conversations.tool_calls import ToolCallStore
from client.store.db import Database

WRITER = r"""
import asyncio, time
from dataclasses import replace
from client.store.db import Database
from client.store.conversations.history import HistoryStore
from client.store.conversations.tool_calls import StoredToolCall
from client.services.chat.answer_writer import AnswerWriter

async def main():
    history = HistoryStore(Database())
    chat = history.create_conversation("crash")
    question = history.add_message(chat.id, "user", "Use add, then slow_count.")
    answer = history.add_message(chat.id, "assistant", parent_id=question.id, state="streaming")
    writer = AnswerWriter(history, answer.id, interval_s=0.01)
    writer.add("Adding first.")
    add = StoredToolCall(answer.id, 1, 0, 13, "c1", "add", '{"a": 2, "b": 3}', "demo")
    writer.tool_call(add)
    writer.tool_call(replace(add, status="done", result="5.0", ms=12.0))
    writer.add("Now counting.")
    writer.tool_call(StoredToolCall(answer.id, 2, 0, 26, "c2", "slow_count", "{}", "demo",
                                    "running"))
    while writer.flushes < 1 or writer._calls or writer._text or writer._flushing:
        await asyncio.sleep(0.01)
    print(answer.id, flush=True)
    time.sleep(60)  # killed long before this ends

asyncio.run(main())
"""


@pytest.fixture
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("TACHY_DATA_DIR", str(tmp_path / "data"))
    return tmp_path / "data"


def test_a_killed_turn_keeps_its_words_and_calls(data_dir: Path) -> None:
    env = {**os.environ, "TACHY_DATA_DIR": str(data_dir)}
    writer = subprocess.Popen(
        [sys.executable, "-c", WRITER], stdout=subprocess.PIPE, env=env, text=True
    )
    try:
        assert writer.stdout is not None
        message_id = int(writer.stdout.readline())  # every write has committed
        writer.send_signal(signal.SIGKILL)
        assert writer.wait(timeout=60) == -signal.SIGKILL
    finally:
        if writer.poll() is None:
            writer.kill()
            writer.wait(timeout=60)
    with Database() as db:
        history = HistoryStore(db)
        message = history.get_message(message_id)
        assert message is not None and message.state == "interrupted"
        assert message.content == "Adding first.Now counting."
        add, count = ToolCallStore(db).for_message(message_id)
        assert (add.status, add.result, add.ms) == ("done", "5.0", 12.0)
        assert (count.status, count.result) == ("running", None)
        context, ids = read_context(history, history.active_path(message.conversation_id))
    roles = [m.role for m in context]
    assert roles == ["user", "assistant", "tool", "assistant", "tool"]
    assert context[1].content == "Adding first." and context[2].content == "5.0"
    assert context[3].content == "Now counting." and context[3].tool_calls[0].id == "c2"
    assert context[4].content == NO_RESULT  # its tool never finished: the model is told
    assert ids == [ids[0]] + [message_id] * 4
