"""How a stopped answer is continued on each kind of server."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest

from client.backends import OllamaBackend, OpenAICompatBackend
from client.backends.apis.ollama import backend as ollama
from client.backends.apis.openai import backend as openai_compat
from client.backends.base import Backend
from client.backends.kinds.llamacpp import LLAMACPP
from client.core.conversation import ChatMessage, ChatRequest, GenerationOptions
from client.core.events import Token, TokenKind
from client.services.chat.generation import Generation
from client.services.chat.session import ChatSession
from client.services.chat.session_events import Finished, Outcome
from client.services.planning.continuation import (
    CONTINUATION_PROMPT,
    ContinueMode,
    RepeatedStartFilter,
    continue_mode,
    prompted_answer_filter,
)
from client.services.planning.planner import PlanInput, PlanSettings, Route, plan_request
from client.store.conversations.history import HistoryStore
from client.store.db import Database
from client.store.metrics_store import MetricsStore


def test_mode_per_server() -> None:
    assert continue_mode(True) is ContinueMode.TRAILING_ASSISTANT  # Ollama, llama-server
    assert continue_mode(True, True) is ContinueMode.TRAILING_ASSISTANT
    assert continue_mode(False, True) is ContinueMode.CONTINUE_FINAL_MESSAGE  # vLLM
    assert continue_mode(False, False) is ContinueMode.PROMPT
    assert continue_mode(False) is ContinueMode.PROMPT


def continued(
    backend: Backend, options: GenerationOptions | None = None, *, is_local: bool = False
) -> ChatRequest:
    """The request that continues "One, two," on this backend's server."""
    settings = PlanSettings(system_prompt="Be brief.", options=options or GenerationOptions())
    route = Route(backend, "m", is_local=is_local)
    given = PlanInput([], "Count to five", settings, [route], continuing="One, two,")
    return plan_request(given).request()


def test_what_a_backend_says_about_continuing() -> None:
    other = OpenAICompatBackend("http://127.0.0.1:9")
    assert not other.supports_continue_final_message and not other.continues_trailing_assistant
    vllm = OpenAICompatBackend("http://127.0.0.1:9", supports_continue_final_message=True)
    assert vllm.supports_continue_final_message and not vllm.continues_trailing_assistant
    ollama_server = OllamaBackend("http://127.0.0.1:9")
    assert ollama_server.continues_trailing_assistant
    assert not ollama_server.supports_continue_final_message


TRAILING = [
    {"role": "system", "content": "Be brief."},
    {"role": "user", "content": "Count to five"},
    {"role": "assistant", "content": "One, two,"},
]


def test_ollama_continues_the_trailing_assistant_message() -> None:
    body = ollama.chat_body(continued(OllamaBackend("http://127.0.0.1:9")))
    assert body["messages"] == TRAILING
    assert "continue_final_message" not in body


def test_llama_server_continues_the_trailing_assistant_message() -> None:
    llama_server = OpenAICompatBackend("http://127.0.0.1:9")
    llama_server.kind = LLAMACPP  # it said so: a `Server: llama.cpp` header, owned_by
    request = continued(llama_server)
    assert not request.continue_final_message
    body = openai_compat.chat_body(request)
    assert body["messages"] == TRAILING  # no continuation prompt after it
    assert "continue_final_message" not in body and "add_generation_prompt" not in body


def test_the_local_engine_continues_before_it_has_said_what_it_is() -> None:
    # A reopened conversation's first request may be a Continue: the engine is
    # llama-server whatever its backend has seen yet.
    fresh = OpenAICompatBackend("http://127.0.0.1:9")
    assert not fresh.continues_trailing_assistant
    body = openai_compat.chat_body(continued(fresh, is_local=True))
    assert body["messages"] == TRAILING


def test_vllm_gets_continue_final_message() -> None:
    vllm = OpenAICompatBackend("http://127.0.0.1:9", supports_continue_final_message=True)
    request = continued(vllm)
    assert request.continue_final_message
    body = openai_compat.chat_body(request)
    assert body["continue_final_message"] is True
    assert body["add_generation_prompt"] is False
    assert body["messages"][-1] == {"role": "assistant", "content": "One, two,"}


def test_other_openai_servers_get_a_continuation_prompt_after_the_partial_answer() -> None:
    options = GenerationOptions(temperature=0.0, max_tokens=50)
    request = continued(OpenAICompatBackend("http://127.0.0.1:9"), options)
    assert not request.continue_final_message
    assert request.messages[-2:] == [
        ChatMessage("assistant", "One, two,"),
        ChatMessage("user", CONTINUATION_PROMPT),
    ]
    assert CONTINUATION_PROMPT.startswith("Continue exactly where you stopped")
    body = openai_compat.chat_body(request)
    assert "continue_final_message" not in body
    assert (body["temperature"], body["max_tokens"]) == (0.0, 50)


def feed_all(partial: str, chunks: list[str]) -> list[str]:
    keep = RepeatedStartFilter(partial)
    return [keep.feed(chunk) for chunk in chunks]


