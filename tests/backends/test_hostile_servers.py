"""Servers that misbehave on purpose, played by raw sockets on loopback: a 100 MB line,
a redirect to another host, headers trickling a byte at a time, escapes in names and
errors. Each gets one clear sentence; nothing leaks, nothing grows, nothing acts."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path

import pytest

from client.backends import backend_for
from client.backends.errors import FirstByteTimeout, ProtocolError, ServerError
from client.backends.stream import StreamTimeouts
from client.core.conversation import ChatMessage, ChatRequest
from client.core.events import Failed

REQUEST = ChatRequest("m", [ChatMessage("user", "hi")])
PATIENT = StreamTimeouts(first_byte_s=30, stall_s=30)
ROOT = Path(__file__).resolve().parents[2]
Handler = Callable[[asyncio.StreamReader, asyncio.StreamWriter], Awaitable[None]]


@asynccontextmanager
async def raw_server(handler: Handler, host: str = "127.0.0.1") -> AsyncIterator[str]:
    async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            await read_request(reader)
            await handler(reader, writer)
        except (ConnectionError, asyncio.CancelledError):
            pass
        finally:
            writer.close()

    server = await asyncio.start_server(serve, host, 0)
    port = server.sockets[0].getsockname()[1]
    try:
        yield f"http://{host}:{port}"
    finally:
        server.close()
        await server.wait_closed()


async def read_request(reader: asyncio.StreamReader) -> bytes:
    head = await reader.readuntil(b"\r\n\r\n")
    length = 0
    for line in head.split(b"\r\n"):
        if line.lower().startswith(b"content-length:"):
            length = int(line.split(b":", 1)[1])
    return head + (await reader.readexactly(length) if length else b"")


async def last_event(url: str, api: str, timeouts: StreamTimeouts = PATIENT, **kw: str) -> object:
    backend = backend_for(url, api, **kw)
    try:
        async with backend.chat(REQUEST, timeouts) as stream:
            events = [event async for event in stream]
    finally:
        await backend.aclose()
    return events[-1]


# ---- a redirect to another host ----------------------------------------------------


async def test_a_redirect_to_another_host_is_not_followed_and_the_key_never_leaves() -> None:
    reached: list[bytes] = []

    async def elsewhere(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        reached.append(b"connected")  # read_request already took the request

    async with raw_server(elsewhere, host="127.0.0.2") as other:

        async def redirect(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            writer.write(
                b"HTTP/1.1 307 Temporary Redirect\r\n"
                + f"Location: {other}/v1/chat/completions\r\n".encode()
                + b"Content-Length: 0\r\n\r\n"
            )
            await writer.drain()

        async with raw_server(redirect) as url:
            event = await last_event(url, "openai", api_key="sk-must-stay-home")
            backend = backend_for(url, "openai", api_key="sk-must-stay-home")
            try:
                with pytest.raises(ProtocolError) as listing:
                    await backend.list_models()
            finally:
                await backend.aclose()
    assert isinstance(event, Failed) and isinstance(event.error, ProtocolError)
    sentence = str(event.error)
    assert "redirected the request (HTTP 307) to http://127.0.0.2" in sentence
    assert "does not follow redirects" in sentence
    assert "redirected the request (HTTP 307)" in str(listing.value)
    assert reached == []  # nothing, and so no API key, reached the other host


# ---- headers trickling in ------------------------------------------------------------


async def test_headers_trickling_a_byte_at_a_time_hit_the_first_byte_timeout() -> None:
    async def trickle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        for byte in b"HTTP/1.1 200 OK\r\nContent-Type: application/x-ndjson\r\n" * 100:
            writer.write(bytes([byte]))
            await writer.drain()
            await asyncio.sleep(0.05)  # every read gets a byte: no read ever times out

    async with raw_server(trickle) as url:
        started = time.monotonic()
        event = await last_event(url, "ollama", StreamTimeouts(first_byte_s=1.0, stall_s=30))
        took = time.monotonic() - started
    assert isinstance(event, Failed) and isinstance(event.error, FirstByteTimeout), event
    assert took < 30.0, took  # 1 s limit; the trickle would last 5,000 s


# ---- escapes in errors and names ---------------------------------------------------

HOSTILE = "\x1b[2J\x1b]0;pwned\x07\u202egguf.exe\r\nTachy: all good\x00"


async def test_a_server_error_with_escapes_is_shown_escaped() -> None:
    body = json.dumps({"error": HOSTILE}).encode()

    async def fail(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        writer.write(
            b"HTTP/1.1 500 Internal Server Error\r\nContent-Type: application/json\r\n"
            + f"Content-Length: {len(body)}\r\n\r\n".encode()
            + body
        )
        await writer.drain()

    async with raw_server(fail) as url:
        event = await last_event(url, "ollama")
    assert isinstance(event, Failed) and isinstance(event.error, ServerError)
    sentence = str(event.error)
    assert not any(c in sentence for c in "\x1b\x07\u202e\r\n\x00"), repr(sentence)
    assert "\\x1b[2J\\x1b]0;pwned\\x07\\u202egguf.exe\\r\\nTachy: all good\\x00" in sentence


def test_tachy_models_prints_hostile_names_escaped() -> None:
    """The terminal: `tachy models` against a server whose names carry escapes."""
    script = f"""
