"""`tachy lab --upstream URL --record FILE`: pass every request through to the real server
untouched, and save each generation reply as it came: status, headers, and the body in
chunks (cut at line ends) with the offset of each from the request's arrival, measured in
this process. The file is a JSON scenario that `tachy lab --scenario FILE` replays
(client/lab/replay.py); it is rewritten after each reply, so stopping loses nothing.

The client speaks the upstream's own API (Ollama's to Ollama, OpenAI's to vLLM or
llama.cpp): no translation, no added TTFT and no faults, so what is saved is the server's.
"""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path

import aiohttp
from aiohttp import web

from client.lab.player import reset_connection
from client.lab.recording import GENERATION_PATHS, Chunk, RecordedReply, reply_json
from client.lab.scrub import Scrubber
from client.lab.state import ARRIVAL, LabState
from client.lab.wire import ollama_error, openai_error

# Not passed on: they describe one hop's connection, not the reply (and Date goes stale).
HOP_HEADERS = frozenset(
    {
        "connection",
        "keep-alive",
        "transfer-encoding",
        "content-length",
        "content-encoding",
        "date",
        "host",
        "upgrade",
        "proxy-connection",
        "te",
        "trailer",
    }
)


class Recorder:
    def __init__(self, path: str | Path, scrub: bool = False) -> None:
        self.path = Path(path)
        self.scrubber = Scrubber() if scrub else None
        self.replies: list[str] = []  # each reply's JSON, encoded once when it ends
        self.model = ""
        self.server = "vllm"
        self.source = ""
        self._writer = ThreadPoolExecutor(1, thread_name_prefix="tachy-lab-record")

    def routes(self, lab: LabState) -> list[web.RouteDef]:
        self.source = lab.upstream or ""

        async def handle(request: web.Request) -> web.StreamResponse:
            return await self.relay(request, lab)

        return [web.route("*", "/{tail:.*}", handle)]

    async def relay(self, request: web.Request, lab: LabState) -> web.StreamResponse:
        loop = asyncio.get_running_loop()
        arrival = ARRIVAL.get() or loop.time()
        assert lab.upstream is not None and lab.session is not None
        body = await request.read()
        headers = {k: v for k, v in request.headers.items() if k.lower() not in HOP_HEADERS}
        headers["Accept-Encoding"] = "identity"  # the bytes as they are, uncompressed
        url = lab.upstream.rstrip("/") + request.path_qs
        try:
            upstream = await lab.session.request(
                request.method, url, data=body, headers=headers, allow_redirects=False
            )
        except aiohttp.ClientError as exc:
            return unreachable(request.path, f"upstream unreachable: {exc}")
        recorded = request.method == "POST" and request.path in GENERATION_PATHS
        try:
            return await self._pass_on(request, upstream, arrival, body if recorded else None)
        finally:
            upstream.close()

    async def _pass_on(
        self,
        request: web.Request,
        upstream: aiohttp.ClientResponse,
        arrival: float,
        asked: bytes | None,
    ) -> web.StreamResponse:
        loop = asyncio.get_running_loop()
        headers_s = loop.time() - arrival
        kept = kept_headers(upstream.headers)
        response = web.StreamResponse(status=upstream.status, reason=upstream.reason)
        response.headers.extend(kept)
        sized = upstream.content_length is not None and "chunked" not in upstream.headers.get(
            "Transfer-Encoding", ""
        )
        if sized:
            response.content_length = upstream.content_length
        chunks: list[Chunk] = []
        end = "open"  # until the body ends: a client that leaves first leaves it open
        try:
            await response.prepare(request)
            end = await _copy(request, response, upstream, arrival, chunks)
            return response
        finally:
            if asked is not None:
                reply = RecordedReply(
                    request.method,
                    request.path,
                    _model(asked),
                    upstream.status,
                    kept,
                    headers_s,
                    tuple(chunks),
                    loop.time() - arrival,
                    end,
                    sized,
                )
                self.add(reply)

    def add(self, reply: RecordedReply) -> None:
        if self.scrubber is not None:
            scrub = self.scrubber.chunk
            reply = replace(reply, chunks=tuple(scrub(chunk) for chunk in reply.chunks))
        self.model = self.model or reply.model
        if any(k.lower() == "server" and "llama.cpp" in v for k, v in reply.headers):
            self.server = "llamacpp"
        self.replies.append(json.dumps(reply_json(reply), ensure_ascii=False))
        # Written by a thread, so a long session's file never holds up a stream.
        self._writer.submit(_write, self.path, self.document())

    def document(self) -> str:
        """The whole file: a scenario whose replies are played in order, then again."""
        head = {
            "model": self.model,
            "server": self.server,
            "after": "loop",
        }
        recording = {
            "from": self.source,
            "at": datetime.now(UTC).isoformat(timespec="seconds"),
            "scrubbed": self.scrubber is not None,
        }
        opening = json.dumps(head, ensure_ascii=False)[:-1]
        meta = json.dumps(recording, ensure_ascii=False)[:-1]
        replies = ",\n".join(self.replies)
        return f'{opening}, "recording": {meta}, "replies": [\n{replies}\n]}}}}\n'

    def close(self) -> None:
        self._writer.shutdown(wait=True)


async def _copy(
    request: web.Request,
    response: web.StreamResponse,
    upstream: aiohttp.ClientResponse,
    arrival: float,
    chunks: list[Chunk],
) -> str:
    """Pass the body on as it comes, noting complete lines with their arrival; the end."""
    loop = asyncio.get_running_loop()
    pending, pending_at = b"", 0.0
    end = "eof"
    try:
        async for data in upstream.content.iter_any():
            now = loop.time() - arrival
            await response.write(data)
            pending, pending_at = pending + data, now
            cut = pending.rfind(b"\n") + 1
            if cut:
                chunks.append(Chunk(now, pending[:cut]))
                pending = pending[cut:]
    except (aiohttp.ClientPayloadError, aiohttp.ClientConnectionError):
        end = "reset"
    if pending:
        chunks.append(Chunk(pending_at, pending))
    if end == "reset":
        await reset_connection(request)
    else:
        await response.write_eof()
    return end


def kept_headers(headers: Mapping[str, str]) -> tuple[tuple[str, str], ...]:
    return tuple((k, v) for k, v in headers.items() if k.lower() not in HOP_HEADERS)


def unreachable(path: str, message: str) -> web.Response:
    return ollama_error(502, message) if path.startswith("/api/") else openai_error(502, message)


def _model(body: bytes) -> str:
    try:
        value = json.loads(body)
    except ValueError:
        return ""
    return str(value.get("model") or "") if isinstance(value, dict) else ""


def _write(path: Path, text: str) -> None:
    partial = path.with_name(path.name + ".partial")
    partial.write_text(text, encoding="utf-8")
    os.replace(partial, path)
