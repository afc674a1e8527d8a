"""A model the warmer calls warm is read again as a user's request goes out: a server
restarted since (Ollama's /api/ps no longer lists it, the local engine sleeps) makes
that request's wait a load, shown as loading; a model still loaded stays warm."""

from __future__ import annotations

from typing import Any

from client.backends.apis.ollama.backend import OllamaBackend
from client.core.prediction import ModelState
from client.services.servers.model_status import ServerPolicy
from client.services.warming.recheck import still_loaded
from client.services.warming.warming import KeepAliveWarmer
from tests.services.warming.test_warming import MODEL, make_server, until

__all__ = ["make_server"]  # the fixture, for pytest


async def test_ollama_restarted_cold_reads_loading_for_the_request(make_server: Any) -> None:
    server = await make_server("ollama", load_s=0.3)
    backend = OllamaBackend(server.url)
    warmer = KeepAliveWarmer(backend, MODEL)
    await warmer.warm_now("app start")
    assert warmer.state is ModelState.WARM and warmer.seconds_left is not None
    server.until = None  # restarted: its memory is empty
    assert warmer.user_request_started() is False  # as far as it knew: warm
    await until(lambda: warmer.state is ModelState.LOADING)
    warmer.first_token_received()
    assert warmer.state is ModelState.WARM
    warmer.user_request_finished(ok=True)
    await warmer.aclose()
    await backend.aclose()


async def test_a_model_still_loaded_stays_warm(make_server: Any) -> None:
    server = await make_server("ollama")
    backend = OllamaBackend(server.url)
    warmer = KeepAliveWarmer(backend, MODEL)
    await warmer.warm_now("app start")
    asked = len(server.requests)
    warmer.user_request_started()
    await until(lambda: len(server.requests) > asked)  # it asked /api/ps again
    assert server.requests[-1].path == "/api/ps"
    assert warmer.state is ModelState.WARM
    warmer.user_request_finished(ok=True)
    await warmer.aclose()
    await backend.aclose()


class SleepyEngine:
    running = True
    sleep_idle_s = 60

    def __init__(self, asleep: bool | None) -> None:
        self.asleep = asleep

    async def is_sleeping(self) -> bool | None:
        return self.asleep


async def test_the_local_engine_is_asked_whether_it_sleeps() -> None:
    assert await still_loaded(None, None, MODEL, SleepyEngine(True)) is False  # type: ignore[arg-type]
    assert await still_loaded(None, None, MODEL, SleepyEngine(False)) is True  # type: ignore[arg-type]
    assert await still_loaded(None, None, MODEL, SleepyEngine(None)) is None  # type: ignore[arg-type]
    assert await still_loaded(ServerPolicy.ONE_TOKEN, None, MODEL, None) is None
