"""A real llama.cpp vision server for the tests that need one: llama-server (xllamacpp)
with SmolLM2-135M and a random-weight pixtral projector, started once per session by
the shared tool llamacpp-vision (its answers are nonsense; its wire, image token counts
and timings are llama.cpp's own).

The tool is found at $TACHY_LLAMACPP_VISION, else shared/tools/llamacpp-vision beside
the checkout (CI copies shared/ there) or one folder further up (a worktree); no
absolute path is written here. TACHY_VISION_URL=http://127.0.0.1:PORT uses a server
already running (left running). Its first start installs it (a minute); a test that
needs it never passes without it: when it cannot start, the fixture fails. The tool's
pixtral projector is used: one token per 32 px patch, so an image's prompt tokens
follow its size.

    def test_x(vision_server: VisionServer) -> None:  # tests/conftest.py gives the fixture
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
START_TIMEOUT_S = 600
# Its tests run on one worker of plain `pytest` (addopts' `--dist loadgroup`): the server
# is per session, so each worker that ran one would start its own, a minute on a busy
# machine.
ONE_WORKER = pytest.mark.xdist_group("vision_server")


@dataclass(frozen=True, slots=True)
class VisionServer:
    url: str
    model: str
    pid: int | None  # None: not ours to stop (TACHY_VISION_URL)


def _tool() -> Path:
    given = os.environ.get("TACHY_LLAMACPP_VISION")
    places = [Path(given)] if given else []
    places += [base / "shared" / "tools" / "llamacpp-vision" for base in ROOT.parents[:2]]
    for place in places:
        if place.is_file() and os.access(place, os.X_OK):
            return place
    looked = ", ".join(str(p) for p in places)
    pytest.fail(f"The llamacpp-vision tool was not found at {looked}", pytrace=False)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _start() -> VisionServer:
    command = [str(_tool()), "serve", str(_free_port()), "pixtral"]
    try:
        done = subprocess.run(
            command, capture_output=True, text=True, timeout=START_TIMEOUT_S,
            stdin=subprocess.DEVNULL,
        )  # fmt: skip
    except subprocess.TimeoutExpired:
        pytest.fail(f"The vision server did not start within {START_TIMEOUT_S} s", pytrace=False)
    found = dict(line.partition(" ")[::2] for line in done.stdout.splitlines() if " " in line)
    if done.returncode != 0 or "url" not in found or "pid" not in found:
        tail = (done.stderr or done.stdout)[-2000:]
        pytest.fail(f"The vision server could not start:\n{tail}", pytrace=False)
    return VisionServer(found["url"].strip(), found.get("model", "").strip(), int(found["pid"]))


def _stop(pid: int, timeout_s: float = 60.0) -> None:
    try:
        os.kill(pid, signal.SIGTERM)
    except ProcessLookupError:
        return
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return
        time.sleep(0.2)
    os.kill(pid, signal.SIGKILL)


@pytest.fixture(scope="session")
def vision_server() -> Iterator[VisionServer]:
    url = os.environ.get("TACHY_VISION_URL")
    server = VisionServer(url.rstrip("/"), "smollm2-135m-vision", None) if url else _start()
    try:
        yield server
    finally:
        if server.pid is not None:
            _stop(server.pid)
