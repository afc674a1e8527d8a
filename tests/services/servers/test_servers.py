"""Server choices and the pool of long-lived backends."""

from __future__ import annotations

import asyncio
import threading

import pytest

from client.backends import Backend, ChatStream, ModelInfo, OllamaBackend, OpenAICompatBackend
from client.backends.stream import StreamTimeouts
from client.core.conversation import ChatRequest
from client.services.servers.servers import (
    LOCAL_ENGINE_LABEL,
    BackendPool,
    ServerChoice,
    default_choice,
    local_engine_choice,
    server_choices,
)

OLLAMA = ServerChoice("Ollama", "http://127.0.0.1:11434", "ollama")
VLLM = ServerChoice("vLLM box", "127.0.0.1:8000/", "openai", api_key_name="vLLM box")


class FakeBackend:
    """Stands in for a real backend where only identity, key and closing matter."""

    def __init__(self, url: str, api: str, api_key: str | None) -> None:
        self.base_url, self.api, self.api_key = url, api, api_key
        self.closed = 0

    def chat(self, request: ChatRequest, timeouts: StreamTimeouts | None = None) -> ChatStream:
        raise NotImplementedError

    async def list_models(self) -> list[ModelInfo]:
        return []

    async def aclose(self) -> None:
        self.closed += 1


def fake(backend: Backend) -> FakeBackend:
    assert isinstance(backend, FakeBackend)
    return backend


class Factory:
    def __init__(self, fail_first: bool = False, delay_s: float = 0.0) -> None:
        self.made: list[Backend] = []
        self.fail_first = fail_first
        self.delay_s = delay_s

    async def __call__(self, url: str, api: str, api_key: str | None) -> Backend:
        await asyncio.sleep(self.delay_s)
        if self.fail_first:
            self.fail_first = False
            raise ConnectionError("not up yet")
        backend = FakeBackend(url, api, api_key)
        self.made.append(backend)
        return backend


def test_the_same_server_is_listed_once_saved_first() -> None:
    detected = [
        ServerChoice("Ollama (detected)", "http://127.0.0.1:11434/", "ollama"),
        ServerChoice("llama.cpp", "http://127.0.0.1:8080", "openai"),
    ]
    choices = server_choices([OLLAMA], detected)
    assert [c.name for c in choices] == ["Ollama", "llama.cpp"]
    # The same URL speaking another API is another server.
    other_api = ServerChoice("Ollama /v1", "http://127.0.0.1:11434", "openai")
    assert len(server_choices([OLLAMA], [other_api])) == 2


def test_default_choice() -> None:
    choices = [OLLAMA, VLLM]
    assert default_choice(choices) is OLLAMA
    assert default_choice(choices, ("http://127.0.0.1:8000", "openai")) is VLLM
    assert default_choice(choices, ("http://gone:1", "openai")) is OLLAMA
    assert default_choice([]) is None  # nothing saved or detected: start the local engine


def test_local_engine_choice() -> None:
    local = local_engine_choice("http://127.0.0.1:40001")
    assert (local.name, local.api, local.is_local) == (LOCAL_ENGINE_LABEL, "openai", True)
    assert "SmolLM2-135M" in local.name


async def test_one_backend_per_server_even_when_asked_at_once() -> None:
    factory = Factory(delay_s=0.01)
    pool = BackendPool(key_lookup=None, factory=factory)
    first, second = await asyncio.gather(pool.backend(OLLAMA), pool.backend(OLLAMA))
    same_server = ServerChoice("renamed", "http://127.0.0.1:11434/", "ollama")
    assert first is second is await pool.backend(same_server)
    other = await pool.backend(VLLM)
    assert other is not first
    assert len(factory.made) == 2 and len(pool) == 2
    assert fake(other).base_url == "http://127.0.0.1:8000"
    await pool.aclose()
    assert [fake(b).closed for b in factory.made] == [1, 1]
    assert len(pool) == 0


async def test_api_key_is_looked_up_off_the_loop_and_passed_once() -> None:
    looked_up: list[tuple[str, bool]] = []

    def lookup(account: str) -> str:
        looked_up.append((account, threading.current_thread() is threading.main_thread()))
        return "sk-secret"

    factory = Factory()
    pool = BackendPool(key_lookup=lookup, factory=factory)
    backend = await pool.backend(VLLM)
    await pool.backend(VLLM)
    assert fake(backend).api_key == "sk-secret"
    assert looked_up == [("vLLM box", False)]  # once, and not on the loop's thread
    await pool.aclose()


async def test_a_changed_key_makes_a_new_backend_and_the_old_one_is_closed_on_quit() -> None:
    factory = Factory()
    pool = BackendPool(key_lookup=lambda account: f"key for {account}", factory=factory)
    old = fake(await pool.backend(VLLM))
    new = fake(
        await pool.backend(ServerChoice("vLLM box", VLLM.url, "openai", api_key_name="other"))
    )
    assert new is not old and new.api_key == "key for other"
    assert old.closed == 0  # a request may still be using it
    await pool.aclose()
    assert (old.closed, new.closed) == (1, 1)


async def test_a_failure_is_not_remembered() -> None:
    factory = Factory(fail_first=True)
    pool = BackendPool(key_lookup=None, factory=factory)
    with pytest.raises(ConnectionError):
        await pool.backend(OLLAMA)
    assert OLLAMA not in pool
    backend = fake(await pool.backend(OLLAMA))
    assert OLLAMA in pool and factory.made == [backend]
    await pool.forget(OLLAMA)
    assert backend.closed == 1 and OLLAMA not in pool
    await pool.aclose()


async def test_real_backends_and_their_clients_are_closed() -> None:
    pool = BackendPool(key_lookup=None)  # the real make_backend (api known: no I/O)
    ollama = await pool.backend(OLLAMA)
    openai = await pool.backend(ServerChoice("local", "http://127.0.0.1:8080", "openai"))
    assert isinstance(ollama, OllamaBackend) and isinstance(openai, OpenAICompatBackend)
    assert ollama is await pool.backend(OLLAMA)
    clients = [ollama.client, openai.client]
    assert not any(c.is_closed for c in clients)
    await pool.aclose()
    assert all(c.is_closed for c in clients)


def test_the_keep_alive_choice_becomes_the_engines_unload_after_idle() -> None:
    from client.services.servers.servers import sleep_idle_for, with_sleep_idle

    assert [sleep_idle_for(v) for v in ("5m", "30m", "1h", None, -1, 2)] == [
        300,
        1800,
        3600,
        -1,  # "let the server decide": the engine's own default, never
        -1,  # forever
        2,
    ]
    from client.backends.engine.local_engine import LocalEngine

    engine = LocalEngine()
    assert with_sleep_idle(engine, "5m") is False  # not running: taken at its start
    assert engine.settings.sleep_idle_s == 300
    assert with_sleep_idle(object(), "5m") is False  # a stand-in is left alone
