"""Prefix warming against scripted servers: the warm-up carries the conversation the
next request will start with, goes out only when the server's cache lacks it, and
never holds up the user's request."""

from __future__ import annotations

import time
from typing import Any

from client.backends import OllamaBackend, OpenAICompatBackend
from client.core.conversation import ChatMessage, ChatRequest
from client.core.prediction import ModelState
from client.core.tools import ToolSpec
from client.services.servers.model_status import ServerPolicy
from client.services.warming.warming import WARM_PROMPT, KeepAliveWarmer
from tests.services.warming.test_warming import MODEL, FakeEngine, make_server, until

__all__ = ["make_server"]  # the fixture, shared with test_warming

SYSTEM = ChatMessage("system", "Answer briefly.")
FIRST = [
    SYSTEM,
    ChatMessage("user", "What is a tide?"),
    ChatMessage("assistant", "The rise and fall of the sea."),
]
MORE = [*FIRST, ChatMessage("user", "Why?"), ChatMessage("assistant", "The moon pulls it.")]
OTHER = [SYSTEM, ChatMessage("user", "Name a fish."), ChatMessage("assistant", "Cod.")]


TOOLS = (ToolSpec("add", "Add two numbers."),)


class Prefix:
    """A prefix provider whose conversation (and tools) the test changes."""

    def __init__(self, messages: list[ChatMessage] | None) -> None:
        self.messages = messages
        self.tools: tuple[ToolSpec, ...] = ()
        self.calls = 0

    def __call__(self) -> list[ChatMessage] | ChatRequest | None:
        self.calls += 1
        if self.tools and self.messages is not None:
            return ChatRequest(MODEL, list(self.messages), tools=self.tools)
        return self.messages


def sent_messages(server: Any, index: int = -1) -> list[ChatMessage]:
    body = server.posts("/v1/chat/completions")[index].body or {}
    return [ChatMessage(m["role"], m["content"]) for m in body["messages"]]


def sent_tools(server: Any) -> list[str]:
    body = server.posts("/v1/chat/completions")[-1].body or {}
    return [tool["function"]["name"] for tool in body.get("tools", [])]


def warm_ups(server: Any) -> int:
    return len(server.posts("/v1/chat/completions"))


async def user_request(backend: Any, messages: list[ChatMessage]) -> None:
    async with backend.chat(ChatRequest(MODEL, messages)) as stream:
        async for _event in stream:
            pass


async def test_warm_up_carries_the_conversation_and_one_token(make_server: Any) -> None:
    server = await make_server("openai", owned_by="llamacpp")
    backend = OpenAICompatBackend(server.url)
    warmer = KeepAliveWarmer(backend, MODEL)
    warmer.prefix_provider = Prefix(FIRST)
    await warmer.warm_now("app start")
    assert warmer.policy is ServerPolicy.KEEPS_LOADED and warmer.state is ModelState.WARM
    body = server.posts("/v1/chat/completions")[0].body or {}
    assert body["max_tokens"] == 1
    # The prefix exactly as the request will send it, then a short question.
    assert sent_messages(server) == [*FIRST, ChatMessage("user", WARM_PROMPT)]
    assert warmer.holds(FIRST) and warmer.holds(FIRST[:1]) and not warmer.holds(MORE)
    await warmer.aclose()
    await backend.aclose()


async def _warmed_at_start(
    make_server: Any,
) -> tuple[Any, OpenAICompatBackend, KeepAliveWarmer, Prefix]:
    """A llama.cpp-like server whose warmer warmed FIRST at the app's start."""
    server = await make_server("openai", owned_by="llamacpp")
    backend = OpenAICompatBackend(server.url)
    warmer = KeepAliveWarmer(backend, MODEL)
    prefix = Prefix(FIRST)
    warmer.prefix_provider = prefix
    await warmer.warm_now("app start")
    return server, backend, warmer, prefix


async def test_warm_up_is_sent_only_when_the_prefix_changed(make_server: Any) -> None:
    server, backend, warmer, prefix = await _warmed_at_start(make_server)
    for _key in range(20):  # typing on in the same conversation: nothing sent
        assert warmer.warm("typing") is None
    assert warm_ups(server) == 1 and prefix.calls >= 20

    prefix.messages = OTHER  # another conversation opened
    await warmer.warm_now("conversation opened")
    assert warm_ups(server) == 2 and sent_messages(server)[:-1] == OTHER
    assert warmer.warm("typing") is None

    prefix.messages = [SYSTEM]  # a new conversation: its start is in the cache already
    assert warmer.warm("conversation opened") is None
    prefix.messages = []
    assert warmer.warm("typing") is None
    prefix.messages = None  # not known: nothing to warm on a server that stays loaded
    assert warmer.warm("typing") is None
    assert warm_ups(server) == 2
    await warmer.aclose()
    await backend.aclose()


async def test_the_users_own_request_primes_the_cache(make_server: Any) -> None:
    server, backend, warmer, prefix = await _warmed_at_start(make_server)
    prompt = [*FIRST, ChatMessage("user", "Why?")]
    warmer.user_request_started()
    await user_request(backend, prompt)
    warmer.user_request_finished(ok=True, prompt=prompt)
    # The next question follows the answer: prompt + answer is in the cache.
    prefix.messages = MORE
    assert warmer.warm("typing") is None
    # A budget cut that drops the oldest turn changes the start: warm it.
    prefix.messages = [SYSTEM, *MORE[3:]]
    await warmer.warm_now("typing")
    assert warm_ups(server) == 3 and sent_messages(server)[:-1] == [SYSTEM, *MORE[3:]]
    # A failed request leaves the cache unknown: the next prefix is warmed.
    warmer.user_request_started()
    warmer.user_request_finished(ok=False, prompt=None)
    await warmer.warm_now("typing")
    assert warm_ups(server) == 4
    await warmer.aclose()
    await backend.aclose()


