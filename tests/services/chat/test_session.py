"""ChatSession end to end: real backends and SQLite, scripted servers on the other side."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from client.backends import OllamaBackend, OpenAICompatBackend, backend_for
from client.core.conversation import GenerationOptions
from client.core.events import Token, TokenKind
from client.lab import LabServer, scenario_from_dict
from client.services.chat.generation import Generation
from client.services.chat.session import ChatSession, SessionSettings
from client.services.chat.session_events import (
    Finished,
    NextStep,
    Outcome,
    SlowStart,
    Stage,
    StageChanged,
)
from client.store.conversations.history import HistoryStore, MessageState
from client.store.db import Database
from client.store.metrics_store import MetricsStore
from tests.services.scripted_server import (
    MODEL,
    ResettingServer,
    ScriptedServer,
    closed_port,
    ollama_done,
    ollama_token,
    sse_done,
    sse_token,
)

pytestmark = pytest.mark.timeout(120)


@pytest.fixture
def history(db: Database) -> HistoryStore:
    return HistoryStore(db)


@pytest.fixture
def metrics(db: Database) -> MetricsStore:
    return MetricsStore(db)


def session_for(
    backend: Any,
    history: HistoryStore,
    metrics: MetricsStore,
    model_state_provider: Any = None,
    is_local: bool = False,
    **settings: Any,
) -> ChatSession:
    own = SessionSettings(**settings)
    session = ChatSession(
        backend, MODEL, history, metrics, "scripted", settings=own, is_local=is_local
    )
    session.model_state_provider = model_state_provider  # the warming policy's, in the app
    return session


async def run(generation: Generation) -> list[Any]:
    return [event async for event in generation]


def stages(events: list[Any]) -> list[Stage]:
    return [e.stage for e in events if isinstance(e, StageChanged)]


def text_of(events: list[Any]) -> str:
    return "".join(e.text for e in events if isinstance(e, Token) and e.kind is TokenKind.ANSWER)


async def stop_after_tokens(
    generation: Generation, count: int, timeout_s: float = 5.0
) -> list[Any]:
    """Consume in a task, cancel it (Stop) once `count` tokens arrived."""
    seen: list[Any] = []
    enough = asyncio.Event()

    async def consume() -> None:
        async for event in generation:
            seen.append(event)
            if sum(isinstance(e, Token) for e in seen) >= count:
                enough.set()

    task = asyncio.create_task(consume())
    waiter = asyncio.ensure_future(enough.wait())
    try:
        await asyncio.wait([task, waiter], timeout=timeout_s, return_when=asyncio.FIRST_COMPLETED)
    finally:
        waiter.cancel()
    assert enough.is_set(), f"fewer than {count} tokens in {timeout_s} s: {seen}"
    assert not task.done(), f"the answer ended after {count} tokens: {seen}"
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    return seen


# ---- complete answers and stages ---------------------------------------------------------


async def test_complete_answer_is_stored_and_measured(
    history: HistoryStore, metrics: MetricsStore
) -> None:
    server = ScriptedServer().add(
        0.01, ollama_token("The sky"), ollama_token(" is blue."), ollama_done(eval_count=4)
    )
    session = session_for(server.backend(), history, metrics)
    generation = session.generate(None, "Why is the sky blue?")
    events = await run(generation)

    finished = events[-1]
    assert isinstance(finished, Finished)
    assert finished is generation.finished
    assert (finished.outcome, finished.text, finished.next_steps) == (
        Outcome.COMPLETE,
        "The sky is blue.",
        (),
    )
    assert text_of(events) == "The sky is blue."
    assert finished.metrics.ttft_ms is not None and finished.metrics.ttft_ms >= 10
    assert finished.metrics.output_tokens == 4 and not finished.metrics.output_tokens_estimated
    assert (
        finished.metrics.tier == session.settings.thresholds.tier_of(finished.metrics.ttft_ms).value
    )

    path = history.active_path(generation.conversation_id)  # type: ignore[arg-type]
    assert [(m.role, m.content, m.state) for m in path] == [
        ("user", "Why is the sky blue?", MessageState.COMPLETE),
        ("assistant", "The sky is blue.", MessageState.COMPLETE),
    ]
    assert path[1].id == generation.assistant_message_id == finished.message_id
    assert path[0].id == generation.user_message_id
    assert path[1].model == MODEL and path[1].server == "scripted"
    assert server.requests[0]["messages"] == [{"role": "user", "content": "Why is the sky blue?"}]
    [record] = metrics.query()
    assert record.message_id == generation.assistant_message_id
    assert (record.outcome, record.cold, record.output_tokens) == ("complete", False, 4)
    assert [s["stage"] for s in record.stages] == ["understanding", "answering"]


async def test_answer_only_stage_sequence_with_real_stamps(
    history: HistoryStore, metrics: MetricsStore
) -> None:
    server = ScriptedServer().add(0.03, ollama_token("Hi"), 0.01, ollama_token("!"), ollama_done())
    session = session_for(server.backend(), history, metrics)
    generation = session.generate(None, "Hello")
    events = await run(generation)

    assert stages(events) == [Stage.UNDERSTANDING, Stage.ANSWERING]
    # StageChanged(answering) comes just before the first token and carries its stamp.
    answering = next(i for i, e in enumerate(events) if getattr(e, "stage", None) == "answering")
    assert isinstance(events[answering + 1], Token)
    timeline = generation.timeline
    assert [s.name for s in timeline.stages] == ["understanding", "answering"]
    understanding, answering_stamp = timeline.stages
    assert understanding.end_ns == answering_stamp.start_ns == timeline.first_token_ns
    assert (
        answering_stamp.end_ns is not None and answering_stamp.end_ns >= timeline.tokens[-1].at_ns
    )
    assert (answering_stamp.start_ns - understanding.start_ns) / 1e6 >= 30


async def test_thinking_then_answer_stage_sequence(
    history: HistoryStore, metrics: MetricsStore
) -> None:
    server = ScriptedServer().add(
        ollama_token(thinking="Rayleigh"),
        ollama_token(thinking=" scattering."),
        0.01,
        ollama_token("Because of scattering."),
        ollama_done(),
    )
    session = session_for(server.backend(), history, metrics)
    generation = session.generate(None, "Why?")
    events = await run(generation)

    assert stages(events) == [Stage.UNDERSTANDING, Stage.THINKING, Stage.ANSWERING]
    assert [s.name for s in generation.timeline.stages] == [
        "understanding",
        "thinking",
        "answering",
    ]
    thinking_stage = generation.timeline.stages[1]
    assert thinking_stage.start_ns == generation.timeline.first_token_ns
    assert thinking_stage.end_ns == generation.timeline.first_answer_ns
    finished = generation.finished
    assert finished is not None
    assert (finished.thinking, finished.text) == ("Rayleigh scattering.", "Because of scattering.")
    stored = history.get_message(generation.assistant_message_id)  # type: ignore[arg-type]
    assert stored is not None and stored.thinking == "Rayleigh scattering."


async def test_openai_reasoning_stages(history: HistoryStore, metrics: MetricsStore) -> None:
    server = ScriptedServer("openai").add(sse_token(reasoning="hmm"), sse_token("Yes."), sse_done())
    session = session_for(server.backend(), history, metrics)
    events = await run(session.generate(None, "Is it?"))
    assert stages(events) == [Stage.UNDERSTANDING, Stage.THINKING, Stage.ANSWERING]
    assert events[-1].outcome is Outcome.COMPLETE and events[-1].text == "Yes."


async def test_cold_model_shows_loading_then_answers(
    history: HistoryStore, metrics: MetricsStore
) -> None:
    state = {"now": "cold"}
    server = ScriptedServer().add(0.05, ollama_token("ok"), ollama_done())
    session = session_for(
        server.backend(), history, metrics, model_state_provider=lambda: state["now"]
    )
    generation = session.generate(None, "Hi")
    events = await run(generation)
    assert stages(events) == [Stage.LOADING, Stage.ANSWERING]
    assert generation.cold
    [record] = metrics.query()
    assert record.cold

    # The warmer reports the load finished before the first token: understanding next.
    server.add(1.0, ollama_token("ok"), ollama_done())
    state["now"] = "loading"
    generation = session.generate(generation.conversation_id, "Again")
    consumer = asyncio.create_task(run(generation))
    for _ in range(12_000):  # until the request is at the server: it waits for a token
        if len(server.requests) == 2:
            break
        await asyncio.sleep(0.005)
    state["now"] = "warm"
    events = await consumer
    assert stages(events) == [Stage.LOADING, Stage.UNDERSTANDING, Stage.ANSWERING]


async def test_a_load_reported_by_ollama_marks_the_request_cold(
    history: HistoryStore, metrics: MetricsStore
) -> None:
    server = ScriptedServer()
    server.add(ollama_token("a"), ollama_done(load_ms=2500.0))
    server.add(ollama_token("b"), ollama_done(load_ms=12.0))  # warm: a few ms of "load"
    session = session_for(server.backend(), history, metrics)
    await run(session.generate(None, "Q1"))
    await run(session.generate(None, "Q2"))
    assert [r.cold for r in metrics.query()] == [True, False]


async def test_length_cut_offers_continue(history: HistoryStore, metrics: MetricsStore) -> None:
    server = ScriptedServer().add(ollama_token("Once upon"), ollama_done(reason="length"))
    session = session_for(server.backend(), history, metrics)
    finished = (await run(session.generate(None, "Story")))[-1]
    assert finished.outcome is Outcome.COMPLETE and finished.next_steps == (NextStep.CONTINUE,)


# ---- Stop and Continue -------------------------------------------------------------------


async def test_stop_mid_stream_keeps_partial_text_as_stopped(
    history: HistoryStore, metrics: MetricsStore
) -> None:
    hang = asyncio.Event()
    server = ScriptedServer().add(ollama_token("Hello"), ollama_token(" wor"), hang, ollama_done())
    session = session_for(server.backend(), history, metrics)
    generation = session.generate(None, "Say hello")
    await stop_after_tokens(generation, 2)

    finished = generation.finished
    assert finished is not None
    assert (finished.outcome, finished.text) == (Outcome.STOPPED, "Hello wor")
    assert finished.next_steps == (NextStep.CONTINUE, NextStep.RETRY)
    assert server.closed_early == 1  # the response was closed: the server stops
    stored = history.get_message(generation.assistant_message_id)  # type: ignore[arg-type]
    assert stored is not None
    assert (stored.content, stored.state) == ("Hello wor", MessageState.STOPPED)
    [record] = metrics.query()
    assert record.outcome == "stopped" and record.chunks == 2


async def test_stop_before_any_token_offers_retry(
    history: HistoryStore, metrics: MetricsStore
) -> None:
    server = ScriptedServer().add(asyncio.Event())
    session = session_for(server.backend(), history, metrics)
    generation = session.generate(None, "Hi")
    task = asyncio.create_task(run(generation))
    for _ in range(12_000):  # bounded: a minute at most
        if server.bodies_started:
            break
        await asyncio.sleep(0.005)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    finished = generation.finished
    assert finished is not None and finished.outcome is Outcome.STOPPED and finished.text == ""
    assert finished.next_steps == (NextStep.RETRY, NextStep.EDIT_QUESTION)
    assert server.closed_early == 1
    stored = history.get_message(generation.assistant_message_id)  # type: ignore[arg-type]
    assert stored is not None and stored.state is MessageState.STOPPED


async def test_stop_while_the_question_is_being_stored(
    history: HistoryStore, metrics: MetricsStore
) -> None:
    server = ScriptedServer().add(ollama_token("never sent"), ollama_done())
    session = session_for(server.backend(), history, metrics)
    generation = session.generate(None, "Q")
    task = asyncio.create_task(run(generation))
    await asyncio.sleep(0)  # the task has started storing the question
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    finished = generation.finished
    assert finished is not None and finished.outcome is Outcome.STOPPED
    # The question is kept, and the empty answer is not left "streaming".
    assert (
        finished.message_id is not None and finished.message_id == generation.assistant_message_id
    )
    path = history.active_path(generation.conversation_id)  # type: ignore[arg-type]
    assert [(m.role, m.content, m.state) for m in path] == [
        ("user", "Q", MessageState.COMPLETE),
        ("assistant", "", MessageState.STOPPED),
    ]
    assert server.requests == []


async def test_continue_appends_to_the_same_message(
    history: HistoryStore, metrics: MetricsStore
) -> None:
    server = ScriptedServer().add(ollama_token("Roses are"), asyncio.Event())
    session = session_for(server.backend(), history, metrics)
    first = session.generate(None, "A poem")
    await stop_after_tokens(first, 1)
    message_id = first.assistant_message_id
    assert message_id is not None

    server.add(ollama_token(" red."), ollama_done())
    second = session.continue_message(message_id)
    events = await run(second)

    # Ollama continues a trailing assistant message: the partial answer is sent last.
    assert server.requests[1]["messages"] == [
        {"role": "user", "content": "A poem"},
        {"role": "assistant", "content": "Roses are"},
    ]
    assert text_of(events) == " red."
    finished = events[-1]
    assert (finished.outcome, finished.text, finished.message_id) == (
        Outcome.COMPLETE,
        "Roses are red.",
        message_id,
    )
    assert second.assistant_message_id == message_id
    stored = history.get_message(message_id)
    assert stored is not None
    assert (stored.content, stored.state) == ("Roses are red.", MessageState.COMPLETE)
    assert len(history.siblings(message_id)) == 1  # no new answer, the same one
    # Metrics stitched as two requests of the same message.
    records = metrics.for_messages([message_id])[message_id]
    assert [r.outcome for r in records] == ["stopped", "complete"]
    assert records[1].chunks == 1


async def test_continue_with_no_text_yet_asks_the_question_again(
    history: HistoryStore, metrics: MetricsStore
) -> None:
    server = ScriptedServer("openai").add(asyncio.Event())
    session = session_for(server.backend(), history, metrics)
    first = session.generate(None, "Q")
    task = asyncio.create_task(run(first))
    for _ in range(12_000):  # bounded: a minute at most
        if server.bodies_started:
            break
        await asyncio.sleep(0.005)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    server.add(sse_token("A."), sse_done())
    events = await run(session.continue_message(first.assistant_message_id))  # type: ignore[arg-type]
    assert server.requests[1]["messages"] == [{"role": "user", "content": "Q"}]
    assert events[-1].text == "A." and events[-1].message_id == first.assistant_message_id


async def test_continue_on_openai_without_continue_final_message_uses_a_prompt(
    history: HistoryStore, metrics: MetricsStore
) -> None:
    server = ScriptedServer("openai").add(sse_token("One, two,"), asyncio.Event())
    session = session_for(server.backend(), history, metrics)
    first = session.generate(None, "Count")
    await stop_after_tokens(first, 1)
    server.add(sse_token(" three."), sse_done())
    events = await run(session.continue_message(first.assistant_message_id))  # type: ignore[arg-type]

    body = server.requests[1]
    assert "continue_final_message" not in body
    assert body["messages"][:2] == [
        {"role": "user", "content": "Count"},
        {"role": "assistant", "content": "One, two,"},
    ]
    assert body["messages"][2]["role"] == "user"
    assert body["messages"][2]["content"].startswith("Continue exactly where you stopped")
    assert events[-1].text == "One, two, three."


async def test_continue_that_starts_over_shows_only_the_new_words(
    history: HistoryStore, metrics: MetricsStore
) -> None:
    server = ScriptedServer("openai").add(
        sse_token("The keeper"), sse_token(" lit"), asyncio.Event()
    )
    session = session_for(server.backend(), history, metrics)
    first = session.generate(None, "Story")
    await stop_after_tokens(first, 2)
    # A small model asked to continue writes the answer again, then goes on.
    server.add(sse_token("The keeper"), sse_token(" lit the"), sse_token(" lamp."), sse_done())
    second = session.continue_message(first.assistant_message_id)  # type: ignore[arg-type]
    events = await run(second)
    # (The chunks of one read come as one Token: backends/transport/read_batches.py.)
    assert "".join(e.text for e in events if isinstance(e, Token)) == " the lamp."
    assert events[-1].text == "The keeper lit the lamp."
    stored = history.get_message(first.assistant_message_id)  # type: ignore[arg-type]
    assert stored is not None and stored.content == "The keeper lit the lamp."
    assert stages(events) == [Stage.UNDERSTANDING, Stage.ANSWERING]


async def test_continue_on_vllm_sets_continue_final_message(
    history: HistoryStore, metrics: MetricsStore
) -> None:
    server = ScriptedServer("openai").add(sse_token("A"), asyncio.Event())
    session = session_for(server.backend(), history, metrics)
    session.configure(continue_final_message=True)  # what detection says for vLLM
    first = session.generate(None, "Letters")
    await stop_after_tokens(first, 1)
    server.add(sse_token("B"), sse_done())
    await run(session.continue_message(first.assistant_message_id))  # type: ignore[arg-type]
    body = server.requests[1]
    assert body["continue_final_message"] is True and body["add_generation_prompt"] is False
    assert body["messages"][-1] == {"role": "assistant", "content": "A"}


# ---- failures ----------------------------------------------------------------------------


async def test_reset_after_text_is_interrupted_and_keeps_text(
    history: HistoryStore, metrics: MetricsStore
) -> None:
    async with ResettingServer([ollama_token("Partial"), ollama_token(" answer")]) as server:
        backend = OllamaBackend(server.url)
        try:
            session = session_for(backend, history, metrics)
            generation = session.generate(None, "Q")
            events = await run(generation)
        finally:
            await backend.aclose()

    finished = events[-1]
    assert finished.outcome is Outcome.INTERRUPTED
    assert finished.text == "Partial answer"
    assert finished.next_steps == (NextStep.CONTINUE, NextStep.RETRY)
    assert "interrupted" in finished.error_message
    stored = history.get_message(generation.assistant_message_id)  # type: ignore[arg-type]
    assert stored is not None
    assert (stored.content, stored.state) == ("Partial answer", MessageState.INTERRUPTED)
    assert stored.error_message == finished.error_message


async def test_error_line_mid_stream_is_interrupted(
    history: HistoryStore, metrics: MetricsStore
) -> None:
    server = ScriptedServer().add(ollama_token("Half"), b'{"error": "out of memory"}\n')
    session = session_for(server.backend(), history, metrics)
    finished = (await run(session.generate(None, "Q")))[-1]
    assert finished.outcome is Outcome.INTERRUPTED and finished.text == "Half"
    assert "out of memory" in finished.error_message


async def test_a_stall_after_text_is_interrupted(
    history: HistoryStore, metrics: MetricsStore
) -> None:
    server = ScriptedServer().add(ollama_token("Slow"), asyncio.Event())
    session = session_for(server.backend(), history, metrics, stall_timeout_s=0.1)
    generation = session.generate(None, "Q")
    finished = (await run(generation))[-1]
    assert (finished.outcome, finished.text) == (Outcome.INTERRUPTED, "Slow")
    assert "no token for 0.1 s" in finished.error_message
    assert server.closed_early == 1
    stored = history.get_message(generation.assistant_message_id)  # type: ignore[arg-type]
    assert stored is not None and stored.state is MessageState.INTERRUPTED


async def test_a_wrong_message_id_raises_and_still_finishes(
    history: HistoryStore, metrics: MetricsStore
) -> None:
    server = ScriptedServer().add(ollama_token("A"), ollama_done())
    session = session_for(server.backend(), history, metrics)
    first = session.generate(None, "Q")
    await run(first)
    wrong = session.continue_message(first.user_message_id)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="not assistant"):
        await run(wrong)
    assert wrong.finished is not None and wrong.finished.outcome is Outcome.FAILED
    assert len(server.requests) == 1


async def test_error_before_text_is_failed_with_retry_and_edit(
    history: HistoryStore, metrics: MetricsStore
) -> None:
    server = ScriptedServer().add(status=500, error="the GPU is on fire")
    session = session_for(server.backend(), history, metrics)
    generation = session.generate(None, "Q")
    finished = (await run(generation))[-1]
    assert finished.outcome is Outcome.FAILED and finished.text == ""
    assert finished.next_steps == (NextStep.RETRY, NextStep.EDIT_QUESTION)
    assert "the GPU is on fire" in finished.error_message
    stored = history.get_message(generation.assistant_message_id)  # type: ignore[arg-type]
    assert stored is not None and stored.state is MessageState.FAILED
    assert history.get_message(generation.user_message_id).content == "Q"  # type: ignore[arg-type,union-attr]


async def test_unreachable_server(history: HistoryStore, metrics: MetricsStore) -> None:
    backend = OpenAICompatBackend(f"http://127.0.0.1:{closed_port()}")
    try:
        session = session_for(backend, history, metrics)
        generation = session.generate(None, "Anyone there?")
        events = await run(generation)
    finally:
        await backend.aclose()
    finished = events[-1]
    assert finished.outcome is Outcome.UNREACHABLE
    assert finished.next_steps == (NextStep.RETRY, NextStep.CHOOSE_SERVER, NextStep.USE_LOCAL)
    assert "Can't reach the server" in finished.error_message
    assert stages(events) == [Stage.UNDERSTANDING]
    path = history.active_path(generation.conversation_id)  # type: ignore[arg-type]
    assert [(m.role, m.state) for m in path] == [
        ("user", MessageState.COMPLETE),
        ("assistant", MessageState.FAILED),
    ]
    [record] = metrics.query()
    assert record.outcome == "unreachable"

    # On the local engine itself, "use the local model" is not offered.
    backend = OpenAICompatBackend(f"http://127.0.0.1:{closed_port()}")
    try:
        session = session_for(backend, history, metrics, is_local=True)
        finished = (await run(session.generate(None, "Q")))[-1]
    finally:
        await backend.aclose()
    assert finished.next_steps == (NextStep.RETRY, NextStep.CHOOSE_SERVER)


async def test_retry_after_failure_adds_a_sibling(
    history: HistoryStore, metrics: MetricsStore
) -> None:
    server = (
        ScriptedServer().add(status=503, error="busy").add(ollama_token("Fine."), ollama_done())
    )
    session = session_for(server.backend(), history, metrics)
    failed = session.generate(None, "Q")
    await run(failed)
    retried = session.retry(failed.assistant_message_id)  # type: ignore[arg-type]
    finished = (await run(retried))[-1]
    assert finished.outcome is Outcome.COMPLETE
    assert retried.user_message_id == failed.user_message_id
    siblings = history.siblings(retried.assistant_message_id)  # type: ignore[arg-type]
    assert [(m.state, m.active) for m in siblings] == [
        (MessageState.FAILED, False),
        (MessageState.COMPLETE, True),
    ]
    # The failed empty answer is not sent as context.
    assert server.requests[1]["messages"] == [{"role": "user", "content": "Q"}]


# ---- slow start --------------------------------------------------------------------------


async def test_slow_start_yields_slow_start_then_completes(
    history: HistoryStore, metrics: MetricsStore
) -> None:
    server = ScriptedServer().add(0.25, ollama_token("Late"), ollama_done())
    session = session_for(server.backend(), history, metrics, slow_start_after_s=0.05)
    events = [
        e for e in await run(session.generate(None, "Q")) if type(e).__name__ != "StateChanged"
    ]
    kinds = [type(e).__name__ for e in events]
    assert kinds == ["StageChanged", "SlowStart", "StageChanged", "Token", "Finished"]
    slow = events[1]
    assert isinstance(slow, SlowStart) and slow.waited_s >= 0.05
    assert slow.next_steps == (NextStep.KEEP_WAITING, NextStep.CANCEL)
    assert events[-1].outcome is Outcome.COMPLETE and events[-1].text == "Late"


async def test_cancel_after_slow_start_is_timed_out(
    history: HistoryStore, metrics: MetricsStore
) -> None:
    server = ScriptedServer().add(asyncio.Event())
    session = session_for(server.backend(), history, metrics, slow_start_after_s=0.05)
    generation = session.generate(None, "Q")
    slow = asyncio.Event()

    async def consume() -> None:
        async for event in generation:
            if isinstance(event, SlowStart):
                slow.set()

    task = asyncio.create_task(consume())
    await asyncio.wait_for(slow.wait(), 60)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    finished = generation.finished
    assert finished is not None and finished.outcome is Outcome.TIMED_OUT
    assert finished.next_steps == (NextStep.RETRY, NextStep.EDIT_QUESTION)
    assert server.closed_early == 1
    stored = history.get_message(generation.assistant_message_id)  # type: ignore[arg-type]
    assert stored is not None and stored.state is MessageState.FAILED


# ---- persistence -------------------------------------------------------------------------


async def test_first_token_is_yielded_before_any_store_write(
    history: HistoryStore, metrics: MetricsStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    log: list[str] = []
    append_text = history.append_text

    def spying_append(message_id: int, text: str = "", thinking: str = "") -> None:
        log.append(f"write {text!r}")
        append_text(message_id, text, thinking)

    monkeypatch.setattr(history, "append_text", spying_append)
    server = ScriptedServer().add(
        0.02, ollama_token("First"), 0.05, ollama_token(" second"), ollama_done()
    )
    session = session_for(server.backend(), history, metrics, flush_interval_s=0.0)
    generation = session.generate(None, "Q")
    async for event in generation:
        if isinstance(event, Token):
            stored = history.get_message(generation.assistant_message_id)  # type: ignore[arg-type]
            assert stored is not None
            log.append(f"token {event.text!r} (stored {stored.content!r})")
    assert log[0] == "token 'First' (stored '')"
    assert "write 'First'" in log[1:]
    assert history.get_message(generation.assistant_message_id).content == "First second"  # type: ignore[arg-type,union-attr]


async def test_streaming_text_is_flushed_while_it_streams(
    history: HistoryStore, metrics: MetricsStore
) -> None:
    hang = asyncio.Event()
    server = ScriptedServer().add(
        ollama_token("Saved"), ollama_token(" early"), hang, ollama_done()
    )
    session = session_for(server.backend(), history, metrics, flush_interval_s=0.05)
    generation = session.generate(None, "Q")
    task = asyncio.create_task(run(generation))
    stored = None
    for _ in range(12_000):  # bounded: a minute at most
        await asyncio.sleep(0.005)
        if generation.assistant_message_id is not None:
            stored = history.get_message(generation.assistant_message_id)
            if stored is not None and stored.content == "Saved early":
                break
    assert stored is not None
    assert (stored.content, stored.state) == ("Saved early", MessageState.STREAMING)
    hang.set()
    events = await task
    assert events[-1].outcome is Outcome.COMPLETE


# ---- branches ----------------------------------------------------------------------------


async def test_regenerate_keeps_both_answers(history: HistoryStore, metrics: MetricsStore) -> None:
    server = ScriptedServer()
    server.add(ollama_token("One."), ollama_done()).add(ollama_token("Two."), ollama_done())
    session = session_for(server.backend(), history, metrics)
    first = session.generate(None, "Q")
    await run(first)
    second = session.regenerate(first.assistant_message_id)  # type: ignore[arg-type]
    await run(second)
    siblings = history.siblings(first.assistant_message_id)  # type: ignore[arg-type]
    assert [(m.content, m.active) for m in siblings] == [("One.", False), ("Two.", True)]
    assert server.requests[1]["messages"] == [{"role": "user", "content": "Q"}]


async def test_edit_and_resend_branches(history: HistoryStore, metrics: MetricsStore) -> None:
    server = ScriptedServer()
    for answer in ("A1", "A2", "B2"):
        server.add(ollama_token(answer), ollama_done())
    session = session_for(server.backend(), history, metrics)
    first = session.generate(None, "Q1")
    await run(first)
    second = session.generate(first.conversation_id, "Q2")
    await run(second)
    edited = session.edit_and_resend(second.user_message_id, "Q2 edited")  # type: ignore[arg-type]
    await run(edited)

    assert server.requests[2]["messages"] == [
        {"role": "user", "content": "Q1"},
        {"role": "assistant", "content": "A1"},
        {"role": "user", "content": "Q2 edited"},
    ]
    path = history.active_path(first.conversation_id)  # type: ignore[arg-type]
    assert [m.content for m in path] == ["Q1", "A1", "Q2 edited", "B2"]
    users = history.siblings(edited.user_message_id)  # type: ignore[arg-type]
    assert [m.content for m in users] == ["Q2", "Q2 edited"]


async def test_system_prompt_is_stored_first(history: HistoryStore, metrics: MetricsStore) -> None:
    server = ScriptedServer().add(ollama_token("Arr."), ollama_done())
    session = session_for(server.backend(), history, metrics)
    generation = session.generate(None, "Hi", system="Talk like a pirate.")
    await run(generation)
    assert server.requests[0]["messages"][0] == {"role": "system", "content": "Talk like a pirate."}
    path = history.active_path(generation.conversation_id)  # type: ignore[arg-type]
    assert [m.role for m in path] == ["system", "user", "assistant"]


async def test_without_a_history_the_session_keeps_one_in_memory() -> None:
    server = ScriptedServer().add(ollama_token("x"), asyncio.Event())
    session = ChatSession(server.backend(), MODEL)
    try:
        first = session.generate(None, "Q")
        await stop_after_tokens(first, 1)
        assert first.assistant_message_id is not None
        server.add(ollama_token("y"), ollama_done())
        finished = (await run(session.continue_message(first.assistant_message_id)))[-1]
        assert finished.text == "xy"
    finally:
        session.close()


async def test_cancel_between_events_still_finishes(
    history: HistoryStore, metrics: MetricsStore
) -> None:
    """The ui's task is cancelled while it is busy between two events (not inside the
    generation): `finished` must still be set and the stream closed."""
    hang = asyncio.Event()
    server = ScriptedServer().add(ollama_token("Kept"), hang)
    session = session_for(server.backend(), history, metrics)
    generation = session.generate(None, "Q")
    got_token = asyncio.Event()

    async def consume() -> None:
        async for event in generation:
            if isinstance(event, Token):
                got_token.set()
                await asyncio.sleep(10)  # busy elsewhere when Stop comes

    task = asyncio.create_task(consume())
    await asyncio.wait_for(got_token.wait(), 60)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    finished = generation.finished
    assert finished is not None and (finished.outcome, finished.text) == (Outcome.STOPPED, "Kept")
    for _ in range(12_000):  # the close runs right after; bounded wait for it
        stored = history.get_message(generation.assistant_message_id)  # type: ignore[arg-type]
        if stored is not None and stored.state is MessageState.STOPPED:
            break
        await asyncio.sleep(0.005)
    assert stored is not None and (stored.content, stored.state) == ("Kept", MessageState.STOPPED)
    assert server.closed_early == 1


# ---- the real local engine ---------------------------------------------------------------


@pytest.mark.engine
@pytest.mark.timeout(180)
async def test_stop_and_continue_on_the_local_engine(
    local_engine: Any, history: HistoryStore, metrics: MetricsStore
) -> None:
    backend = OpenAICompatBackend(local_engine.url)
    try:
        session = ChatSession(
            backend,
            local_engine.model,
            history,
            metrics,
            server_name=local_engine.label,
            is_local=True,
        )
        session.configure(options=GenerationOptions(temperature=0.0, seed=7, max_tokens=300))
        first = session.generate(None, "Write a long story about a cat who sails the sea.")
        await stop_after_tokens(first, 5, timeout_s=60)
        stopped = first.finished
        assert stopped is not None and stopped.outcome is Outcome.STOPPED
        assert stopped.text and NextStep.CONTINUE in stopped.next_steps
        message_id = first.assistant_message_id
        assert message_id is not None
        stored = history.get_message(message_id)
        assert stored is not None
        assert (stored.content, stored.state) == (stopped.text, MessageState.STOPPED)

        session.configure(options=GenerationOptions(temperature=0.0, seed=7, max_tokens=16))
        second = session.continue_message(message_id)
        events = await run(second)
    finally:
        await backend.aclose()
    finished = events[-1]
    assert finished.outcome is Outcome.COMPLETE
    added = text_of(events)
    assert added and finished.text == stopped.text + added
    stored = history.get_message(message_id)
    assert stored is not None
    assert (stored.content, stored.state) == (finished.text, MessageState.COMPLETE)
    records = metrics.for_messages([message_id])[message_id]
    assert [r.outcome for r in records] == ["stopped", "complete"]
    assert all(r.ttft_ms is not None and r.ttft_ms > 0 for r in records)
    assert stages(events) == [Stage.UNDERSTANDING, Stage.ANSWERING]


# ---- the latency lab (a real server on loopback, written independently) ----------------

LAB_DIALS = {"ttft": 5, "tpot_ms": 1, "output_tokens": 8, "seed": 1}
KEEP = (NextStep.CONTINUE, NextStep.RETRY)
REDO = (NextStep.RETRY, NextStep.EDIT_QUESTION)


@pytest.mark.parametrize("api", ["ollama", "openai"])
@pytest.mark.parametrize(
    ("fault", "outcome", "next_steps"),
    [
        (None, Outcome.COMPLETE, ()),
        ({"kind": "reset", "after_tokens": 3}, Outcome.INTERRUPTED, KEEP),
        ({"kind": "error_mid_stream", "after_tokens": 3}, Outcome.INTERRUPTED, KEEP),
        ({"kind": "stall", "after_tokens": 3, "seconds": 3}, Outcome.INTERRUPTED, KEEP),
        ({"kind": "http_error", "status": 500}, Outcome.FAILED, REDO),
        ({"kind": "unknown_model"}, Outcome.FAILED, REDO),
    ],
    ids=["complete", "reset", "error_mid_stream", "stall", "http_error", "unknown_model"],
)
async def test_lab_faults(
    api: str,
    fault: dict[str, Any] | None,
    outcome: Outcome,
    next_steps: tuple[NextStep, ...],
    history: HistoryStore,
    metrics: MetricsStore,
) -> None:
    lab = LabServer(scenario_from_dict({**LAB_DIALS, **({"fault": fault} if fault else {})}))
    url = await lab.start()
    backend = backend_for(url, api)
    try:
        session = ChatSession(
            backend,
            lab.scenario.model,
            history,
            metrics,
            settings=SessionSettings(stall_timeout_s=0.3),
        )
        generation = session.generate(None, "Tell me something")
        events = await run(generation)
    finally:
        await backend.aclose()
        await lab.stop()
    finished = events[-1]
    assert (finished.outcome, finished.next_steps) == (outcome, next_steps)
    assert finished.text == text_of(events)
    assert bool(finished.text) == (outcome is not Outcome.FAILED)
    assert bool(finished.error_message) == (outcome is not Outcome.COMPLETE)
    stored = history.get_message(generation.assistant_message_id)  # type: ignore[arg-type]
    assert stored is not None
    assert (stored.content, stored.state) == (finished.text, MessageState(outcome.value))


# ---- the prompt budget ---------------------------------------------------------------------


async def test_the_oldest_turns_are_dropped_to_fit_the_prompt_budget(
    history: HistoryStore, metrics: MetricsStore
) -> None:
    server = ScriptedServer()
    for answer in ("A1" * 40, "A2" * 40, "A3", " goes on", "A3 again"):
        server.add(ollama_token(answer), ollama_done())
    session = session_for(server.backend(), history, metrics)
    first = session.generate(None, "Q1 " * 40, system="Be brief.")
    await run(first)
    second = session.generate(first.conversation_id, "Q2 " * 40)
    await run(second)

    # Room for the system prompt, the second turn and the new question, not the first.
    session.configure(prompt_budget=120)
    third = session.generate(first.conversation_id, "Q3")
    await run(third)
    sent = [m["content"][:2] for m in server.requests[2]["messages"]]
    assert sent == ["Be", "Q2", "A2", "Q3"]
    assert third.fitted is not None and third.fitted.dropped == 2
    assert third.cut_before_message_id == second.user_message_id

    # A Continue keeps its question and the partial answer whatever the budget.
    session.configure(prompt_budget=10)
    await run(session.continue_message(third.assistant_message_id))  # type: ignore[arg-type]
    sent = [m["content"][:2] for m in server.requests[3]["messages"]]
    assert sent == ["Be", "Q3", "A3"]

    session.configure(prompt_budget=None)  # no known limit: everything is sent
    await run(session.regenerate(third.assistant_message_id))  # type: ignore[arg-type]
    assert len(server.requests[4]["messages"]) == 6
