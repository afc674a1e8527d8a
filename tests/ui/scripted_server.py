"""A scripted Ollama-speaking server on loopback for the ui tests (aiohttp).

Each POST /api/chat takes the next script (or the default one). A script is a list of
steps: ("token", text), ("hang",) waits until `release` is set or the client goes away,
("error_line", message), ("reset",) drops the connection, ("status", code, message)
answers an HTTP error before streaming, ("pause", seconds) waits, ("done",) ends
normally.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

from aiohttp import web

Step = tuple[Any, ...]
DEFAULT_SCRIPT: list[Step] = [("token", "Hello"), ("token", " there."), ("done",)]
POLL_S = 0.01


class ScriptedOllama:
    def __init__(self) -> None:
        self.scripts: list[list[Step]] = []
        self.default: list[Step] = list(DEFAULT_SCRIPT)
        self.requests: list[dict[str, Any]] = []
        self.release = asyncio.Event()
        self.client_gone = asyncio.Event()  # set when a client closed a hanging stream
        self._runner: web.AppRunner | None = None
        self.url = ""

    async def start(self, port: int = 0) -> str:
        app = web.Application()
        app.router.add_get("/api/version", _version)
        app.router.add_get("/api/tags", self._tags)
        app.router.add_get("/api/ps", _running)
        app.router.add_post("/api/chat", self._chat)
        self._runner = web.AppRunner(app, handle_signals=False)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", port)
        await site.start()
        port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
        self.url = f"http://127.0.0.1:{port}"
        return self.url

    async def stop(self) -> None:
        self.release.set()
        if self._runner is not None:
            await self._runner.cleanup()

    async def _tags(self, _: web.Request) -> web.Response:
        return web.json_response({"models": [{"name": "scripted:1b"}, {"name": "other:7b"}]})

    async def _chat(self, request: web.Request) -> web.StreamResponse:
        body = await request.json()
        self.requests.append(body)
        script = self.scripts.pop(0) if self.scripts else self.default
        if script and script[0][0] == "status":
            return web.json_response({"error": script[0][2]}, status=script[0][1])
        response = web.StreamResponse(headers={"Content-Type": "application/x-ndjson"})
        await response.prepare(request)
        for step in script:
            kind = step[0]
            if kind == "token":
                await _line(response, _chunk(body, step[1]))
            elif kind == "pause":
                await asyncio.sleep(step[1])
            elif kind == "hang":
                await self._hang(request)
                if self.client_gone.is_set():
                    return response
            elif kind == "error_line":
                await _line(response, {"error": step[1]})
                return response
            elif kind == "reset":
                assert request.transport is not None
                request.transport.abort()
                return response
            elif kind == "done":
                await _line(response, _done(body))
        await response.write_eof()
        return response

    async def _hang(self, request: web.Request) -> None:
        # aiohttp does not cancel handlers on disconnect: watch the transport instead.
        while not self.release.is_set():
            transport = request.transport
            if transport is None or transport.is_closing():
                self.client_gone.set()
                return
            try:
                await asyncio.wait_for(self.release.wait(), POLL_S)
            except TimeoutError:
                pass


async def _version(_: web.Request) -> web.Response:
    return web.json_response({"version": "0.9.0"})


async def _running(_: web.Request) -> web.Response:
    return web.json_response({"models": []})


def _chunk(body: dict[str, Any], text: str) -> dict[str, Any]:
    return {
        "model": body.get("model", ""),
        "created_at": "2026-01-01T00:00:00Z",
        "message": {"role": "assistant", "content": text},
        "done": False,
    }


def _done(body: dict[str, Any]) -> dict[str, Any]:
    return {
        "model": body.get("model", ""),
        "created_at": "2026-01-01T00:00:00Z",
        "message": {"role": "assistant", "content": ""},
        "done": True,
        "done_reason": "stop",
        "eval_count": 2,
        "eval_duration": 1_000_000,
    }


async def _line(response: web.StreamResponse, data: dict[str, Any]) -> None:
    await response.write(json.dumps(data).encode() + b"\n")
