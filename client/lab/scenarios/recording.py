"""A recording of a real server's replies: what `tachy lab --record` writes and
`tachy lab --scenario FILE` replays (client/lab/record/recorder.py, client/lab/replies/replay.py).

Each reply keeps its status, headers and body as it came off the wire, cut into chunks at
line ends, each with its offset from the request's arrival (loop.time() in the lab's
process). In a scenario file it sits under the key ``recording``::

    {"model": "...", "after": "loop",
     "recording": {"from": "http://127.0.0.1:8080", "scrubbed": false, "replies": [
        {"method": "POST", "path": "/v1/chat/completions", "model": "...",
         "status": 200, "headers": [["Content-Type", "text/event-stream"]],
         "headers_ms": 41.2, "sized": false, "end": "eof", "end_ms": 912.4,
         "chunks": [{"at_ms": 41.3, "text": "data: {...}\\n\\n"}, ...],
         "final": {... the body's last JSON object, for the reader ...}}]}}
"""

from __future__ import annotations

import base64
import binascii
import json
from dataclasses import dataclass
from typing import Any

# The paths whose replies are recorded and replayed (the lab's generation endpoints).
GENERATION_PATHS = ("/api/chat", "/api/generate", "/v1/chat/completions", "/v1/completions")
ENDS = ("eof", "reset", "open")  # clean end, TCP reset, still open when the client left


class RecordingError(ValueError):
    """A recording that cannot be replayed; the message says what is wrong."""


@dataclass(frozen=True, slots=True)
class Chunk:
    at_s: float  # from the request's arrival
    data: bytes


@dataclass(frozen=True, slots=True)
class RecordedReply:
    method: str
    path: str
    model: str
    status: int
    headers: tuple[tuple[str, str], ...]
    headers_s: float  # when the status line and headers came
    chunks: tuple[Chunk, ...]
    end_s: float  # when the body ended (or broke)
    end: str = "eof"
    sized: bool = False  # the body had a Content-Length (else chunked)


@dataclass(frozen=True, slots=True)
class Recording:
    source: str
    replies: tuple[RecordedReply, ...]
    scrubbed: bool = False

    def replies_for(self, path: str) -> tuple[RecordedReply, ...]:
        return tuple(reply for reply in self.replies if reply.path == path)

    def paths(self) -> list[str]:
        return sorted({reply.path for reply in self.replies})


def pick(replies: tuple[RecordedReply, ...], after: str, index: int) -> RecordedReply | None:
    """The reply the index-th request (from 0) gets; None: past the end with after = "ok"."""
    if index >= len(replies):
        if after == "ok":
            return None
        index = len(replies) - 1 if after == "hold" else index % len(replies)
    return replies[index]


def parse_recording(value: Any) -> Recording:
    if not isinstance(value, dict) or not isinstance(value.get("replies"), list):
        raise RecordingError("recording must be a table with a list of replies")
    replies = tuple(_reply(number, item) for number, item in enumerate(value["replies"], 1))
    if not replies:
        raise RecordingError("recording has no replies")
    return Recording(str(value.get("from", "")), replies, bool(value.get("scrubbed", False)))


def _reply(number: int, value: Any) -> RecordedReply:
    try:
        chunks = tuple(_chunk(item) for item in value["chunks"])
        reply = RecordedReply(
            method=str(value.get("method", "POST")),
            path=str(value["path"]),
            model=str(value.get("model", "")),
            status=int(value["status"]),
            headers=tuple((str(k), str(v)) for k, v in value.get("headers", [])),
            headers_s=float(value.get("headers_ms", 0.0)) / 1000.0,
            chunks=chunks,
            end_s=float(value.get("end_ms", chunks[-1].at_s * 1000 if chunks else 0)) / 1000,
            end=str(value.get("end", "eof")),
            sized=bool(value.get("sized", False)),
        )
    except (KeyError, TypeError, ValueError, binascii.Error) as exc:
        raise RecordingError(f"reply {number}: {_what(exc)}") from None
    if reply.path not in GENERATION_PATHS:
        raise RecordingError(f"reply {number}: path must be one of {', '.join(GENERATION_PATHS)}")
    if reply.end not in ENDS:
        raise RecordingError(f"reply {number}: end must be one of {', '.join(ENDS)}")
    return reply


def _what(exc: Exception) -> str:
    return f"missing {exc}" if isinstance(exc, KeyError) else str(exc)


def _chunk(value: Any) -> Chunk:
    at_s = float(value["at_ms"]) / 1000.0
    if "base64" in value:
        return Chunk(at_s, base64.b64decode(value["base64"], validate=True))
    return Chunk(at_s, str(value["text"]).encode())


def chunk_json(chunk: Chunk) -> dict[str, Any]:
    at_ms = round(chunk.at_s * 1000, 3)
    try:
        return {"at_ms": at_ms, "text": chunk.data.decode()}
    except UnicodeDecodeError:  # a body cut inside a character: keep the bytes as they were
        return {"at_ms": at_ms, "base64": base64.b64encode(chunk.data).decode()}


def reply_json(reply: RecordedReply) -> dict[str, Any]:
    return {
        "method": reply.method,
        "path": reply.path,
        "model": reply.model,
        "status": reply.status,
        "headers": [list(pair) for pair in reply.headers],
        "headers_ms": round(reply.headers_s * 1000, 3),
        "sized": reply.sized,
        "end": reply.end,
        "end_ms": round(reply.end_s * 1000, 3),
        "chunks": [chunk_json(chunk) for chunk in reply.chunks],
        "final": final_object(reply.chunks),
    }


def final_object(chunks: tuple[Chunk, ...]) -> Any:
    """The body's last JSON object (Ollama's done line, the usage or timings chunk)."""
    for line in reversed(b"".join(chunk.data for chunk in chunks).split(b"\n")):
        payload = line.strip().removeprefix(b"data:").strip()
        if payload and payload != b"[DONE]":
            try:
                return json.loads(payload)
            except ValueError:
                continue
    return None
