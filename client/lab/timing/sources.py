"""Where a reply's pieces come from: the scripted plan, or a real upstream server.

Both yield Piece objects when they are due. The simulated source sleeps until each
chunk's absolute deadline; the upstream source passes on an OpenAI-compatible SSE stream
as it arrives, and closing it closes the upstream response so the real server stops.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import Any, Protocol

import aiohttp

from client.lab.timing.plan import Piece, Plan


class Source(Protocol):
    finish_reason: str
    completion_tokens: int | None

    def pieces(self) -> AsyncIterator[Piece]: ...
    def shift(self, seconds: float) -> None: ...
    async def aclose(self) -> None: ...


class UpstreamError(Exception):
    """The upstream answered with an HTTP error before streaming."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


class UpstreamStreamError(Exception):
    """The upstream sent an error event in the middle of its stream, or dropped it."""


async def sleep_until(deadline: float) -> None:
    """Sleep to an absolute loop.time() deadline (timers fire up to ~1 ms late)."""
    loop = asyncio.get_running_loop()
    delay = deadline - loop.time()
    if delay > 0:
        await asyncio.sleep(delay)


class SimulatedSource:
    def __init__(self, plan: Plan, first_at: float) -> None:
        self.plan = plan
        self.first_at = first_at
        self.finish_reason = plan.finish_reason
        self.completion_tokens: int | None = None
        self._shift = 0.0

    async def pieces(self) -> AsyncIterator[Piece]:
        for piece, offset in zip(self.plan.pieces, self.plan.offsets, strict=True):
            await sleep_until(self.first_at + offset + self._shift)
            yield piece

    def shift(self, seconds: float) -> None:
        """A stall pushes every later deadline back by its length."""
        self._shift += seconds

    async def aclose(self) -> None:
        return None


class UpstreamSource:
    """A streaming /v1/chat/completions call to the upstream server."""

    def __init__(self, session: aiohttp.ClientSession, base_url: str, body: dict[str, Any]):
        self.session = session
        self.url = base_url.rstrip("/") + "/v1/chat/completions"
        self.body = {**body, "stream": True, "stream_options": {"include_usage": True}}
        self.finish_reason = "stop"
        self.completion_tokens: int | None = None
        self._response: aiohttp.ClientResponse | None = None

    async def open(self) -> None:
        try:
            response = await self.session.post(self.url, json=self.body)
        except aiohttp.ClientError as exc:
            raise UpstreamError(502, f"upstream unreachable: {exc}") from exc
        if response.status != 200:
            text = await response.text(errors="replace")
            response.close()
            raise UpstreamError(response.status, upstream_message(text))
        self._response = response

    async def pieces(self) -> AsyncIterator[Piece]:
        assert self._response is not None, "open() first"
        buffer = b""
        try:
            async for data in self._response.content.iter_any():
                buffer += data
                *lines, buffer = buffer.split(b"\n")
                for line in lines:
                    for piece in self._parse(line.rstrip(b"\r")):
                        yield piece
                    if self._done:
                        return
        except aiohttp.ClientError as exc:
            raise UpstreamStreamError(f"upstream stream broke: {exc}") from exc

    _done = False

    def _parse(self, line: bytes) -> list[Piece]:
        if not line.startswith(b"data:"):
            return []  # blank separators, comments (": ping"), event: lines
        payload = line[5:].strip()
        if payload == b"[DONE]":
            self._done = True
            return []
        try:
            obj = json.loads(payload)
        except ValueError as exc:
            raise UpstreamStreamError("upstream sent malformed JSON") from exc
        if "error" in obj:
            raise UpstreamStreamError(upstream_message(json.dumps(obj)))
        if obj.get("usage"):
            self.completion_tokens = obj["usage"].get("completion_tokens")
        pieces = []
        for choice in obj.get("choices") or []:
            delta = choice.get("delta") or {}
            thinking = delta.get("reasoning_content") or delta.get("reasoning")
            if thinking:
                pieces.append(Piece("thinking", thinking, 1))
            if delta.get("content"):
                pieces.append(Piece("answer", delta["content"], 1))
            if choice.get("finish_reason"):
                self.finish_reason = choice["finish_reason"]
        return pieces

    def shift(self, seconds: float) -> None:
        return None  # the upstream keeps generating; its tokens wait in the socket

    async def aclose(self) -> None:
        if self._response is not None:
            self._response.close()  # drop the connection: the upstream aborts generation
            self._response = None


def upstream_message(text: str) -> str:
    try:
        obj = json.loads(text)
    except ValueError:
        return text.strip()[:500] or "upstream error"
    error = obj.get("error", obj) if isinstance(obj, dict) else obj
    if isinstance(error, dict):
        return str(error.get("message") or error.get("detail") or error)
    return str(error)