import asyncio, json, sys
sys.path.insert(0, {str(ROOT)!r})
from aiohttp import web
from client.cli import main

async def tags(request):
    return web.json_response({{"models": [{{"name": {HOSTILE!r}}}, {{"name": "ok:1b"}}]}})

async def version(request):
    return web.json_response({{"version": "0.9.0"}})

async def run():
    app = web.Application()
    app.router.add_get("/api/tags", tags)
    app.router.add_get("/api/version", version)
    app.router.add_get("/api/ps", lambda r: web.json_response({{"models": []}}))
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = site._server.sockets[0].getsockname()[1]
    url = f"http://127.0.0.1:{{port}}"
    code = await asyncio.to_thread(main, ["models", "--url", url, "--api", "ollama"])
    await runner.cleanup()
    return code

sys.exit(asyncio.run(run()))
"""
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=60, cwd=ROOT
    )
    assert done.returncode == 0, done.stderr
    assert not any(c in done.stdout for c in "\x1b\x07\u202e\r\x00"), repr(done.stdout)
    assert "\\x1b[2J" in done.stdout and "ok:1b" in done.stdout
    assert "\nTachy: all good" not in done.stdout  # no forged line


# ---- a 100 MB line ---------------------------------------------------------------------

LINE_SCRIPT = r"""
import asyncio, sys, threading, time
import psutil
sys.path.insert(0, ROOT)
from client.backends import backend_for
from client.backends.stream import StreamTimeouts
from client.core.conversation import ChatMessage, ChatRequest

CHUNK = b"a" * 65536

async def main(total):
    sent = [0]
    async def serve(reader, writer):
        await reader.readuntil(b"\r\n\r\n")
        writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: application/x-ndjson\r\n")
        writer.write(b"Connection: close\r\n\r\n")
        try:
            while sent[0] < total:
                writer.write(CHUNK)
                await writer.drain()
                sent[0] += len(CHUNK)
            writer.write(b"\n")
            await writer.drain()
        except ConnectionError:
            pass
        writer.close()
    server = await asyncio.start_server(serve, "127.0.0.1", 0)
    url = f"http://127.0.0.1:{server.sockets[0].getsockname()[1]}"
    backend = backend_for(url, "ollama")
    request = ChatRequest("m", [ChatMessage("user", "hi")])
    async with backend.chat(request, StreamTimeouts(30, 30)) as stream:
        events = [e async for e in stream]
    await backend.aclose()
    server.close()
    return events[-1], sent[0]

def rss():
    return psutil.Process().memory_info().rss / 2**20  # MiB


def sample(peak, stop):
    while not stop.is_set():
        peak[0] = max(peak[0], rss())
        time.sleep(0.005)


asyncio.run(main(64 * 1024))  # warm: imports, the first client, a short line
before = rss()
peak, stop = [before], threading.Event()
sampler = threading.Thread(target=sample, args=(peak, stop))
sampler.start()
last, sent = asyncio.run(main(int(sys.argv[1])))
stop.set()
sampler.join()
error = getattr(last, "error", None)
print(type(last).__name__, type(error).__name__, str(error))
print(f"{before:.1f} {peak[0]:.1f} {sent}")
"""


def line_case(total_bytes: int) -> tuple[str, float, float, int]:
    """A child process reads a line of total_bytes; its RSS is sampled every 5 ms."""
    done = subprocess.run(
        [sys.executable, "-c", f"ROOT = {str(ROOT)!r}\n" + LINE_SCRIPT, str(total_bytes)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    outcome, figures = done.stdout.strip().splitlines()[-2:]
    before, peak, sent = figures.split()
    return outcome, float(before), float(peak), int(sent)


def test_a_100_mb_line_is_a_protocol_error_after_the_limit_with_memory_flat() -> None:
    """Against a baseline in the same run: a 4 MiB line (under the 8 MiB limit, so read
    whole, then the stream ends without its final line). The 100 MB line must cost
    about what the limit allows, not what the server sends."""
    _, base_before, base_peak, _ = line_case(4 * 2**20)
    outcome, before, peak, sent = line_case(100 * 2**20)
    baseline, growth = base_peak - base_before, peak - before
    print(
        f"RSS growth: 4 MiB line +{baseline:.1f} MiB, 100 MB line +{growth:.1f} MiB "
        f"(peak {peak:.0f} MiB); the server got to send {sent / 2**20:.1f} MiB"
    )
    assert outcome.startswith("Failed ProtocolError")
    assert "longer than 8 MiB" in outcome
    # At most the 8 MiB limit plus one read over the baseline's 4 MiB, with margin.
    assert growth < baseline + 24, f"RSS grew {growth:.1f} MiB (baseline {baseline:.1f})"
    assert sent < 40 * 2**20, f"the client read {sent / 2**20:.0f} MiB before stopping"
