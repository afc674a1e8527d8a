"""The disk fills in the middle of an answer: a real tmpfs of 1 MiB, filled to the brim.

The writer keeps every token while nothing can be written, the answer ends as usual,
and once a file is deleted the whole answer is saved with its end state.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import pytest

from client.services.chat.answer_writer import AnswerWriter
from client.services.storage import full_disk as saving
from client.store.conversations.history import HistoryStore, MessageState
from client.store.db import Database
from tests.mounts import fill_to_the_brim, needs_mount, tmpfs

pytestmark = [pytest.mark.timeout(180), needs_mount]


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    with tmpfs(tmp_path / "disk", 1024) as folder:
        yield folder


@pytest.fixture
def heard() -> Iterator[list[str | None]]:
    reasons: list[str | None] = []
    saving.add_listener(reasons.append)
    yield reasons
    saving.remove_listener(reasons.append)


async def until(condition: object, seconds: float = 60.0) -> None:  # a safety net
    for _ in range(int(seconds / 0.01)):
        if callable(condition) and condition():
            return
        await asyncio.sleep(0.01)
    raise AssertionError("condition not met in time")


async def test_a_full_disk_mid_answer_saves_it_once_there_is_room(
    small_disk: Path, heard: list[str | None]
) -> None:
    db = Database(small_disk / "tachy.sqlite3")
    history = HistoryStore(db)
    try:
        chat = history.create_conversation("t")
        question = history.add_message(chat.id, "user", "a long answer, please")
        answer = history.add_message(
            chat.id, "assistant", parent_id=question.id, state=MessageState.STREAMING
        )
        writer = AnswerWriter(history, answer.id, interval_s=0.01)
        words = [f"word{n} " for n in range(3000)]
        for word in words[:100]:
            writer.add(word)
        await until(lambda: writer.flushes >= 1)
        filler = fill_to_the_brim(small_disk)
        for n, word in enumerate(words[100:]):
            writer.add(word)  # tokens keep coming, a write keeps failing
            if n % 50 == 0:
                await asyncio.sleep(0.01)
        await writer.finish(MessageState.COMPLETE)  # ends as usual, no exception
        assert heard and heard[0] is not None and "full" in heard[0]
        stored = history.get_message(answer.id)
        assert stored is not None and stored.state is MessageState.STREAMING
        assert len(stored.content) < len("".join(words))
        assert saving.waiting_writes() == 1
        filler.unlink()  # room again
        await until(lambda: saving.waiting_writes() == 0)
        stored = history.get_message(answer.id)
        assert stored is not None
        assert (stored.content, stored.state) == ("".join(words), MessageState.COMPLETE)
        assert heard[-1] is None  # "saving works again"
    finally:
        db.close()
    with Database(small_disk / "tachy.sqlite3") as reopened:
        again = HistoryStore(reopened, recover=False).get_message(answer.id)
        assert again is not None and again.content == "".join(words)
