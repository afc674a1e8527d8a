"""How closely a replay keeps a recording's rhythm, as a client sees it.

`tachy lab --scenario FILE` runs as its own process (as a tester runs it); this process
sends each recorded request on one kept-alive connection with a plain socket client
(no HTTP library's own work measured) and notes when each read came, from the moment the
request was written. A recorded chunk has arrived when the body has reached its last
byte; its error is that arrival minus the chunk's recorded offset.
"""

from __future__ import annotations

import bisect
import json
import socket
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from client.lab import load_scenario


def replay_errors_ms(
    path: Path, endpoint: str, body: dict[str, Any], rounds: int
) -> tuple[list[float], list[float]]:
    """Each reply replayed `rounds` times: the signed error (ms) of its first chunk (how
    late the replaying lab started it), and of every later chunk against the reply's
    first (its rhythm)."""
    recording = load_scenario(path).recording
    assert recording is not None
    replies = recording.replies_for(endpoint)
    process = subprocess.Popen(
        [sys.executable, "-m", "client", "lab", "--port", "0", "--scenario", str(path)],
        stdout=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
        text=True,
    )
    try:
        assert process.stdout is not None
        process.stdout.readline()
        url = process.stdout.readline().split("Ollama API: ")[1].split("/api/chat")[0]
        host, port = url.removeprefix("http://").rsplit(":", 1)
        starts: list[float] = []
        errors: list[float] = []
        with socket.create_connection((host, int(port))) as sock:
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            for _ in range(rounds):
                for reply in replies:
                    ends, arrivals = _timed(sock, endpoint, body)
                    expected = [chunk.at_s * 1000 for chunk in reply.chunks]
                    assert len(ends) == len(expected)
                    signed = [got - want for got, want in zip(arrivals, expected, strict=True)]
                    starts.append(signed[0])
                    errors += [error - signed[0] for error in signed[1:]]
        return starts, errors
    finally:
        process.terminate()
        process.wait(10)


def summary(errors: list[float]) -> tuple[float, float, float]:
    """|error| median, P95 and max, in ms."""
    sizes = sorted(abs(e) for e in errors)
    return statistics.median(sizes), sizes[int(0.95 * (len(sizes) - 1))], sizes[-1]


def _timed(
    sock: socket.socket, endpoint: str, body: dict[str, Any]
) -> tuple[list[int], list[float]]:
    """One request: each body frame's end position and when (ms) it was all received."""
    payload = json.dumps(body).encode()
    request = (
        b"POST %s HTTP/1.1\r\nHost: lab\r\nContent-Type: application/json\r\n"
        b"Content-Length: %d\r\n\r\n%s" % (endpoint.encode(), len(payload), payload)
    )
    sock.sendall(request)
    started = time.perf_counter()
    raw, read_ends, read_times = b"", [], []
    while not _complete(raw):
        data = sock.recv(1 << 16)
        if not data:
            break
        raw += data
        read_ends.append(len(raw))
        read_times.append((time.perf_counter() - started) * 1000)
    head_end = raw.index(b"\r\n\r\n") + 4
    frames = _frames(raw, head_end)
    arrivals = [read_times[bisect.bisect_right(read_ends, last)] for last in frames]
    return frames, arrivals


def _complete(raw: bytes) -> bool:
    if b"\r\n\r\n" not in raw:
        return False
    head, _, rest = raw.partition(b"\r\n\r\n")
    if b"transfer-encoding: chunked" in head.lower():
        return rest.endswith(b"0\r\n\r\n") and (
            rest == b"0\r\n\r\n" or rest.endswith(b"\r\n0\r\n\r\n")
        )
    length = int(head.lower().split(b"content-length: ")[1].split(b"\r\n")[0])
    return len(rest) >= length


def _frames(raw: bytes, at: int) -> list[int]:
    """The raw position of each chunked frame's last data byte (the replay writes one frame
    per recorded chunk); a sized body is one frame."""
    if b"transfer-encoding: chunked" not in raw[:at].lower():
        return [len(raw) - 1]
    ends = []
    while True:
        line_end = raw.index(b"\r\n", at)
        size = int(raw[at:line_end], 16)
        if size == 0:
            return ends
        ends.append(line_end + 2 + size - 1)
        at = line_end + 2 + size + 2
