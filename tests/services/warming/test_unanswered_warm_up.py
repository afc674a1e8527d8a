"""A server that never answered a warm-up is not shown warm: a warm-up that fails (or
times out), or a request that got not a byte back, leaves the model's state unknown, never
"warm · 29 min left" from /api/ps or an older reading."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

from aiohttp import web

from client.backends import OllamaBackend
from client.core.prediction import ModelState
from client.services.warming.warming import KeepAliveWarmer
from tests.services.warming.test_warming import until

MODEL = "tiny"


class SilentOllama:
    """/api/ps says the model is loaded for 30 min; /api/chat answers a load once (when
    `answers` is set), else an error."""

    def __init__(self) -> None:
        self.answers = True
        self.url = ""
        self._runner: web.AppRunner | None = None

    async def start(self) -> None:
        app = web.Application()
        app.router.add_get("/api/ps", self._ps)
        app.router.add_post("/api/chat", self._chat)
        self._runner = web.AppRunner(app)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        self.url = f"http://127.0.0.1:{site._server.sockets[0].getsockname()[1]}"  # type: ignore[union-attr]

    async def stop(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()

    async def _ps(self, _: web.Request) -> web.Response:
        expires = datetime.now(UTC) + timedelta(minutes=30)
        name = f"{MODEL}:latest"
        return web.json_response(
            {"models": [{"name": name, "model": name, "expires_at": expires.isoformat()}]}
        )

    async def _chat(self, _: web.Request) -> web.Response:
        if not self.answers:
            return web.json_response({"error": "llama runner process has terminated"}, status=500)
        message = {"role": "assistant", "content": ""}
        done = {"model": MODEL, "done": True, "done_reason": "load", "message": message}
        return web.Response(text=json.dumps(done) + "\n")


async def test_a_warm_up_the_server_did_not_answer_leaves_the_state_unknown() -> None:
    server = SilentOllama()
    server.answers = False
    await server.start()
    backend = OllamaBackend(server.url)
    warmer = KeepAliveWarmer(backend, MODEL)
    try:
        await warmer.warm_now("app start")
        assert warmer.last_error  # the load request failed
        assert warmer.state is None and warmer.seconds_left is None  # not "warm"
    finally:
        await warmer.aclose()
        await backend.aclose()
        await server.stop()


async def test_a_server_that_stops_answering_loses_its_countdown() -> None:
    server = SilentOllama()
    await server.start()
    backend = OllamaBackend(server.url)
    warmer = KeepAliveWarmer(backend, MODEL)
    try:
        await warmer.warm_now("app start")
        assert warmer.state is ModelState.WARM and warmer.seconds_left is not None
        assert warmer.status.label().startswith("warm · 30 min left")
        # The user's request: not a byte came back (a server restarted, hung ...).
        warmer.user_request_started()
        warmer.user_request_finished(ok=False, server_answered=False)
        assert warmer.state is None and warmer.seconds_left is None
        # Answered again: warm, with the server's own countdown.
        await warmer.warm_now("typing")
        assert warmer.state is ModelState.WARM and warmer.seconds_left is not None
        # The re-warm before the server's unload time fails: unknown, not the
        # countdown of the last reading.
        server.answers = False
        warmer._rewarm_due()  # (the timer firing a minute before the unload)
        await until(lambda: warmer.last_error is not None)
        assert warmer.state is None and warmer.seconds_left is None
    finally:
        await warmer.aclose()
        await backend.aclose()
        await server.stop()


async def test_a_request_the_server_answered_keeps_what_was_known() -> None:
    server = SilentOllama()
    await server.start()
    backend = OllamaBackend(server.url)
    warmer = KeepAliveWarmer(backend, MODEL)
    try:
        await warmer.warm_now("app start")
        warmer.user_request_started()
        warmer.user_request_finished(ok=False, server_answered=True)  # e.g. stopped
        assert warmer.state is ModelState.WARM
    finally:
        await warmer.aclose()
        await backend.aclose()
        await server.stop()
