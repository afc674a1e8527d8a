"""The retrieving stage in a real ChatSession: SQLite history, a real knowledge base on
files, a scripted server that records what was sent."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from client.services.chat.session import ChatSession
from client.services.chat.session_events import Finished, Outcome, Stage, StageChanged
from client.services.hud.hud_model import record_from_request, record_from_stored
from client.services.hud.waterfall import build_waterfall
from client.services.knowledge.knowledge import KnowledgeBase
from client.services.knowledge.knowledge_stage import KnowledgeStage, Retrieved, fit_passages
from client.store.conversations.history import HistoryStore
from client.store.db import Database
from client.store.knowledge.index import Hit
from client.store.metrics_store import MetricsStore
from tests.services.scripted_server import MODEL, ScriptedServer, ollama_done, ollama_token

pytestmark = pytest.mark.timeout(120)
# The search's budget where a test wants its passages: the default 50 ms is a speed goal a
# busy machine's search may miss (tests/perf/test_knowledge_perf.py times the search).
PATIENT_MS = 60_000.0


@pytest.fixture
def db(tmp_path: Path) -> Iterator[Database]:
    database = Database(tmp_path / "tachy.sqlite3")
    yield database
    database.close()


@pytest.fixture
def knowledge(tmp_path: Path) -> Iterator[KnowledgeBase]:
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "kyoto.md").write_text("# Kyoto\n\nWe stayed at the Hotel Granvia.\n")
    (notes / "北京.txt").write_text("北京的烤鸭很好吃。\n")
    kb = KnowledgeBase(tmp_path / "knowledge.sqlite3")
    kb.add([notes])
    yield kb
    kb.close()


def session_with(db: Database, stage: KnowledgeStage | None, server: ScriptedServer) -> ChatSession:
    session = ChatSession(server.backend(), MODEL, HistoryStore(db), MetricsStore(db))
    session.knowledge = stage
    return session


def answer() -> ScriptedServer:
    return ScriptedServer().add(ollama_token("At the Granvia [1]."), ollama_done(eval_count=5))


async def events_of(session: ChatSession, question: str) -> list[Any]:
    generation = session.generate(None, question)
    events = [event async for event in generation]
    events.append(generation)
    return events


async def test_the_question_is_searched_and_the_passages_sent_with_sources(
    db: Database, knowledge: KnowledgeBase, tmp_path: Path
) -> None:
    server = answer()
    stage = KnowledgeStage(knowledge, budget_ms=PATIENT_MS, enabled=lambda _conversation: True)
    *events, generation = await events_of(session_with(db, stage, server), "Which hotel in Kyoto?")
    stages = [e.stage for e in events if isinstance(e, StageChanged)]
    assert stages[:3] == [Stage.UNDERSTANDING, Stage.RETRIEVING, Stage.UNDERSTANDING]
    [retrieved] = [e for e in events if isinstance(e, Retrieved)]
    assert [Path(h.path).name for h in retrieved.retrieval.passages] == ["kyoto.md"]
    assert retrieved.retrieval.ms > 0
    assert isinstance(events[-1], Finished) and events[-1].outcome is Outcome.COMPLETE

    sent = server.requests[0]["messages"][-1]["content"]
    source = tmp_path / "notes" / "kyoto.md"
    assert f"[1] {source}:1-3\n# Kyoto\n\nWe stayed at the Hotel Granvia." in sent
    assert sent.endswith("Question: Which hotel in Kyoto?") and "cite" in sent
    assert generation.plan.passages[0].source == f"{source}:1-3"

    # The stored request keeps the retrieving stage: its time and what it added.
    [stored_record] = MetricsStore(db).query()
    [stored] = [s for s in stored_record.stages if s["stage"] == "retrieving"]
    waited = stored["end_ms"] - stored["start_ms"]  # the stage: what the user waited
    assert retrieved.retrieval.ms <= waited + 0.5  # the stage holds the search
    assert stored["start_ms"] < stored["end_ms"] <= 0  # before the request was written
    assert stored["passages"] == 1 and stored["tokens"] == retrieved.retrieval.tokens > 0
    # The waterfall shows the stage with what it added, live and from the store.
    tokens = retrieved.retrieval.tokens
    label = f"Searching your notes · 1 passages, {tokens} tokens"  # the state's words
    for record in (
        record_from_request(
            events[-1].metrics,
            generation.timeline,
            at=0,
            model="m",
            server="s",
            cold=False,
            outcome="complete",
        ),
        record_from_stored(stored_record),
    ):
        rows = [row for row in build_waterfall(record).rows if row.text == label]
        assert len(rows) == 1 and rows[0].start_ms < rows[0].end_ms <= 0
    # The question is stored as asked, without the passages.
    path = HistoryStore(db).active_path(generation.conversation_id)
    assert path[0].content == "Which hotel in Kyoto?"


async def test_a_chinese_question_finds_the_chinese_note(
    db: Database, knowledge: KnowledgeBase
) -> None:
    server = answer()
    stage = KnowledgeStage(knowledge, budget_ms=PATIENT_MS, enabled=lambda _conversation: True)
    await events_of(session_with(db, stage, server), "烤鸭好吃吗？")
    assert "北京的烤鸭很好吃。" in server.requests[0]["messages"][-1]["content"]


async def test_knowledge_off_for_the_conversation_searches_nothing(
    db: Database, knowledge: KnowledgeBase
) -> None:
    server = answer()
    stage = KnowledgeStage(knowledge, enabled=lambda _conversation: False)
    *events, generation = await events_of(session_with(db, stage, server), "Which hotel in Kyoto?")
    assert not any(isinstance(e, Retrieved) for e in events)
    assert Stage.RETRIEVING not in [e.stage for e in events if isinstance(e, StageChanged)]
    assert server.requests[0]["messages"][-1]["content"] == "Which hotel in Kyoto?"
    assert generation.retrieval is None


async def test_past_the_budget_the_answer_goes_on_without_passages(
    db: Database, knowledge: KnowledgeBase
) -> None:
    server = answer()
    stage = KnowledgeStage(knowledge, budget_ms=0, enabled=lambda _conversation: True)
    *events, _generation = await events_of(session_with(db, stage, server), "Kyoto hotel")
    [retrieved] = [e for e in events if isinstance(e, Retrieved)]
    assert retrieved.retrieval.timed_out and "answered without them" in retrieved.retrieval.notice()
    assert server.requests[0]["messages"][-1]["content"] == "Kyoto hotel"
    assert isinstance(events[-1], Finished) and events[-1].outcome is Outcome.COMPLETE


async def test_a_broken_index_says_so_and_answers(db: Database, tmp_path: Path) -> None:
    damaged = tmp_path / "broken.sqlite3"
    damaged.write_bytes(b"not a database" * 500)
    kb = KnowledgeBase(damaged)
    server = answer()
    stage = KnowledgeStage(kb, budget_ms=PATIENT_MS, enabled=lambda _conversation: True)
    *events, _generation = await events_of(session_with(db, stage, server), "Kyoto hotel")
    kb.close()
    [retrieved] = [e for e in events if isinstance(e, Retrieved)]
    assert "damaged" in retrieved.retrieval.notice()
    assert isinstance(events[-1], Finished) and events[-1].outcome is Outcome.COMPLETE


def test_passages_are_kept_to_their_share_of_the_prompt_budget() -> None:
    hits = [Hit("/a", "line", n, n, 10.0 - n, 100, "x") for n in range(5)]
    assert [h.line_start for h in fit_passages(hits, 250)] == [0, 1]
    assert fit_passages(hits, 50) == []


async def test_stop_while_retrieving_keeps_the_question_and_sends_nothing(
    db: Database, knowledge: KnowledgeBase
) -> None:
    server = answer()
    searching = asyncio.Event()

    async def slow_retrieve(question: str, k: int = 5, budget_ms: float = 50.0) -> Any:
        searching.set()
        await asyncio.Event().wait()  # a search that never ends (Stop comes first)

    knowledge.retrieve = slow_retrieve  # type: ignore[method-assign]
    stage = KnowledgeStage(knowledge, enabled=lambda _conversation: True)
    generation = session_with(db, stage, server).generate(None, "Kyoto hotel")

    async def consume() -> None:
        async for _event in generation:
            pass

    task = asyncio.create_task(consume())
    await asyncio.wait_for(searching.wait(), 60)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert generation.finished is not None and generation.finished.outcome is Outcome.STOPPED
    assert server.requests == []  # nothing was sent
    path = HistoryStore(db).active_path(generation.conversation_id)
    question = path[0]
    assert (question.role, question.content, str(question.state)) == (
        "user",
        "Kyoto hotel",
        "complete",
    )
    assert str(path[-1].state) == "stopped"
