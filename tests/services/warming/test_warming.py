"""KeepAliveWarmer against scripted Ollama and OpenAI servers (aiohttp, same process:
the server's perf_counter_ns stamps compare with the client's timeline)."""

from __future__ import annotations

import asyncio
import itertools
import json
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from aiohttp import web

from client.backends import OllamaBackend, OpenAICompatBackend
from client.core.conversation import ChatMessage, ChatRequest
from client.core.prediction import ModelState
from client.services.servers.model_status import (
    ModelStatus,
    ServerPolicy,
    WarmSettings,
    describe_policy,
    parse_duration,
    unload_time,
)
from client.services.warming.warming import KeepAliveWarmer

MODEL = "tiny"


@dataclass
class Seen:
    method: str
    path: str
    body: dict[str, Any] | None
    at_ns: int  # perf_counter_ns when the request arrived
    at: float  # time.monotonic() when it arrived
    left_ns: int | None = None  # the client closed the connection before the end


class ScriptedServer:
    """An Ollama- or OpenAI-speaking server with a model that loads, expires and
    answers on a script. Loads are shared and outlive a client that leaves (as in
    Ollama's scheduler)."""

    def __init__(
        self,
        api: str,
        load_s: float = 0.0,
        loaded: bool = False,
        ttft_s: float = 0.01,
        owned_by: str = "someone",
        default_keep_alive_s: float = 300.0,
        has_ps: bool = True,
    ) -> None:
        self.api = api
        self.has_ps = has_ps
        self.load_s = load_s
        self.ttft_s = ttft_s
        self.owned_by = owned_by
        self.default_keep_alive_s = default_keep_alive_s
        self.until: float | None = time.monotonic() + 3600 if loaded else None
        self.loading: asyncio.Future[None] | None = None
        self.loaded_ns: int | None = None  # perf_counter_ns when the last load ended
        self.requests: list[Seen] = []
        self.loads = 0
        self._runner: web.AppRunner | None = None
        self.url = ""

    # -- model lifetime ------------------------------------------------------
    def is_loaded(self) -> bool:
        return self.until is not None and time.monotonic() < self.until

    async def ensure_loaded(self) -> float:
        """Seconds this request waited for a load."""
        if self.is_loaded():
            return 0.0
        if self.loading is None or self.loading.done():
            self.loads += 1
            self.loading = asyncio.ensure_future(asyncio.sleep(self.load_s))
            self.loading.add_done_callback(self._loaded)
        started = time.monotonic()
        await asyncio.shield(self.loading)
        if not self.is_loaded():
            self.until = time.monotonic() + self.default_keep_alive_s
        return time.monotonic() - started

    def _loaded(self, _load: asyncio.Future[None]) -> None:
        self.loaded_ns = time.perf_counter_ns()

    def keep(self, keep_alive: Any) -> None:
        seconds = self.default_keep_alive_s if keep_alive is None else parse_duration(keep_alive)
        self.until = None if seconds == 0 else time.monotonic() + min(seconds, 1e9)

    # -- http ------------------------------------------------------------------
    async def start(self) -> str:
        app = web.Application()
        app.router.add_post("/api/chat", self.ollama_chat)
        app.router.add_get("/api/ps", self.ollama_ps)
        app.router.add_get("/api/version", self.ollama_version)
        app.router.add_post("/v1/chat/completions", self.openai_chat)
        app.router.add_get("/v1/models", self.openai_models)
        self._runner = web.AppRunner(app, handler_cancellation=True)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
        self.url = f"http://127.0.0.1:{port}"
        return self.url

    async def stop(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()

    async def _seen(self, request: web.Request) -> Seen:
        body = await request.json() if request.can_read_body else None
        seen = Seen(request.method, request.path, body, time.perf_counter_ns(), time.monotonic())
        self.requests.append(seen)
        return seen

    def posts(self, path: str) -> list[Seen]:
        return [r for r in self.requests if r.method == "POST" and r.path == path]

    async def ollama_version(self, request: web.Request) -> web.Response:
        return web.json_response({"version": "0.9.0"})

    async def ollama_ps(self, request: web.Request) -> web.Response:
        await self._seen(request)
        if not self.has_ps:
            return web.json_response({"error": "404 page not found"}, status=404)
        models = []
        if self.is_loaded() and self.until is not None:
            left = self.until - time.monotonic()
            expires = datetime.now(UTC).astimezone() + timedelta(seconds=min(left, 1e9))
            name = f"{MODEL}:latest"
            models.append({"name": name, "model": name, "expires_at": expires.isoformat()})
        return web.json_response({"models": models})

    async def ollama_chat(self, request: web.Request) -> web.StreamResponse:
        seen = await self._seen(request)
        body = seen.body or {}
        try:
            waited = await self.ensure_loaded()
            response = web.StreamResponse(headers={"Content-Type": "application/x-ndjson"})
            await response.prepare(request)
            final: dict[str, Any] = {"model": MODEL, "done": True}
            final["load_duration"] = int(waited * 1e9)
            if not body.get("messages"):
                final.update(message={"role": "assistant", "content": ""}, done_reason="load")
            else:
                await asyncio.sleep(self.ttft_s)
                for word in ("Hello", " there"):
                    line = {"model": MODEL, "message": {"role": "assistant", "content": word}}
                    await response.write(json.dumps({**line, "done": False}).encode() + b"\n")
                final.update(message={"role": "assistant", "content": ""}, done_reason="stop")
            self.keep(body.get("keep_alive"))
            await response.write(json.dumps(final).encode() + b"\n")
            await response.write_eof()
            return response
        except asyncio.CancelledError:
            seen.left_ns = time.perf_counter_ns()
            raise

    async def openai_models(self, request: web.Request) -> web.Response:
        await self._seen(request)
        return web.json_response({"data": [{"id": MODEL, "owned_by": self.owned_by}]})

    async def openai_chat(self, request: web.Request) -> web.StreamResponse:
        seen = await self._seen(request)
        body = seen.body or {}
        try:
            await self.ensure_loaded()
            await asyncio.sleep(self.ttft_s)
            response = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
            await response.prepare(request)
            words = ["Hi", " there", " friend"][: body.get("max_tokens") or 3]
            chunks: list[dict[str, Any]] = [{"delta": {"role": "assistant"}}]
            chunks += [{"delta": {"content": w}} for w in words]
            chunks.append({"delta": {}, "finish_reason": "length"})
            for chunk in chunks:
                data = {"model": MODEL, "choices": [{"index": 0, **chunk}]}
                await response.write(f"data: {json.dumps(data)}\n\n".encode())
            await response.write(b"data: [DONE]\n\n")
            await response.write_eof()
            return response
        except asyncio.CancelledError:
            seen.left_ns = time.perf_counter_ns()
            raise


@pytest.fixture
async def make_server() -> AsyncIterator[Callable[..., Any]]:
    servers: list[ScriptedServer] = []

    async def make(api: str, **kwargs: Any) -> ScriptedServer:
        server = ScriptedServer(api, **kwargs)
        await server.start()
        servers.append(server)
        return server

    yield make
    for server in servers:
        await server.stop()


async def until(condition: Callable[[], bool], timeout_s: float = 60.0) -> None:
    """Wait for a condition; the deadline is a safety net for a machine 5x slower."""
    deadline = time.monotonic() + timeout_s
    while not condition():
        assert time.monotonic() < deadline, "condition not reached in time"
        await asyncio.sleep(0.005)


def recorder(states: list[tuple[float, ModelState | None]]) -> Callable[[ModelStatus], None]:
    return lambda status: states.append((time.monotonic(), status.state))


# -- Ollama -----------------------------------------------------------------


async def test_ollama_warm_loads_with_keep_alive_then_reads_expiry(make_server: Any) -> None:
    server = await make_server("ollama", load_s=0.2)
    backend = OllamaBackend(server.url)
    states: list[tuple[float, ModelState | None]] = []
    warmer = KeepAliveWarmer(backend, MODEL, on_change=recorder(states))
    task = warmer.warm("app start")
    assert task is not None and not task.done() and server.requests == []  # never blocks
    await task
    assert [(r.method, r.path) for r in server.requests] == [
        ("GET", "/api/ps"),
        ("POST", "/api/chat"),
        ("GET", "/api/ps"),
    ]
    load = server.posts("/api/chat")[0].body
    assert load == {"model": MODEL, "messages": [], "stream": True, "keep_alive": "30m"}
    assert [s for _, s in states] == [ModelState.LOADING, ModelState.WARM]
    assert warmer.model_state() == "warm"
    left = warmer.seconds_left
    assert left is not None and 1790 < left <= 1800
    assert warmer.status.label().startswith("warm · 30 min left")
    assert "30m" in warmer.policy_description
    # Typing while warm with time to spare sends nothing more.
    assert warmer.warm("typing") is None
    assert len(server.requests) == 3
    await warmer.aclose()
    await backend.aclose()


async def test_ollama_loaded_model_is_never_shown_loading(make_server: Any) -> None:
    server = await make_server("ollama", loaded=True)
    backend = OllamaBackend(server.url)
    states: list[tuple[float, ModelState | None]] = []
    warmer = KeepAliveWarmer(backend, MODEL, on_change=recorder(states))
    await warmer.warm_now("app start")
    assert ModelState.LOADING not in [s for _, s in states]
    assert warmer.state is ModelState.WARM
    assert len(server.posts("/api/chat")) == 1  # still sent: it sets our keep-alive
    await backend.aclose()


async def test_ollama_rewarms_before_expiry_while_in_use_then_lets_go(make_server: Any) -> None:
    server = await make_server("ollama", load_s=0.05)
    backend = OllamaBackend(server.url)
    states: list[tuple[float, ModelState | None]] = []
    warmer = KeepAliveWarmer(
        backend, MODEL, WarmSettings(keep_alive="1s"), on_change=recorder(states)
    )
    await warmer.warm_now("app start")
    await asyncio.sleep(0.7)
    warmer.note_activity()  # the user types at ~0.75 s
    # Expected: re-warm at ~0.85 s and ~1.7 s (0.2 s before each expiry); at ~2.5 s the
    # user has been idle > 1 s (the keep-alive), so no re-warm and cold at ~2.7 s.
    await until(lambda: warmer.state is ModelState.COLD)
    loads = server.posts("/api/chat")
    assert len(loads) == 3, [round(r.at - loads[0].at, 2) for r in loads]
    for previous, current in itertools.pairwise(loads):
        gap = current.at - previous.at
        # Each re-warm goes out one margin (0.2 s) before the 1 s keep-alive ends.
        assert 0.7 < gap < 0.95, gap
    cold_at = next(t for t, s in states if s is ModelState.COLD)
    assert 0.9 < cold_at - loads[-1].at < 1.2
    assert all(r.body and r.body.get("keep_alive") == "1s" for r in loads)
    await warmer.aclose()
    await backend.aclose()


async def test_let_the_server_unload_it(make_server: Any) -> None:
    server = await make_server("ollama", load_s=0.05, default_keep_alive_s=0.5)
    backend = OllamaBackend(server.url)
    warmer = KeepAliveWarmer(backend, MODEL, WarmSettings(keep_alive=None))
    await warmer.warm_now("app start")
    assert warmer.state is ModelState.WARM
    assert "keep_alive" not in (server.posts("/api/chat")[0].body or {})
    assert "lets the server unload it" in warmer.policy_description
    await until(lambda: warmer.state is ModelState.COLD)
    assert len(server.posts("/api/chat")) == 1  # no re-warm
    assert warmer.warm("typing") is not None  # but typing loads it again
    await warmer.aclose()
    await backend.aclose()


async def test_user_request_during_ollama_warm_up_goes_out_at_once(make_server: Any) -> None:
    server = await make_server("ollama", load_s=1.5)
    backend = OllamaBackend(server.url)
    warmer = KeepAliveWarmer(backend, MODEL)
    warmer.warm("app start")
    await until(lambda: len(server.posts("/api/chat")) == 1)
    assert warmer.state is ModelState.LOADING

    sent_ns = time.perf_counter_ns()
    waits_for_load = warmer.user_request_started()
    request = ChatRequest(MODEL, [ChatMessage("user", "hello")], keep_alive="30m")
    async with backend.chat(request) as stream:
        async for _event in stream:
            pass
    warmer.user_request_finished(ok=True)

    assert waits_for_load and warmer.model_state() in ("loading", "warm")
    written_ns = stream.timeline.request_written_ns
    assert written_ns is not None
    delay_ms = (written_ns - sent_ns) / 1e6
    warm_up, user = server.posts("/api/chat")
    arrived_ms = (user.at_ns - sent_ns) / 1e6
    print(f"user request written {delay_ms:.2f} ms, arrived {arrived_ms:.2f} ms after send")
    # It went out at once, while the warm-up's load was under way, not after it ...
    assert server.loaded_ns is not None and user.at_ns < server.loaded_ns
    assert warm_up.left_ns is not None  # ... and the warm-up's connection was closed
    assert warm_up.left_ns < server.loaded_ns  # ... then too, not at the load's end
    assert server.loads == 1  # the user's request used the load under way
    assert stream.text == "Hello there"
    await until(lambda: warmer.seconds_left is not None)
    assert warmer.state is ModelState.WARM
    await warmer.aclose()
    await backend.aclose()


async def test_a_request_sent_before_the_warm_up_asked_is_told_it_loads(
    make_server: Any,
) -> None:
    """Sent the moment the app started, before its warm-up asked /api/ps: the warm-up
    still asks (the request's loading stage needs the answer) but loads nothing."""
    server = await make_server("ollama", load_s=0.5)
    backend = OllamaBackend(server.url)
    warmer = KeepAliveWarmer(backend, MODEL)
    assert warmer.warm("app start") is not None
    sent_ns = time.perf_counter_ns()
    assert warmer.user_request_started() is False  # not known yet
    request = ChatRequest(MODEL, [ChatMessage("user", "hello")], keep_alive="30m")
    written: list[int | None] = []

    async def ask() -> str:
        async with backend.chat(request) as stream:
            async for _event in stream:
                pass
        written.append(stream.timeline.request_written_ns)
        return stream.text

    user = asyncio.create_task(ask())
    await until(lambda: warmer.state is ModelState.LOADING)
    assert not user.done()  # known while the request waits for the load
    assert await user == "Hello there"
    [written_ns] = written
    # never held back: written before the model it waits for could have loaded (0.5 s)
    assert written_ns is not None and (written_ns - sent_ns) / 1e6 < 500
    warmer.first_token_received()
    warmer.user_request_finished(ok=True)
    [chat] = server.posts("/api/chat")  # the user's: the warm-up loaded nothing
    assert chat.body is not None and chat.body["messages"]
    assert server.loads == 1
    await until(lambda: warmer.seconds_left is not None)
    assert warmer.state is ModelState.WARM
    await warmer.aclose()
    await backend.aclose()


async def test_a_model_chosen_after_the_request_went_out_is_asked_about(
    make_server: Any,
) -> None:
    """The first minute: the question went out as the server became known, before the
    warmer had a model; its app-start warm-up then only asks /api/ps."""
    server = await make_server("ollama", load_s=0.5)
    backend = OllamaBackend(server.url)
    warmer = KeepAliveWarmer(None, None)
    assert warmer.user_request_started() is False
    request = ChatRequest(MODEL, [ChatMessage("user", "hello")], keep_alive="30m")

    async def ask() -> None:
        async with backend.chat(request) as stream:
            async for _event in stream:
                pass

    user = asyncio.create_task(ask())
    assert warmer.set_target(backend, MODEL, reason="app start") is not None
    await until(lambda: warmer.state is ModelState.LOADING)
    assert not user.done()
    await user
    warmer.first_token_received()
    warmer.user_request_finished(ok=True)
    assert len(server.posts("/api/chat")) == 1 and server.loads == 1
    await warmer.aclose()
    await backend.aclose()


async def test_a_request_sent_before_the_warm_up_asked_a_loaded_model_is_warm(
    make_server: Any,
) -> None:
    server = await make_server("ollama", loaded=True)
    backend = OllamaBackend(server.url)
    warmer = KeepAliveWarmer(backend, MODEL)
    warmer.warm("app start")
    assert warmer.user_request_started() is False
    await until(lambda: warmer.state is ModelState.WARM)
    assert [r.path for r in server.requests] == ["/api/ps"]  # and no load request
    warmer.user_request_finished(ok=True)
    await warmer.aclose()
    await backend.aclose()


async def test_old_ollama_without_ps_is_still_warmed(make_server: Any) -> None:
    server = await make_server("ollama", load_s=0.05, has_ps=False)
    backend = OllamaBackend(server.url)
    warmer = KeepAliveWarmer(backend, MODEL)
    status = await warmer.warm_now("app start")
    assert status.state is ModelState.WARM and status.label() == "warm"
    assert len(server.posts("/api/chat")) == 1 and server.loads == 1
    await warmer.aclose()
    await backend.aclose()


async def test_no_warming_while_a_user_request_runs(make_server: Any) -> None:
    server = await make_server("ollama", loaded=True)
    backend = OllamaBackend(server.url)
    warmer = KeepAliveWarmer(backend, MODEL)
    assert warmer.user_request_started() is False  # state not known: no LOADING stage
    asking = warmer.warm("typing")  # Ollama, state unknown: only asked if it is loaded
    assert asking is not None
    await asking
    assert warmer.state is ModelState.WARM
    assert warmer.warm("typing") is None  # known now: nothing while the request runs
    warmer.user_request_finished(ok=True)
    await until(lambda: warmer.seconds_left is not None)
    assert server.posts("/api/chat") == []
    await warmer.aclose()
    await backend.aclose()
    # Other servers are not even asked.
    other = await make_server("openai")
    backend = OpenAICompatBackend(other.url)
    warmer = KeepAliveWarmer(backend, MODEL)
    warmer.user_request_started()
    assert warmer.warm("typing") is None
    warmer.user_request_finished(ok=True)
    assert other.requests == []
    await warmer.aclose()
    await backend.aclose()


async def test_cold_model_counts_as_loading_for_the_users_request(make_server: Any) -> None:
    server = await make_server("ollama", loaded=True, default_keep_alive_s=0.2)
    backend = OllamaBackend(server.url)
    warmer = KeepAliveWarmer(backend, MODEL, WarmSettings(keep_alive=None))
    await warmer.warm_now("app start")
    await until(lambda: warmer.state is ModelState.COLD)
    assert warmer.user_request_started() is True
    assert warmer.model_state() == "loading"
    warmer.user_request_finished(ok=False)
    assert warmer.state is None
    assert warmer.user_request_started() is False  # unknown: no LOADING stage
    warmer.user_request_finished(ok=True)
    await until(lambda: warmer.state is ModelState.COLD)
    assert warmer.user_request_started() is True
    warmer.first_token_received()
    assert warmer.model_state() == "warm"
    warmer.user_request_finished(ok=True)
    await warmer.aclose()
    await backend.aclose()


async def test_unreachable_server_is_reported_not_raised() -> None:
    backend = OllamaBackend("http://127.0.0.1:9")
    warmer = KeepAliveWarmer(backend, MODEL)
    status = await warmer.warm_now("app start")
    assert status.state is None and warmer.last_error
    assert "Can't reach" in warmer.last_error
    await backend.aclose()


# -- OpenAI-compatible -------------------------------------------------------


async def test_openai_unknown_server_gets_one_token_warm_up(make_server: Any) -> None:
    server = await make_server("openai", load_s=0.1)
    backend = OpenAICompatBackend(server.url)
    states: list[tuple[float, ModelState | None]] = []
    warmer = KeepAliveWarmer(
        backend, MODEL, WarmSettings(assumed_warm_s=0.4), on_change=recorder(states)
    )
    await warmer.warm_now("app start")
    assert [(r.method, r.path) for r in server.requests] == [
        ("GET", "/v1/models"),
        ("POST", "/v1/chat/completions"),
    ]
    body = server.posts("/v1/chat/completions")[0].body or {}
    assert body["max_tokens"] == 1 and body["model"] == MODEL
    assert warmer.policy is ServerPolicy.ONE_TOKEN
    assert "1-token" in warmer.policy_description
    assert [s for _, s in states] == [ModelState.LOADING, ModelState.WARM]
    assert warmer.seconds_left is None and warmer.status.label() == "warm"
    assert warmer.warm("typing") is None  # trusted for a while ...
    await until(lambda: warmer.state is None)
    await warmer.warm_now("typing")  # ... then warmed again when the user types
    assert len(server.posts("/v1/chat/completions")) == 2
    await warmer.aclose()
    await backend.aclose()


@pytest.mark.parametrize(
    ("owned_by", "name"), [("llamacpp", "The llama.cpp server"), ("vllm", "vLLM")]
)
async def test_servers_that_keep_models_loaded_are_warmed_once(
    make_server: Any, owned_by: str, name: str
) -> None:
    server = await make_server("openai", owned_by=owned_by)
    backend = OpenAICompatBackend(server.url)
    warmer = KeepAliveWarmer(backend, MODEL)
    await warmer.warm_now("app start")
    assert warmer.policy is ServerPolicy.KEEPS_LOADED
    assert warmer.policy_description.startswith(f"{name} keeps the model loaded")
    assert warmer.state is ModelState.WARM
    assert warmer.warm("typing") is None
    assert len(server.posts("/v1/chat/completions")) == 1
    await warmer.aclose()
    await backend.aclose()


async def test_user_request_during_openai_warm_up_closes_it(make_server: Any) -> None:
    server = await make_server("openai", load_s=0.8)
    backend = OpenAICompatBackend(server.url)
    warmer = KeepAliveWarmer(backend, MODEL, policy=ServerPolicy.ONE_TOKEN)
    warmer.warm("typing")
    await until(lambda: len(server.posts("/v1/chat/completions")) == 1)
    sent_ns = time.perf_counter_ns()
    assert warmer.user_request_started() is True
    request = ChatRequest(MODEL, [ChatMessage("user", "hello")])
    async with backend.chat(request) as stream:
        async for _event in stream:
            pass
    warmer.user_request_finished(ok=True)
    warm_up, user = server.posts("/v1/chat/completions")
    assert stream.timeline.request_written_ns is not None
    assert (stream.timeline.request_written_ns - sent_ns) / 1e6 < 50
    assert (user.at_ns - sent_ns) / 1e6 < 50
    assert warm_up.left_ns is not None and (warm_up.left_ns - sent_ns) / 1e6 < 100
    assert warmer.state is ModelState.WARM
    await warmer.aclose()
    await backend.aclose()


class FakeEngine:
    """Starts the scripted server on a new port each time, as LocalEngine does."""

    def __init__(self, make_server: Any) -> None:
        self.make_server = make_server
        self.running = False
        self.starts = 0
        self.server: ScriptedServer | None = None
        self.sleep_idle_s = -1  # never unloads (tests/ui/servers/test_engine_sleep_ui.py: it does)

    async def is_sleeping(self) -> bool | None:
        return False

    @property
    def url(self) -> str:
        assert self.server is not None
        return self.server.url

    async def start(self) -> None:
        self.starts += 1
        self.server = await self.make_server("openai", owned_by="me")
        self.running = True


async def test_local_engine_is_started_then_warmed(make_server: Any) -> None:
    engine = FakeEngine(make_server)
    states: list[tuple[float, ModelState | None]] = []
    placeholder = OpenAICompatBackend("http://127.0.0.1:9")  # port not known before start
    warmer = KeepAliveWarmer(placeholder, MODEL, engine=engine, on_change=recorder(states))
    await warmer.warm_now("app start")
    assert engine.starts == 1 and engine.running
    assert [s for _, s in states] == [ModelState.LOADING, ModelState.WARM]
    assert warmer.policy_description.startswith("The local engine keeps the model loaded")
    first = engine.server
    assert first is not None and len(first.posts("/v1/chat/completions")) == 1
    assert warmer.backend is not None and warmer.backend.base_url == first.url
    engine.running = False  # it died or was restarted: the next trigger starts it again
    await warmer.warm_now("typing")
    assert engine.starts == 2 and engine.server is not None and engine.server is not first
    assert len(engine.server.posts("/v1/chat/completions")) == 1
    await warmer.aclose()
    await placeholder.aclose()


async def test_switching_model_cancels_and_warms_the_new_one(make_server: Any) -> None:
    slow = await make_server("ollama", load_s=5.0)
    fast = await make_server("openai", owned_by="vllm")
    slow_backend, fast_backend = OllamaBackend(slow.url), OpenAICompatBackend(fast.url)
    warmer = KeepAliveWarmer(slow_backend, MODEL)
    warmer.warm("app start")
    await until(lambda: len(slow.posts("/api/chat")) == 1)
    task = warmer.set_target(fast_backend, MODEL)
    assert task is not None
    await task
    await until(lambda: slow.posts("/api/chat")[0].left_ns is not None)
    assert warmer.state is ModelState.WARM and warmer.policy is ServerPolicy.KEEPS_LOADED
    await warmer.aclose()
    await slow_backend.aclose()
    await fast_backend.aclose()


async def test_a_failing_listener_does_not_stop_warming(make_server: Any) -> None:
    server = await make_server("openai", owned_by="vllm")
    backend = OpenAICompatBackend(server.url)

    def broken(status: ModelStatus) -> None:
        raise RuntimeError("listener bug")

    warmer = KeepAliveWarmer(backend, MODEL, on_change=broken)
    await warmer.warm_now("app start")
    assert warmer.state is ModelState.WARM
    await backend.aclose()


async def test_no_model_nothing_to_warm() -> None:
    warmer = KeepAliveWarmer(None, None)
    assert warmer.warm("app start") is None
    assert warmer.model_state() is None and warmer.status.label() == ""


async def test_bench_cold_hook_measures_the_first_message_after_warming(
    make_server: Any,
) -> None:
    from client.services.bench.runner import BenchSettings, run_bench
    from client.services.warming.cold_start import cold_start_then_warm

    server = await make_server("ollama", loaded=True, load_s=0.5)
    backend = OllamaBackend(server.url)

    async def make_cold() -> None:
        server.until = None  # as if just started: nothing loaded

    settings = BenchSettings(MODEL, n=2, cold=True, max_tokens=2)
    plain = await run_bench(backend, settings, make_cold=make_cold)
    hook = cold_start_then_warm(make_cold, backend, MODEL)
    warmed = await run_bench(backend, settings, make_cold=hook)
    assert plain.cold_result is not None and warmed.cold_result is not None
    cold_ms = plain.cold_result.metrics.ttft_ms
    warmed_ms = warmed.cold_result.metrics.ttft_ms
    assert cold_ms is not None and cold_ms >= 500  # without warming: the load, reported cold
    # With warming: the first message did not wait for a load (the server says so).
    assert warmed_ms is not None
    assert warmed.cold_result.metrics.server["ollama"].values["load_duration_ms"] == 0.0
    assert server.loads == 2  # one load each; the warm-up took the second
    await backend.aclose()


# -- pure helpers --------------------------------------------------------------


def test_parse_duration() -> None:
    assert parse_duration("30m") == 1800
    assert parse_duration("1h30m") == 5400
    assert parse_duration("500ms") == 0.5
    assert parse_duration(90) == 90
    assert parse_duration("90") == 90
    assert parse_duration(-1) == float("inf")
    assert parse_duration("-1m") == float("inf")
    with pytest.raises(ValueError):
        parse_duration("soon")


def test_unload_time_from_ollama_expires_at() -> None:
    now = time.monotonic()
    later = datetime.now(UTC) + timedelta(seconds=120)
    local = later.astimezone()
    # Go prints nanoseconds and the server's own offset: 2026-12-03T01:02:03.123456789+01:00
    go_style = local.strftime("%Y-%m-%dT%H:%M:%S.%f") + "123" + local.strftime("%z")
    go_style = go_style[:-2] + ":" + go_style[-2:]
    for text in (later.isoformat(), later.isoformat().replace("+00:00", "Z"), go_style):
        deadline = unload_time(text, now)
        assert deadline is not None and abs(deadline - now - 120) < 1, text
    assert unload_time("not a time") is None


def test_status_labels() -> None:
    assert ModelStatus(ModelState.LOADING).label() == "loading…"
    assert ModelStatus(ModelState.COLD).label() == "cold"
    assert ModelStatus(ModelState.WARM, unloads_at=100.0).label(now=100.0 - 1740) == (
        "warm · 29 min left"
    )
    assert ModelStatus(ModelState.WARM, unloads_at=100.0).label(now=55.0) == "warm · 45 s left"
    assert ModelStatus(ModelState.WARM, unloads_at=100.0).seconds_left(now=200.0) == 0.0
    forever = time.monotonic() + 200 * 365 * 86400  # keep_alive -1: expires_at in 2200s
    assert ModelStatus(ModelState.WARM, unloads_at=forever).label() == "warm"


def test_policy_sentences_name_what_happens() -> None:
    settings = WarmSettings()
    assert "re-warms it before it expires" in describe_policy(ServerPolicy.OLLAMA, settings)
    assert "keeps the model loaded" in describe_policy(ServerPolicy.KEEPS_LOADED, settings)
    assert describe_policy(None, settings)


async def test_a_first_token_shows_a_model_of_unknown_state_as_warm(make_server: Any) -> None:
    """A model chosen while the user's request was on its way has no known state (no
    warm-up runs during a user request): the request's first token says it is loaded."""
    server = await make_server("ollama", loaded=True)
    backend = OllamaBackend(server.url)
    warmer = KeepAliveWarmer(backend, MODEL)
    assert warmer.state is None
    assert warmer.user_request_started() is False
    warmer.first_token_received()
    assert warmer.model_state() == "warm"
    warmer.user_request_finished(ok=True)
    await warmer.aclose()
    await backend.aclose()


async def test_ollama_expiry_read_after_the_backend_closed_is_dropped_quietly(
    make_server: Any,
) -> None:
    """A reply ends just as the app closes: reading /api/ps again must not leave a
    task that failed with httpx's "client has been closed" (it was printed at exit)."""
    server = await make_server("ollama", loaded=True)
    backend = OllamaBackend(server.url)
    warmer = KeepAliveWarmer(backend, MODEL)
    warmer.user_request_started()
    await backend.aclose()
    warmer.user_request_finished(ok=True)
    task = warmer._task
    assert task is not None
    await asyncio.wait_for(task, timeout=60)  # raised RuntimeError before the fix
    assert task.exception() is None
    await warmer.aclose()
