"""Scripted LLM servers for session tests: the real backends talk to them.

`ScriptedServer` is an httpx MockTransport with an async handler: each chat request
takes the next script, a list of steps played as the response body:
bytes (sent as a chunk), a float (sleep that long), an asyncio.Event (hang until it is
set) or an exception (raised by the transport, e.g. httpx.ReadError = a reset).
It records every request body and whether the client closed the response early.

`ResettingServer` is a real loopback HTTP server that sends some bytes and then
resets the connection (SO_LINGER 0), for interruptions on a real socket.
"""

from __future__ import annotations

import asyncio
import json
import socket
import struct
from collections.abc import AsyncGenerator, AsyncIterator
from typing import Any

import httpx

from client.backends import OllamaBackend, OpenAICompatBackend

Step = bytes | float | asyncio.Event | BaseException

MODEL = "scripted-model"


# ---- Ollama NDJSON and OpenAI SSE chunks ------------------------------------------------


def ollama_token(text: str = "", thinking: str = "") -> bytes:
    message: dict[str, Any] = {"role": "assistant", "content": text}
    if thinking:
        message["thinking"] = thinking
    return json.dumps({"model": MODEL, "message": message, "done": False}).encode() + b"\n"


def ollama_done(
    eval_count: int | None = None, reason: str = "stop", load_ms: float | None = None
) -> bytes:
    final: dict[str, Any] = {
        "model": MODEL,
        "message": {"role": "assistant", "content": ""},
        "done": True,
        "done_reason": reason,
    }
    if eval_count is not None:
        final.update(eval_count=eval_count, eval_duration=eval_count * 10_000_000)
    if load_ms is not None:
        final["load_duration"] = int(load_ms * 1_000_000)  # Ollama: nanoseconds
    return json.dumps(final).encode() + b"\n"


def sse_token(text: str = "", reasoning: str = "") -> bytes:
    delta: dict[str, Any] = {}
    if text:
        delta["content"] = text
    if reasoning:
        delta["reasoning_content"] = reasoning
    chunk = {"object": "chat.completion.chunk", "choices": [{"index": 0, "delta": delta}]}
    return b"data: " + json.dumps(chunk).encode() + b"\n\n"


def sse_done(reason: str = "stop") -> bytes:
    chunk = {
        "object": "chat.completion.chunk",
        "choices": [{"index": 0, "delta": {}, "finish_reason": reason}],
    }
    return b"data: " + json.dumps(chunk).encode() + b"\n\ndata: [DONE]\n\n"


class Script:
    def __init__(self, *steps: Step, status: int = 200, error: str = "") -> None:
        self.steps = list(steps)
        self.status = status
        self.error = error


class ScriptedServer:
    def __init__(self, api: str = "ollama") -> None:
        self.api = api
        self.scripts: list[Script] = []
        self.requests: list[dict[str, Any]] = []
        self.closed_early = 0  # responses the client closed before the script ended
        self.finished_scripts = 0
        self.bodies_started = 0  # responses whose body began to play

    def add(self, *steps: Step, status: int = 200, error: str = "") -> ScriptedServer:
        self.scripts.append(Script(*steps, status=status, error=error))
        return self

    def backend(self) -> OllamaBackend | OpenAICompatBackend:
        client = httpx.AsyncClient(transport=httpx.MockTransport(self._handle))
        if self.api == "ollama":
            return OllamaBackend("http://scripted.test", client=client)
        return OpenAICompatBackend("http://scripted.test", client=client)

    async def _handle(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(json.loads(request.content))
        script = self.scripts.pop(0)
        if script.status != 200:
            body = (
                {"error": script.error}
                if self.api == "ollama"
                else {"error": {"message": script.error, "type": "server_error"}}
            )
            return httpx.Response(script.status, json=body)
        media = "application/x-ndjson" if self.api == "ollama" else "text/event-stream"
        return httpx.Response(
            200, headers={"content-type": media}, stream=_Body(self._play(script.steps))
        )

    async def _play(self, steps: list[Step]) -> AsyncGenerator[bytes, None]:
        ended = False
        self.bodies_started += 1
        try:
            for step in steps:
                if isinstance(step, bytes):
                    yield step
                elif isinstance(step, asyncio.Event):
                    await step.wait()
                elif isinstance(step, BaseException):
                    raise step
                else:
                    await asyncio.sleep(step)
            ended = True
            self.finished_scripts += 1
        finally:
            if not ended:
                self.closed_early += 1


class _Body(httpx.AsyncByteStream):
    """A response body whose aclose() reaches the script, as a socket close would."""

    def __init__(self, chunks: AsyncGenerator[bytes, None]) -> None:
        self._chunks = chunks

    def __aiter__(self) -> AsyncIterator[bytes]:
        return self._chunks

    async def aclose(self) -> None:
        await self._chunks.aclose()


class ResettingServer:
    """Answers one streaming response, sends `chunks`, then resets the connection."""

    def __init__(self, chunks: list[bytes], media: str = "application/x-ndjson") -> None:
        self.chunks = chunks
        self.media = media
        self.server: asyncio.Server | None = None
        self.port = 0

    async def __aenter__(self) -> ResettingServer:
        self.server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        self.port = self.server.sockets[0].getsockname()[1]
        return self

    async def __aexit__(self, *exc: object) -> None:
        assert self.server is not None
        self.server.close()
        await self.server.wait_closed()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        head = await reader.readuntil(b"\r\n\r\n")
        length = next(
            (
                int(line.split(b":")[1])
                for line in head.split(b"\r\n")
                if line.lower().startswith(b"content-length")
            ),
            0,
        )
        await reader.readexactly(length)
        writer.write(
            b"HTTP/1.1 200 OK\r\ncontent-type: "
            + self.media.encode()
            + b"\r\ntransfer-encoding: chunked\r\n\r\n"
        )
        for chunk in self.chunks:
            writer.write(b"%x\r\n%s\r\n" % (len(chunk), chunk))
            await writer.drain()
            await asyncio.sleep(0.01)
        sock = writer.get_extra_info("socket")
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        writer.transport.abort()  # RST, not FIN: a reset mid-answer


def closed_port() -> int:
    """A loopback port nobody listens on (bound, then released)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])
