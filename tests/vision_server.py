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
import tempfile
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
# Its first start installs it; beside the suite on a busy machine a start took minutes.
# Within the tests' own timeout (900 s, their pytest.mark.timeout), which counts the
# session fixture's start in the first test that asks for it.
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
    """The tool's server, once the tool says it answers (its `url`, `model`, `pid` lines).
    The tool runs in its own process group, so a start given up on takes the server it
    began (nohup'd in the background) with it."""
    command = [str(_tool()), "serve", str(_free_port()), "pixtral"]
    with tempfile.TemporaryFile("w+") as errors:
        tool = subprocess.Popen(
            command, stdout=subprocess.PIPE, stderr=errors, text=True,
            stdin=subprocess.DEVNULL, start_new_session=True,
        )  # fmt: skip
        said = _ready_lines(tool, START_TIMEOUT_S)
        if said is None:
            os.killpg(tool.pid, signal.SIGKILL)
        tool.wait()
        errors.seek(0)
        tail = errors.read()[-3000:]
    if said is None:
        why = f"did not say it was ready within {START_TIMEOUT_S} s"
    elif "url" not in said or "pid" not in said:
        why = f"could not start (the tool ended with {tool.returncode})"
    else:
        return VisionServer(said["url"], said.get("model", ""), int(said["pid"]))
    pytest.fail(f"The vision server {why}; the tool's stderr:\n{tail}", pytrace=False)


def _ready_lines(tool: subprocess.Popen[str], timeout_s: float) -> dict[str, str] | None:
    """The tool's `name value` lines once it printed url and pid (ready) or ended; None
    when neither came within timeout_s."""
    said: dict[str, str] = {}
    over = threading.Event()

    def read() -> None:
        assert tool.stdout is not None
        for line in tool.stdout:
            name, _, value = line.strip().partition(" ")
            said[name] = value
            if "url" in said and "pid" in said:
                over.set()
        over.set()  # the tool ended (stdout closed)

    threading.Thread(target=read, daemon=True).start()
    return dict(said) if over.wait(timeout_s) else None


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
