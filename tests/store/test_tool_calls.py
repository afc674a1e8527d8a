"""An answer's tool calls (schema 8): saved as they go, read back in order, gone with
their message, and a schema 7 history opens with none."""

from __future__ import annotations

import sqlite3
from dataclasses import replace
from pathlib import Path

import pytest

from client.store.conversations.history import HistoryStore
from client.store.conversations.tool_calls import DONE, RUNNING, StoredToolCall, ToolCallStore
from client.store.db import MIGRATIONS, Database, migrate


def _answer(history: HistoryStore) -> int:
    chat = history.create_conversation()
    question = history.add_message(chat.id, "user", "Use add for 2 and 3.")
    return history.add_message(chat.id, "assistant", "", parent_id=question.id).id


def test_a_call_is_saved_then_updated_in_place(history: HistoryStore) -> None:
    store = ToolCallStore(history.db)
    answer = _answer(history)
    call = StoredToolCall(answer, 1, 0, 0, "call_0", "add", '{"a": 2, "b": 3}', "demo")
    store.save([call])
    running = replace(call, status=RUNNING)
    store.save([running])
    assert store.for_message(answer) == [running]
    done = replace(call, status=DONE, result="5.0", ms=12.5)
    second = StoredToolCall(answer, 2, 0, 7, "call_1", "fail", "{}", "demo", DONE, "boom", True,
                            "tool")  # fmt: skip
    store.save([second, done])
    assert store.for_message(answer) == [done, second]  # by round, then place
    assert store.for_messages([answer, answer + 99]) == {answer: [done, second]}


def test_the_calls_go_with_their_message(history: HistoryStore) -> None:
    store = ToolCallStore(history.db)
    answer = _answer(history)
    store.save([StoredToolCall(answer, 1, 0, 0, "c", "add")])
    conversation = history.get_message(answer)
    assert conversation is not None
    history.purge(conversation.conversation_id)
    assert store.for_message(answer) == []
    with pytest.raises(KeyError):
        store.save([StoredToolCall(answer, 1, 0, 0, "c", "add")])


def test_a_schema_7_history_opens_with_no_tool_calls(data_dir: Path) -> None:
    data_dir.mkdir(parents=True)
    conn = sqlite3.connect(data_dir / "tachy.sqlite3", isolation_level=None)
    assert migrate(conn, MIGRATIONS[:7]) == 7
    conn.executescript(
        """
        INSERT INTO conversations (id, title, created_at, updated_at, active_leaf_id)
            VALUES (1, 'old', 1, 2, 2);
        INSERT INTO messages (id, conversation_id, parent_id, role, content, created_at)
            VALUES (1, 1, NULL, 'user', 'q', 1), (2, 1, 1, 'assistant', 'a', 2);
        """
    )
    conn.close()
    with Database() as db:
        assert db.version == 8
        history = HistoryStore(db)
        assert [m.content for m in history.active_path(1)] == ["q", "a"]
        store = ToolCallStore(db)
        assert store.for_messages([1, 2]) == {}
        store.save([StoredToolCall(2, 1, 0, 1, "c", "add", "{}")])
        assert store.for_message(2)[0].name == "add"
