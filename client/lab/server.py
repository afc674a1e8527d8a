"""LabServer: both protocols on one port, started in-process; and a background-thread helper.

lab = LabServer("typing")
url = await lab.start()          # http://127.0.0.1:<free port>
lab.set_scenario("reset")        # live: the next request uses it
await lab.stop()

running = run_in_thread("fast")  # for a Qt app: its own thread and event loop
running.url; running.set_scenario("slow"); running.stop()
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Awaitable, Callable
from concurrent.futures import Future
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import aiohttp
from aiohttp import web
from aiohttp.typedefs import Middleware

from client.lab.dialects.llamacpp_wire import llamacpp_not_found, loading_response
from client.lab.endpoints import control_api, ollama_api, openai_api, pulling
from client.lab.record.recorder import Recorder
from client.lab.running.live import change
from client.lab.running.state import ARRIVAL, LabState, LabStats
from client.lab.scenarios.scenario import Scenario, load_scenario

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]

ScenarioLike = Scenario | str | Path


def as_scenario(value: ScenarioLike) -> Scenario:
    return value if isinstance(value, Scenario) else load_scenario(value)


# Where a starting llama.cpp server answers 503 "Loading model" (it does on every path
# but its web page and its model list, tools/server/server.cpp's middleware_server_state;
# the lab's Ollama side waits for the load instead, as Ollama does).
STARTING_PATHS = ("/v1/", "/health", "/metrics", "/slots", "/props")
LISTED_WHILE_LOADING = ("/v1/models", "/models")


def arrivals(state: LabState) -> Middleware:
    @web.middleware
    async def stamp_arrival(request: web.Request, handler: Handler) -> web.StreamResponse:
        """Note when the request arrived, before any of its work: deadlines count from
        here. While the server starts (starts_loading), its OpenAI side is loading."""
        now = asyncio.get_running_loop().time()
        ARRIVAL.set(now)
        state.arrived(now)
        if state.scenario.server == "llamacpp" and request.path.startswith("/api/"):
            return llamacpp_not_found()  # llama-server speaks no Ollama API
        loading = request.path.startswith(STARTING_PATHS)
        if loading and state.starting(now) and request.path not in LISTED_WHILE_LOADING:
            return loading_response()
        try:
            return await handler(request)
        except asyncio.CancelledError:  # the client left (handler_cancellation) or we stop
            state.stats.left_at_ns.append(time.perf_counter_ns())
            raise
        except ConnectionResetError as exc:
            if request.transport is not None and not request.transport.is_closing():
                raise  # not the client's connection (an upstream's)
            # The client left as the reply was written: a disconnect, as when it leaves
            # before (aiohttp logs neither), not an error with its traceback.
            state.stats.left_at_ns.append(time.perf_counter_ns())
            raise asyncio.CancelledError from exc

    return stamp_arrival


class LabServer:
    def __init__(
        self,
        scenario: ScenarioLike = "fast",
        upstream: str | None = None,
        record: str | Path | None = None,
        scrub: bool = False,
    ) -> None:
        """With `record` (and an upstream), a pass-through proxy that saves each reply."""
        self.state = LabState(as_scenario(scenario), upstream)
        if record is not None and upstream is None:
            raise ValueError("recording needs an upstream server")
        self.recorder = Recorder(record, scrub) if record is not None else None
        self._runner: web.AppRunner | None = None
        self.url = ""

    @property
    def scenario(self) -> Scenario:
        return self.state.scenario

    @property
    def stats(self) -> LabStats:
        return self.state.stats

    def set_scenario(self, scenario: ScenarioLike) -> None:
        """Call from the server's event loop thread (run_in_thread does that for you)."""
        self.state.set_scenario(as_scenario(scenario))

    def control(self, body: dict[str, Any]) -> dict[str, Any]:
        """The live control (client/lab/running/live.py): from the event loop's thread."""
        self.state.live = change(self.state.live, body)
        return self.state.live.describe()

    def build_app(self) -> web.Application:
        app = web.Application(client_max_size=64 * 1024 * 1024, middlewares=[arrivals(self.state)])
        if self.recorder is not None:
            app.add_routes(self.recorder.routes(self.state))
            return app
        app.middlewares.append(openai_api.not_found_detail(self.state))
        app.add_routes(ollama_api.routes(self.state))
        app.add_routes(pulling.routes(self.state))
        app.add_routes(openai_api.routes(self.state))
        app.add_routes(control_api.routes(self.state))
        return app

    async def start(self, host: str = "127.0.0.1", port: int = 0) -> str:
        if self.state.upstream is not None:
            # No total timeout: replies stream for as long as the upstream talks.
            self.state.session = aiohttp.ClientSession(
                timeout=aiohttp.ClientTimeout(total=None, sock_connect=10)
            )
        # handler_cancellation: a client that disconnects cancels its handler at once,
        # which is how "never answers" ends and how the proxy closes its upstream call.
        runner = web.AppRunner(self.build_app(), handler_cancellation=True, access_log=None)
        await runner.setup()
        site = web.TCPSite(runner, host, port)
        await site.start()
        self._runner = runner
        bound = runner.addresses[0]
        shown = f"[{bound[0]}]" if ":" in bound[0] else bound[0]
        self.url = f"http://{shown}:{bound[1]}"
        return self.url

    async def stop(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None
        if self.state.session is not None:
            await self.state.session.close()
            self.state.session = None
        if self.recorder is not None:
            self.recorder.close()  # the last reply's file is on disk when stop() returns


@dataclass
class RunningLab:
    """A LabServer on its own thread: safe to use from any other thread (e.g. Qt's)."""

    url: str
    server: LabServer
    loop: asyncio.AbstractEventLoop
    thread: threading.Thread

    def set_scenario(self, scenario: ScenarioLike) -> None:
        chosen = as_scenario(scenario)  # parse here so a bad name raises in the caller
        asyncio.run_coroutine_threadsafe(_set(self.server, chosen), self.loop).result(5)

    def control(self, body: dict[str, Any]) -> dict[str, Any]:
        """Change the next requests' TTFT, TPOT or fault; ScenarioError when it cannot."""
        done = asyncio.run_coroutine_threadsafe(_control(self.server, body), self.loop)
        return done.result(5)

    def stop(self, timeout: float = 10.0) -> None:
        if not self.thread.is_alive():
            return
        asyncio.run_coroutine_threadsafe(self.server.stop(), self.loop).result(timeout)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(timeout)


async def _set(server: LabServer, scenario: Scenario) -> None:
    server.set_scenario(scenario)


async def _control(server: LabServer, body: dict[str, Any]) -> dict[str, Any]:
    return server.control(body)


def run_in_thread(
    scenario: ScenarioLike = "fast",
    host: str = "127.0.0.1",
    port: int = 0,
    upstream: str | None = None,
) -> RunningLab:
    """Start the lab on a daemon thread with its own event loop; returns once it listens."""
    server = LabServer(scenario, upstream)
    started: Future[str] = Future()
    loop = asyncio.new_event_loop()

    def main() -> None:
        asyncio.set_event_loop(loop)
        try:
            started.set_result(loop.run_until_complete(server.start(host, port)))
        except BaseException as exc:  # report it to the caller's thread
            started.set_exception(exc)
            loop.close()
            return
        try:
            loop.run_forever()
        finally:
            loop.close()

    thread = threading.Thread(target=main, name="tachy-lab", daemon=True)
    thread.start()
    url = started.result(timeout=30)
    return RunningLab(url, server, loop, thread)
