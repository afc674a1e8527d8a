"""History compression: a long conversation's older turns are summarised by the fast
model in the background; the next plan sends the summary and the recent turns; an
answer running stops it; an edit before the summarised turns drops the summary."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import pytest

from client.services.cascade.cascade import cascade_routes
from client.services.chat.compression_task import HistoryCompressor
from client.services.chat.session import ChatSession
from client.services.planning.compression import THRESHOLD_TOKENS, worth_compressing
from client.services.planning.planner import Route
from client.store.conversations.history import HistoryStore
from client.store.db import Database
from tests.services.scripted_server import ScriptedServer, ollama_done, ollama_token

LONG = "word " * 300  # about 400 tokens a message


@pytest.fixture
def history(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[HistoryStore]:
    monkeypatch.setenv("TACHY_DATA_DIR", str(tmp_path))
    db = Database()
    yield HistoryStore(db)
    db.close()


async def _long_conversation(session: ChatSession, server: ScriptedServer, turns: int) -> int:
    conversation: int | None = None
    for index in range(turns):
        server.add(ollama_token(f"answer {index} " + LONG), ollama_done())
        generation = session.generate(conversation, f"question {index} " + LONG)
        async for _ in generation:
            pass
        conversation = generation.conversation_id
    assert conversation is not None
    return conversation


def test_the_thresholds() -> None:
    assert worth_compressing(THRESHOLD_TOKENS + 1, None)
    assert not worth_compressing(THRESHOLD_TOKENS, None)
    assert worth_compressing(100, 1200.0) and not worth_compressing(100, 800.0)


async def test_the_fast_model_summarises_and_the_next_plan_sends_the_summary(
    history: HistoryStore,
) -> None:
    strong, fast = ScriptedServer(), ScriptedServer()
    session = ChatSession(strong.backend(), "big", history)
    # The answers come from the strong model: each question asks it to explain why.
    session.use_routes(cascade_routes(Route(fast.backend(), "small"), session.routes[0]))
    conversation = await _long_conversation_strong(session, strong, 3)
    fast.add(ollama_token("They talked about words."), ollama_done())
    stored = await HistoryCompressor(session).after_answer(conversation, busy=lambda: False)
    assert stored is not None and stored.summary.text == "They talked about words."
    assert stored.summary.covers == 2  # 6 messages: the last 4 are kept as they are
    assert fast.requests[0]["model"] == "small"  # the fast model summarised
    assert "Explain why 0" in fast.requests[0]["messages"][0]["content"]
    strong.add(ollama_token("ok"), ollama_done())
    generation = session.generate(conversation, "Explain why, step by step")
    async for _ in generation:
        pass
    sent = strong.requests[-1]["messages"]
    assert sent[0]["role"] == "system" and "They talked about words." in sent[0]["content"]
    assert not any("Explain why 0" in m["content"] for m in sent)
    assert any("Explain why 1" in m["content"] for m in sent)
    assert generation.plan is not None and generation.plan.summary is not None
    before = sum(len(m["content"]) for m in strong.requests[-2]["messages"])
    assert sum(len(m["content"]) for m in sent) < before


async def _long_conversation_strong(session: ChatSession, server: ScriptedServer, n: int) -> int:
    conversation: int | None = None
    for index in range(n):
        server.add(ollama_token(f"answer {index} " + LONG), ollama_done())
        generation = session.generate(conversation, f"Explain why {index} " + LONG)
        async for _ in generation:
            pass
        conversation = generation.conversation_id
    assert conversation is not None
    return conversation


async def test_a_short_conversation_or_the_switch_off_is_left_alone(
    history: HistoryStore,
) -> None:
    server = ScriptedServer()
    session = ChatSession(server.backend(), "m", history)
    conversation = await _long_conversation(session, server, 1)
    assert await HistoryCompressor(session).after_answer(conversation, lambda: False) is None
    conversation = await _long_conversation(session, server, 3)
    session.configure(compress_history=False)
    assert await HistoryCompressor(session).after_answer(conversation, lambda: False) is None
    assert len(server.requests) == 4  # no summary request was sent


async def test_an_answer_starting_cancels_the_summary(history: HistoryStore) -> None:
    server = ScriptedServer()
    session = ChatSession(server.backend(), "m", history)
    conversation = await _long_conversation(session, server, 3)
    hold = asyncio.Event()
    server.add(ollama_token("never"), hold, ollama_done())
    answering = False
    closed_before = server.closed_early
    job = asyncio.ensure_future(
        HistoryCompressor(session).after_answer(conversation, lambda: answering)
    )
    for _ in range(6000):  # until the summary's stream has begun (a minute at most)
        if server.bodies_started == 4:
            break
        await asyncio.sleep(0.01)
    answering = True
    assert await asyncio.wait_for(job, 60) is None
    assert server.closed_early == closed_before + 1 and session.summaries == {}
    answering = False
    assert await HistoryCompressor(session).after_answer(conversation, lambda: True) is None


async def test_an_edit_before_the_summarised_turns_drops_the_summary(
    history: HistoryStore,
) -> None:
    server = ScriptedServer()
    session = ChatSession(server.backend(), "m", history)
    conversation = await _long_conversation(session, server, 3)
    server.add(ollama_token("summary"), ollama_done())
    stored = await HistoryCompressor(session).after_answer(conversation, lambda: False)
    assert stored is not None
    first_question = stored.covered_ids[0]
    assert first_question is not None
    server.add(ollama_token("new"), ollama_done())
    edit = session.edit_and_resend(first_question, "a new first question")
    async for _ in edit:
        pass
    assert "summary" not in str(server.requests[-1]["messages"])
