"""`tachy lab --upstream URL --record FILE`: pass every request through to the real server
untouched, and save each generation reply as it came: status, headers, and the body in
chunks (cut at line ends) with the offset of each from the request's arrival, measured in
this process. The file is a JSON scenario that `tachy lab --scenario FILE` replays
(client/lab/replies/replay.py). It is rewritten with each reply before the reply's last bytes go
to the client, so a lab stopped the moment its client has the answer has it on disk.

The client speaks the upstream's own API (Ollama's to Ollama, OpenAI's to vLLM or
llama.cpp): no translation, no added TTFT and no faults, so what is saved is the server's.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path

import aiohttp
from aiohttp import web

from client.lab.dialects.wire import ollama_error, openai_error
from client.lab.record.scrub import Scrubber
from client.lab.replies.player import reset_connection
from client.lab.running.state import ARRIVAL, LabState
from client.lab.scenarios.recording import GENERATION_PATHS, Chunk, RecordedReply, reply_json

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
        kept = kept_headers(upstream.headers)
        response = web.StreamResponse(status=upstream.status, reason=upstream.reason)
        response.headers.extend(kept)
        sized = upstream.content_length is not None and "chunked" not in upstream.headers.get(
            "Transfer-Encoding", ""
        )
        if sized:
            response.content_length = upstream.content_length
        head = RecordedReply(
            request.method, request.path, _model(asked or b""), upstream.status, kept,
            loop.time() - arrival, (), 0.0, "open", sized,
        )  # fmt: skip
        length = upstream.content_length if sized else None
        relayed = Relayed(head, arrival, length, _end_marker(upstream))
        try:
            await response.prepare(request)
            relayed.end = await self._copy(request, response, upstream, relayed, asked is not None)
            return response
        finally:
            if asked is not None:
                # The reply as it ended (or as it was when the client left): saved if
                # it differs from what was saved before its end went to the client.
                self.keep_soon(relayed, relayed.reply(loop.time()))

    async def _copy(
        self,
        request: web.Request,
        response: web.StreamResponse,
        upstream: aiohttp.ClientResponse,
        relayed: Relayed,
        recording: bool,
    ) -> str:
        """Pass the body on as it comes, noting complete lines with their arrival; the end.
        The piece that ends the reply for the client (the last bytes of a sized body,
        `data: [DONE]`, Ollama's `"done": true` line) goes on only once the reply is in the
        file, so a lab stopped the moment its client has the answer has it too."""
        loop = asyncio.get_running_loop()
        end = "eof"
        try:
            async for data in upstream.content.iter_any():
                now = loop.time()
                relayed.take(data, now - relayed.arrival)
                if recording and relayed.saved is None and relayed.ends_with(data):
                    await self.keep(relayed, relayed.reply(now, "eof"))
                await response.write(data)
        except (aiohttp.ClientPayloadError, aiohttp.ClientConnectionError):
            end = "reset"
        if end == "reset":
            await reset_connection(request)
        else:
            await response.write_eof()
        return end

    def keep_soon(self, relayed: Relayed, reply: RecordedReply) -> None:
        """Save `reply` in `relayed`'s place in the file (a thread writes it)."""
        if self._place(relayed, reply):
            self._writer.submit(_write, self.path, self.document())

    async def keep(self, relayed: Relayed, reply: RecordedReply) -> None:
        """Save `reply` in `relayed`'s place in the file, and wait until it is written."""
        if self._place(relayed, reply):
            document = self.document()
            await asyncio.get_running_loop().run_in_executor(
                self._writer, _write, self.path, document
            )

    def _place(self, relayed: Relayed, reply: RecordedReply) -> bool:
        """Put the reply's JSON in the recording; False when it is what was saved."""
        if relayed.saved is not None and _same(relayed.saved, reply):
            return False
        relayed.saved = reply
        if self.scrubber is not None:
            scrub = self.scrubber.chunk
            reply = replace(reply, chunks=tuple(scrub(chunk) for chunk in reply.chunks))
        self.model = self.model or reply.model
        if any(k.lower() == "server" and "llama.cpp" in v for k, v in reply.headers):
            self.server = "llamacpp"
        encoded = json.dumps(reply_json(reply), ensure_ascii=False)
        if relayed.index is None:
            relayed.index = len(self.replies)
            self.replies.append(encoded)
        else:
            self.replies[relayed.index] = encoded
        return True

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


class Relayed:
    """One reply on its way through: its chunks so far (cut at line ends, each with its
    arrival from the request's), and where it is in the recording once saved."""

    def __init__(
        self,
        head: RecordedReply,
        arrival: float,
        length: int | None,
        marker: re.Pattern[bytes] | None,
    ) -> None:
        self.head = head  # status, headers ...: all but the body and its end
        self.arrival = arrival
        self.end = "open"  # until the body ends: a client that leaves first leaves it open
        self._length = length  # a sized body's
        self._marker = marker
        self._received = 0
        self._chunks: list[Chunk] = []
        self._pending, self._pending_at = b"", 0.0
        self.index: int | None = None
        self.saved: RecordedReply | None = None

    def take(self, data: bytes, at_s: float) -> None:
        self._received += len(data)
        self._pending, self._pending_at = self._pending + data, at_s
        cut = self._pending.rfind(b"\n") + 1
        if cut:
            self._chunks.append(Chunk(at_s, self._pending[:cut]))
            self._pending = self._pending[cut:]

    def ends_with(self, data: bytes) -> bool:
        """`data` (just taken) completes the reply as the client reads it."""
        if self._length is not None:
            return self._received >= self._length
        return self._marker is not None and self._marker.search(data) is not None

    def reply(self, now: float, end: str | None = None) -> RecordedReply:
        chunks = list(self._chunks)
        if self._pending:
            chunks.append(Chunk(self._pending_at, self._pending))
        return replace(
            self.head, chunks=tuple(chunks), end_s=now - self.arrival, end=end or self.end
        )


END_SAME_S = 0.001
# What ends a streamed body for its client: SSE's last event, Ollama's done line (its
# text is JSON-escaped, so `"done":` can only be the key).
_SSE_END = re.compile(rb"^data: ?\[DONE\]", re.M)
_NDJSON_END = re.compile(rb'"done"\s*:\s*true')


def _end_marker(upstream: aiohttp.ClientResponse) -> re.Pattern[bytes] | None:
    kind = upstream.headers.get("Content-Type", "").lower()
    if "text/event-stream" in kind:
        return _SSE_END
    if "ndjson" in kind:
        return _NDJSON_END
    return None


def _same(saved: RecordedReply, reply: RecordedReply) -> bool:
    """The same body and end, ended within the same millisecond (the body usually ends
    with its last piece; a server that holds it open longer is replayed doing so)."""
    return (
        saved.chunks == reply.chunks
        and saved.end == reply.end
        and abs(saved.end_s - reply.end_s) <= END_SAME_S
    )


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