def test_a_continuation_that_starts_over_is_dropped_until_it_goes_on() -> None:
    shown = feed_all("The keeper lit", ["The", " keeper", " lit", " the lamp", "."])
    assert shown == ["", "", "", " the lamp", "."]


def test_a_repeat_split_inside_the_last_word_is_cut_exactly() -> None:
    shown = feed_all("The keeper lit", ["The kee", "per lit the", " lamp"])
    assert "".join(shown) == " the lamp"


def test_a_real_continuation_passes_at_once() -> None:
    assert feed_all("The keeper lit", [" the lamp", "."]) == [" the lamp", "."]


def test_a_continuation_that_only_looks_like_a_repeat_is_released_whole() -> None:
    # "The k" could be the start of a repeat; "The kettle" is not: nothing is lost.
    shown = feed_all("The keeper lit", ["The k", "ettle", " boiled"])
    assert shown == ["", "The kettle", " boiled"]


def test_nothing_to_repeat() -> None:
    assert feed_all("", ["Hello"]) == ["Hello"]


def prompted(partial: str, chunks: list[str]) -> str:
    shown = prompted_answer_filter(partial)
    return partial + "".join(shown(chunk) for chunk in chunks)


def test_a_prompted_continuation_that_starts_a_new_word_is_two_words() -> None:
    assert prompted("the storms would befall", ["Lighthouse", " keepers"]) == (
        "the storms would befall Lighthouse keepers"
    )
    assert prompted("It was dark.", ["The", " keeper"]) == "It was dark. The keeper"


def test_a_prompted_continuation_is_otherwise_joined_as_written() -> None:
    assert prompted("the lightho", ["use"]) == "the lighthouse"  # a word cut in two
    assert prompted("It was", [" dark"]) == "It was dark"
    assert prompted("A list:\n", ["One"]) == "A list:\nOne"
    assert prompted("He said (", ["Yes"]) == "He said (Yes"
    # The join looks at the first text shown: after a dropped restart, at its rest.
    assert prompted("The keeper lit", ["The keeper", " lit the", " Lamp"]) == (
        "The keeper lit the Lamp"
    )


# ---- the real local engine ---------------------------------------------------------------


NAME = "Zorvath"  # SmolLM2 writes it in pieces: " Z", "or", "v", "ath"


def cut_in_the_name(text: str) -> str:
    """The start of NAME the text ends with, when it stops inside the name; else ""."""
    last_word = text.rsplit(None, 1)[-1] if text.strip() else ""
    return last_word if last_word and NAME.startswith(last_word) and last_word != NAME else ""


async def stop_mid_word(generation: Generation) -> str:
    """Stop the answer the moment it ends inside NAME; the text so far."""
    text = ""
    async for event in generation:
        if isinstance(event, Token) and event.kind is TokenKind.ANSWER:
            text += event.text
            if cut_in_the_name(text):
                break
    await generation.aclose()  # Stop between two tokens: closed, saved as stopped
    assert generation.finished is not None and generation.finished.outcome is Outcome.STOPPED
    return text


@pytest.mark.engine
@pytest.mark.timeout(180)
async def test_continue_on_the_local_engine_is_the_models_own_join(
    local_engine: Any, db: Database
) -> None:
    history = HistoryStore(db)
    backend = OpenAICompatBackend(local_engine.url)
    bodies: list[dict[str, Any]] = []

    async def keep_body(request: httpx.Request) -> None:
        if request.url.path.endswith("/chat/completions"):
            bodies.append(json.loads(request.content))

    backend.client.event_hooks["request"].append(keep_body)
    # Not marked local: the backend learns it is llama-server from the answers.
    session = ChatSession(backend, local_engine.model, history, MetricsStore(db))
    session.configure(options=GenerationOptions(temperature=0.0, seed=7, max_tokens=300))
    try:
        question = f"Write a long story about a lighthouse keeper named {NAME}."
        first = session.generate(None, question)
        partial = await stop_mid_word(first)
        message_id = first.assistant_message_id
        assert message_id is not None
        session.configure(options=GenerationOptions(temperature=0.0, seed=7, max_tokens=16))
        second = session.continue_message(message_id)
        events = [event async for event in second]
    finally:
        await backend.aclose()
    finished = events[-1]
    assert isinstance(finished, Finished) and finished.outcome is Outcome.COMPLETE
    added = "".join(e.text for e in events if isinstance(e, Token) and e.kind is TokenKind.ANSWER)
    # Asked by the partial answer as the final assistant message, no continuation prompt.
    sent = bodies[-1]["messages"]
    assert sent[-1] == {"role": "assistant", "content": partial}
    assert all(CONTINUATION_PROMPT not in m["content"] for m in sent)
    assert "continue_final_message" not in bodies[-1]
    # One text: the model finishes the word it was stopped in ("Zor" + "vath"), no
    # space, no capital, no new start; stored as the stopped part and what came next.
    fragment = cut_in_the_name(partial)
    assert added.startswith(NAME[len(fragment) :]), (partial[-30:], added)
    stored = history.get_message(message_id)
    assert stored is not None and stored.content == partial + added == finished.text