async def test_switching_the_tools_warms_the_prefix_again(make_server: Any) -> None:
    """Chat templates put the tools' definitions before the conversation: the same
    messages after other tools are another prompt start."""
    server, backend, warmer, prefix = await _warmed_at_start(make_server)
    prefix.tools = TOOLS  # the conversation's tools turned on
    await warmer.warm_now("typing")
    assert warm_ups(server) == 2 and sent_tools(server) == ["add"]
    assert warmer.holds(FIRST, TOOLS) and not warmer.holds(FIRST)
    assert warmer.warm("typing") is None
    prefix.tools = ()  # and off again
    await warmer.warm_now("typing")
    assert warm_ups(server) == 3 and sent_tools(server) == []
    # The user's request with tools: its prompt is cached with them.
    prompt = [*FIRST, ChatMessage("user", "Why?")]
    warmer.user_request_started()
    await user_request(backend, prompt)
    warmer.user_request_finished(ok=True, prompt=prompt, tools=TOOLS)
    prefix.messages, prefix.tools = MORE, TOOLS
    assert warmer.warm("typing") is None
    prefix.tools = ()
    await warmer.warm_now("typing")
    assert warm_ups(server) == 5 and sent_messages(server)[:-1] == MORE
    await warmer.aclose()
    await backend.aclose()


async def test_user_request_cancels_a_prefix_warm_up(make_server: Any) -> None:
    server = await make_server("openai", owned_by="llamacpp", ttft_s=0.8)
    backend = OpenAICompatBackend(server.url)
    warmer = KeepAliveWarmer(backend, MODEL, policy=ServerPolicy.KEEPS_LOADED)
    prefix = Prefix([])
    warmer.prefix_provider = prefix
    await warmer.warm_now("app start")
    prefix.messages = FIRST
    assert warmer.warm("conversation opened") is not None
    await until(lambda: warm_ups(server) == 2)
    sent_ns = time.perf_counter_ns()
    assert warmer.user_request_started() is False  # warm: no LOADING stage
    assert warmer.warm("typing") is None  # nothing new while the user's request runs
    prompt = [*FIRST, ChatMessage("user", "Why?")]
    server.ttft_s = 0.01
    await user_request(backend, prompt)
    warmer.user_request_finished(ok=True, prompt=prompt)
    warm_up, user = server.posts("/v1/chat/completions")[1:]
    assert warm_up.left_ns is not None and (warm_up.left_ns - sent_ns) / 1e6 < 100
    assert (user.at_ns - sent_ns) / 1e6 < 50
    assert warm_ups(server) == 3
    await warmer.aclose()
    await backend.aclose()


async def test_a_restarted_engine_gets_the_prefix_again(make_server: Any) -> None:
    engine = FakeEngine(make_server)
    placeholder = OpenAICompatBackend("http://127.0.0.1:9")
    warmer = KeepAliveWarmer(placeholder, MODEL, engine=engine)
    warmer.prefix_provider = Prefix(FIRST)
    await warmer.warm_now("app start")
    assert engine.server is not None and sent_messages(engine.server)[:-1] == FIRST
    engine.running = False  # a new process: an empty cache
    await warmer.warm_now("typing")
    assert engine.starts == 2 and sent_messages(engine.server)[:-1] == FIRST
    await warmer.aclose()
    await placeholder.aclose()


async def test_one_token_servers_warm_with_the_prefix_only_when_cold(make_server: Any) -> None:
    server = await make_server("openai")  # unknown server: may unload on its own
    backend = OpenAICompatBackend(server.url)
    warmer = KeepAliveWarmer(backend, MODEL)
    prefix = Prefix(FIRST)
    warmer.prefix_provider = prefix
    await warmer.warm_now("typing")
    assert warmer.policy is ServerPolicy.ONE_TOKEN
    assert sent_messages(server) == [*FIRST, ChatMessage("user", WARM_PROMPT)]
    prefix.messages = OTHER  # its cache is not known to be worth a request
    assert warmer.warm("conversation opened") is None
    await warmer.aclose()
    await backend.aclose()


async def test_ollama_keeps_its_documented_load_request(make_server: Any) -> None:
    server = await make_server("ollama")
    backend = OllamaBackend(server.url)
    warmer = KeepAliveWarmer(backend, MODEL)
    prefix = Prefix(FIRST)
    warmer.prefix_provider = prefix
    await warmer.warm_now("app start")
    load = server.posts("/api/chat")[0].body or {}
    assert load["messages"] == [] and load["keep_alive"] == "30m"
    prefix.messages = OTHER
    assert warmer.warm("conversation opened") is None
    assert len(server.posts("/api/chat")) == 1
    await warmer.aclose()
    await backend.aclose()


async def test_a_failing_prefix_provider_still_warms(make_server: Any) -> None:
    server = await make_server("openai", owned_by="vllm")
    backend = OpenAICompatBackend(server.url)
    warmer = KeepAliveWarmer(backend, MODEL)

    def broken() -> list[ChatMessage]:
        raise RuntimeError("database is locked")

    warmer.prefix_provider = broken
    await warmer.warm_now("app start")
    assert warmer.state is ModelState.WARM
    assert sent_messages(server) == [ChatMessage("user", WARM_PROMPT)]
    assert warmer.warm("typing") is None
    await warmer.aclose()
    await backend.aclose()
