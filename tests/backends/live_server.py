"""A scripted LLM server (OpenAI SSE or Ollama NDJSON) on a free loopback port.

It runs aiohttp in its own thread, so sync tests (the CLI, subprocesses) and
async tests can both use it. It records each request body and notices when the
client hangs up.
"""

from __future__ import annotations

import asyncio
import json
import threading
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web


@dataclass
class Script:
    api: str = "openai"  # or "ollama"
    tokens: list[str] = field(default_factory=lambda: ["Hello", ", ", "world"])
    delay_s: float = 0.0  # before each token
    hang_after: int | None = None  # stop sending after this many tokens (keep the socket)
    reset_after: int | None = None  # abort the connection after this many tokens
    status: int = 200
    body: bytes = b""  # when set: answer status + body instead of streaming
    content_type: str = "application/json"
    models: list[str] = field(default_factory=lambda: ["fake-model"])


class LiveServer:
    def __init__(self, script: Script | None = None) -> None:
        self.script = script or Script()
        self.requests: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []
        self.peers: list[Any] = []  # the client's (host, port) per request
        self.disconnected = threading.Event()
        self.port = 0
        self._loop: asyncio.AbstractEventLoop | None = None
        self._runner: web.AppRunner | None = None
        self._thread: threading.Thread | None = None
        self._stopping = False  # a hung reply ends when the server stops

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def __enter__(self) -> LiveServer:
        ready = threading.Event()
        self._thread = threading.Thread(target=self._serve, args=(ready,), daemon=True)
        self._thread.start()
        if not ready.wait(10):
            raise RuntimeError("the test server did not start")
        return self

    def __exit__(self, *exc: object) -> None:
        # A test whose client runs on this thread's loop blocks that loop here, so the
        # client's close of a hung request (asyncio closes a socket on the loop's next
        # turn) only reaches the server after this: the hung reply must not wait for
        # it, or the server's clean-up waited the reply's whole 30 s.
        self._stopping = True
        if self._loop is not None:
            self._loop.call_soon_threadsafe(self._loop.stop)
        if self._thread is not None:
            self._thread.join(60)

    def _serve(self, ready: threading.Event) -> None:
        loop = self._loop = asyncio.new_event_loop()
        self._runner = web.AppRunner(self._app(), handle_signals=False)
        loop.run_until_complete(self._runner.setup())
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        loop.run_until_complete(site.start())
        self.port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
        ready.set()
        try:
            loop.run_forever()
        finally:
            loop.run_until_complete(self._runner.cleanup())
            loop.close()

    def _app(self) -> web.Application:
        app = web.Application()
        if self.script.api == "ollama":
            app.router.add_get("/", _answer(web.Response(text="Ollama is running")))
            app.router.add_get("/api/version", _answer(web.json_response({"version": "0.12.0"})))
            app.router.add_get("/api/tags", self._tags)
            app.router.add_get("/api/ps", _answer(web.json_response({"models": []})))
            app.router.add_post("/api/chat", self._chat)
        elif self.script.api == "openai":
            app.router.add_get("/v1/models", self._models)
            app.router.add_post("/v1/chat/completions", self._chat)
        return app

    async def _tags(self, request: web.Request) -> web.Response:
        return web.json_response({"models": [{"name": m, "size": 1} for m in self.script.models]})

    async def _models(self, request: web.Request) -> web.Response:
        return web.json_response(
            {"object": "list", "data": [{"id": m} for m in self.script.models]}
        )

    async def _chat(self, request: web.Request) -> web.StreamResponse:
        self.requests.append(await request.json())
        self.headers.append(dict(request.headers))
        self.peers.append(
            request.transport.get_extra_info("peername") if request.transport else None
        )
        script = self.script
        if script.body:
            return web.Response(
                status=script.status, body=script.body, content_type=script.content_type
            )
        ollama = script.api == "ollama"
        response = web.StreamResponse(
            headers={"content-type": "application/x-ndjson" if ollama else "text/event-stream"}
        )
        await response.prepare(request)
        try:
            if not ollama:
                await response.write(_sse({"choices": [{"delta": {"role": "assistant"}}]}))
            for index, token in enumerate(script.tokens):
                if index == script.hang_after:
                    await self._wait_for_hang_up(request)
                    return response
                if index == script.reset_after and request.transport is not None:
                    request.transport.abort()
                    return response
                await asyncio.sleep(script.delay_s)
                await response.write(_ndjson_token(token) if ollama else _sse_token(token))
            await response.write(_ndjson_done(len(script.tokens)) if ollama else _sse_end(script))
            await response.write_eof()
        except ConnectionError:  # the client hung up: what a Stop should cause
            self.disconnected.set()
        except asyncio.CancelledError:
            self.disconnected.set()
            raise
        return response

    async def _wait_for_hang_up(self, request: web.Request) -> None:
        for _ in range(3000):  # at most 30 s
            if request.transport is None or request.transport.is_closing():
                self.disconnected.set()
                return
            if self._stopping:
                return
            await asyncio.sleep(0.01)


def _answer(response: web.Response):  # type: ignore[no-untyped-def]
    async def handler(request: web.Request) -> web.Response:
        return web.Response(
            status=response.status, body=response.body, content_type=response.content_type
        )

    return handler


def _sse(obj: dict[str, Any] | str) -> bytes:
    data = obj if isinstance(obj, str) else json.dumps(obj)
    return f"data: {data}\n\n".encode()


def _sse_token(token: str) -> bytes:
    return _sse({"choices": [{"index": 0, "delta": {"content": token}, "finish_reason": None}]})


def _sse_end(script: Script) -> bytes:
    usage = {"prompt_tokens": 5, "completion_tokens": len(script.tokens)}
    return (
        _sse({"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]})
        + _sse({"choices": [], "usage": usage})
        + _sse("[DONE]")
    )


def _ndjson_token(token: str) -> bytes:
    line = {"model": "m", "message": {"role": "assistant", "content": token}, "done": False}
    return json.dumps(line).encode() + b"\n"


def _ndjson_done(count: int) -> bytes:
    line = {
        "model": "m",
        "message": {"role": "assistant", "content": ""},
        "done": True,
        "done_reason": "stop",
        "eval_count": count,
        "eval_duration": 10**8,
        "prompt_eval_count": 5,
        "load_duration": 10**6,
    }
    return json.dumps(line).encode() + b"\n"
