"""AnswerWriter: a streaming answer reaches SQLite in batches, off the loop."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import pytest

from client.core.events import TokenKind
from client.services.chat.answer_writer import AnswerWriter
from client.store.conversations.history import HistoryStore, MessageState
from client.store.db import Database

pytestmark = pytest.mark.timeout(120)


@pytest.fixture
def history(tmp_path: Path) -> Iterator[HistoryStore]:
    db = Database(tmp_path / "tachy.sqlite3")
    yield HistoryStore(db)
    db.close()


def streaming_answer(history: HistoryStore) -> int:
    conversation = history.create_conversation("t")
    question = history.add_message(conversation.id, "user", "Q")
    return history.add_message(
        conversation.id, "assistant", parent_id=question.id, state=MessageState.STREAMING
    ).id


async def wait_for(condition: object, seconds: float = 60.0) -> None:  # a safety net
    for _ in range(int(seconds / 0.005)):  # bounded
        if callable(condition) and condition():
            return
        await asyncio.sleep(0.005)
    raise AssertionError("condition not met in time")


async def test_tokens_are_batched_and_flushed_within_the_interval(history: HistoryStore) -> None:
    message_id = streaming_answer(history)
    writer = AnswerWriter(history, message_id, interval_s=0.05)
    for word in ["one", " two", " three"]:
        writer.add(word)
    writer.add("hmm", TokenKind.THINKING)
    assert history.get_message(message_id).content == ""  # type: ignore[union-attr]
    await wait_for(lambda: writer.flushes == 1)
    stored = history.get_message(message_id)
    assert stored is not None
    assert (stored.content, stored.thinking, stored.state) == (
        "one two three",
        "hmm",
        MessageState.STREAMING,
    )
    writer.add(" four")
    await writer.finish(MessageState.STOPPED)
    stored = history.get_message(message_id)
    assert stored is not None and (stored.content, stored.state) == (
        "one two three four",
        MessageState.STOPPED,
    )
    assert writer.flushes == 1  # the last words went with the end state, in one write


async def test_a_failed_write_keeps_the_words_for_the_next(
    history: HistoryStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    message_id = streaming_answer(history)
    real_append = history.append_text
    failures = [True]

    def flaky_append(mid: int, text: str = "", thinking: str = "") -> None:
        if failures and failures.pop():
            raise OSError("disk busy")
        real_append(mid, text, thinking)

    monkeypatch.setattr(history, "append_text", flaky_append)
    writer = AnswerWriter(history, message_id, interval_s=0.0)
    writer.add("kept")
    await wait_for(lambda: not failures)
    writer.add(" too")
    await wait_for(lambda: history.get_message(message_id).content == "kept too")  # type: ignore[union-attr]
    await writer.finish(MessageState.COMPLETE, "")


async def test_a_deleted_message_stops_the_writes(history: HistoryStore) -> None:
    message_id = streaming_answer(history)
    writer = AnswerWriter(history, message_id, interval_s=0.0)
    conversation_id = history.get_message(message_id).conversation_id  # type: ignore[union-attr]
    history.purge(conversation_id)
    writer.add("lost")
    await wait_for(lambda: writer.gone)
    writer.add("more")
    await writer.finish(MessageState.COMPLETE)  # no error: nowhere to save
