"""A conversation's summary outlives the app: stored when made, read again when the
conversation is reopened by a new session, sent while the summarised turns are
unchanged, left out after an edit before them or with the switch off; the summarised
turns stay in the history as they were."""

from __future__ import annotations

from pathlib import Path

import pytest

from client.services.chat.compression_task import HistoryCompressor
from client.services.chat.session import ChatSession
from client.store.conversations.history import HistoryStore
from client.store.db import Database
from tests.services.planning.test_compression import _long_conversation
from tests.services.scripted_server import ScriptedServer, ollama_done, ollama_token

SUMMARY = "They talked about words."


async def _ask(session: ChatSession, server: ScriptedServer, conversation: int) -> list[dict]:
    server.add(ollama_token("ok"), ollama_done())
    async for _ in session.generate(conversation, "and then?"):
        pass
    return server.requests[-1]["messages"]


async def _summarised(tmp_path: Path, server: ScriptedServer) -> tuple[int, list[str]]:
    """A long conversation summarised by one session, which then closes (a restart)."""
    with Database(tmp_path / "tachy.sqlite3") as db:
        session = ChatSession(server.backend(), "m", HistoryStore(db))
        conversation = await _long_conversation(session, server, 3)
        server.add(ollama_token(SUMMARY), ollama_done())
        stored = await HistoryCompressor(session).after_answer(conversation, lambda: False)
        assert stored is not None and stored.summary.covers == 2
        texts = [m.content for m in session.history.active_path(conversation)]
    return conversation, texts


@pytest.fixture
def server() -> ScriptedServer:
    return ScriptedServer()


async def test_a_reopened_conversation_sends_its_stored_summary_again(
    tmp_path: Path, server: ScriptedServer
) -> None:
    conversation, texts = await _summarised(tmp_path, server)
    with Database(tmp_path / "tachy.sqlite3") as db:
        session = ChatSession(server.backend(), "m", HistoryStore(db))  # the next start
        in_use = session.summary_in_use(conversation)
        assert in_use is not None and in_use.summary.text == SUMMARY
        assert in_use.covered_ids[-1] == session.history.active_path(conversation)[1].id
        fresh = ChatSession(server.backend(), "m", HistoryStore(db))  # reads it when it asks
        sent = await _ask(fresh, server, conversation)
        assert sent[0]["role"] == "system" and SUMMARY in sent[0]["content"]
        assert not any(m["content"].startswith("question 0") for m in sent)
        stored = [m.content for m in session.history.active_path(conversation)]
        assert stored[: len(texts)] == texts  # the summarised turns are still there


async def test_an_edit_before_the_summarised_turns_or_the_switch_off_leaves_it_out(
    tmp_path: Path, server: ScriptedServer
) -> None:
    conversation, _texts = await _summarised(tmp_path, server)
    with Database(tmp_path / "tachy.sqlite3") as db:
        session = ChatSession(server.backend(), "m", HistoryStore(db))
        session.configure(compress_history=False)
        assert session.summary_in_use(conversation) is None
        assert SUMMARY not in str(await _ask(session, server, conversation))
        session.configure(compress_history=True)
        first_question = session.history.active_path(conversation)[0].id
        server.add(ollama_token("new"), ollama_done())
        async for _ in session.edit_and_resend(first_question, "a new first question"):
            pass
        assert SUMMARY not in str(server.requests[-1]["messages"])
        assert session.summary_in_use(conversation) is None
