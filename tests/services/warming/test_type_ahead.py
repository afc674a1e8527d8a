"""Type-ahead against the lab speaking llama.cpp (its prompt cache keeps the last
prompt's tokens): the draft's plan is read while typed, the request sent on Enter takes
it from the cache, the saving is the server's own count, and Enter cancels a read."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest

from client.backends import OpenAICompatBackend
from client.backends.kinds.registry import decode_report
from client.core.metrics import RequestMetrics
from client.lab import LabServer, scenario_from_dict
from client.services.chat.session import ChatSession
from client.services.warming.type_ahead import (
    READ_AT_LEAST_TOKENS,
    Readiness,
    TypeAhead,
    on_this_machine,
    read_figures,
    set_type_ahead,
    settled_part,
    type_ahead_on,
)
from client.store.conversations.history import HistoryStore
from client.store.db import Database
from client.store.settings import Settings

pytestmark = pytest.mark.timeout(120)

QUESTION = "Explain how a prompt cache works, step by step, with an example. " * 8
MODEL = "tachy-lab"


@pytest.fixture
async def lab() -> AsyncIterator[LabServer]:
    scenario = {"server": "llamacpp", "ttft": 5, "tpot_ms": 1, "output_tokens": 4}
    server = LabServer(scenario_from_dict({**scenario, "n_batch": 16, "seed": 1}))
    await server.start()
    yield server
    await server.stop()


def words(text: str) -> int:
    return len(text.split())


async def read_whole(ahead: TypeAhead) -> None:
    for _ in range(2000):  # reads chain: the pending one starts as the last ends
        if not ahead.reading:
            return
        await asyncio.sleep(0.005)
    raise AssertionError("the read never ended")


async def test_the_sent_request_takes_the_question_from_the_reads(
    db: Database, lab: LabServer
) -> None:
    backend = OpenAICompatBackend(lab.url)
    session = ChatSession(backend, MODEL, HistoryStore(db), server_name="Lab")
    ahead = TypeAhead()
    try:
        half = QUESTION[: len(QUESTION) // 2]
        ahead.read(backend, session.plan_question([], half).request(), half)
        ahead.read(backend, session.plan_question([], QUESTION).request(), QUESTION)  # waits
        await read_whole(ahead)
        assert ahead.reads_sent == 2
        ready = ahead.readiness(QUESTION, words)
        assert ready is not None and ready.read == ready.total > 50
        grown = ahead.readiness(QUESTION + " and more words", words)
        assert grown == Readiness(ready.read, ready.read + 3)
        # A few words more are not worth a read (it could be under way at Enter) ...
        assert not ahead.worth_reading(QUESTION + " and more words", words)
        more = " ".join(["word"] * READ_AT_LEAST_TOKENS)
        assert ahead.worth_reading(f"{QUESTION} {more}", words)  # ... a dozen are
        assert TypeAhead().worth_reading("anything", words)  # and a draft's first read
        ahead.request_started()
        generation = session.generate(None, QUESTION)
        async for _event in generation:
            pass
        assert generation.finished is not None
        metrics = generation.finished.metrics
        sent = read_figures(metrics)
        assert sent.computed is not None and sent.computed <= 2  # all but the last token
        saving = ahead.request_finished(metrics)
    finally:
        await ahead.aclose()
        await backend.aclose()
    assert saving is not None and saving.tokens == sent.cached  # nothing was cached before
    assert saving.tokens > 50
    assert ahead.readiness(QUESTION, words) is None  # forgotten with the request


async def test_enter_cancels_a_read_in_flight(db: Database) -> None:
    slow = {"server": "llamacpp", "ttft": 5, "prefill_tokens_per_s": 20, "n_batch": 16}
    lab = LabServer(scenario_from_dict({**slow, "output_tokens": 2, "seed": 1}))
    await lab.start()
    backend = OpenAICompatBackend(lab.url)
    session = ChatSession(backend, MODEL, HistoryStore(db), server_name="Lab")
    changes = asyncio.Event()
    ahead = TypeAhead(on_change=changes.set)
    try:
        await backend.list_models()  # learns llama.cpp: progress chunks are asked for
        ahead.read(backend, session.plan_question([], QUESTION).request(), QUESTION)
        await asyncio.wait_for(changes.wait(), 60)  # the first progress chunk
        ready = ahead.readiness(QUESTION, words)
        assert ready is not None and ready.read < ready.total
        assert ahead.reading
        ahead.request_started()
        assert not ahead.reading
        assert ahead.readiness(QUESTION, words) is None  # nothing read whole
    finally:
        await ahead.aclose()
        await backend.aclose()
        await lab.stop()


def test_a_read_while_typing_leaves_the_word_being_typed() -> None:
    """Its tokens would not be the sent question's (" yell" for " yellow")."""
    assert settled_part("the river and the yell") == "the river and the"
    assert settled_part("the river and the\nyell") == "the river and the"
    assert settled_part("the river and ") == "the river and "  # the last word is done
    assert settled_part("yell") == "yell"  # one word: the first read reads it
    assert settled_part("") == ""


def test_figures_come_from_each_servers_counts() -> None:
    llama = RequestMetrics(
        server=decode_report({"llamacpp": {"prompt_n": 3, "cache_n": 400, "prompt_ms": 9}})
    )
    assert read_figures(llama).cached == 400 and read_figures(llama).total == 403
    vllm = RequestMetrics(
        prompt_tokens=430, server=decode_report({"openai": {"cached_tokens": 416}})
    )
    assert (read_figures(vllm).computed, read_figures(vllm).cached) == (14, 416)
    ollama = RequestMetrics(server=decode_report({"ollama": {"prompt_eval_count": 12}}))
    assert (read_figures(ollama).computed, read_figures(ollama).cached) == (12, None)


def test_on_by_default_only_for_servers_on_this_machine(db: Database) -> None:
    assert on_this_machine("http://127.0.0.1:8080") and on_this_machine("http://localhost:1")
    assert on_this_machine("http://[::1]:11434") and not on_this_machine("http://10.0.0.5:8000")
    store = Settings(db)
    far = "http://gpu-box.lan:8000"
    assert type_ahead_on(store, "", is_local=True)
    assert not type_ahead_on(store, far, is_local=False)
    set_type_ahead(store, far, False, True)  # costs that server work: the user's choice
    assert type_ahead_on(store, far, is_local=False)
