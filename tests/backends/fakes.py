"""Scripted HTTP bodies for httpx.MockTransport (chunks, pauses, hangs, resets), and a
Stop in the middle of a stream."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field

import httpx
import pytest

from client.backends.stream import ChatStream
from client.core.events import Token

# A script step: bytes to send, a float to sleep, an Event to wait for, or an
# exception to raise (a reset connection).
Step = bytes | float | asyncio.Event | Exception


@dataclass
class ScriptedBody(httpx.AsyncByteStream):
    steps: list[Step]
    closed: bool = False
    sent: list[bytes] = field(default_factory=list)

    async def __aiter__(self) -> AsyncIterator[bytes]:
        for step in self.steps:
            if isinstance(step, bytes):
                self.sent.append(step)
                yield step
            elif isinstance(step, float):
                await asyncio.sleep(step)
            elif isinstance(step, asyncio.Event):
                await step.wait()
            else:
                raise step

    async def aclose(self) -> None:
        self.closed = True


@dataclass
class Recorder:
    """Answers every request with the next scripted response and keeps the requests."""

    responses: list[httpx.Response | Exception | Callable[[], Awaitable[httpx.Response]]]
    requests: list[httpx.Request] = field(default_factory=list)

    async def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        await request.aread()
        answer = self.responses.pop(0) if len(self.responses) > 1 else self.responses[0]
        if isinstance(answer, Exception):
            raise answer
        if callable(answer):
            return await answer()
        return answer

    def body(self, index: int = -1) -> dict:
        return json.loads(self.requests[index].content)

    def client(self) -> httpx.AsyncClient:
        return httpx.AsyncClient(transport=httpx.MockTransport(self))


def streaming(steps: list[Step], status: int = 200, content_type: str = "text/event-stream"):
    body = ScriptedBody(steps)
    return httpx.Response(status, headers={"content-type": content_type}, stream=body), body


def sse(obj: dict | str) -> bytes:
    data = obj if isinstance(obj, str) else json.dumps(obj)
    return f"data: {data}\n\n".encode()


def sse_delta(content: str | None = None, finish: str | None = None, **extra: str) -> bytes:
    delta: dict = dict(extra)
    if content is not None:
        delta["content"] = content
    return sse({"choices": [{"index": 0, "delta": delta, "finish_reason": finish}]})


def ndjson(obj: dict) -> bytes:
    return json.dumps(obj).encode() + b"\n"


async def cancel_at_text(stream: ChatStream, text: str) -> None:
    """Read the stream in a task and cancel that task once the answer reads `text`, as
    Stop does; returns when the task has ended cancelled."""
    reached = asyncio.Event()

    async def consume() -> None:
        async for event in stream:
            if isinstance(event, Token) and stream.text == text:
                reached.set()

    task = asyncio.create_task(consume())
    await asyncio.wait_for(reached.wait(), 60)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
