"""The real-vLLM tier (`pytest -m vllm`): one vLLM 0.32 (CPU build, SmolLM2-135M as model
`smollm2`) for the whole session, started by the shared tool vllm-cpu.

The tool is found at $TACHY_VLLM_CPU, else ../shared/tools/vllm-cpu beside the checkout
(.ci/run sets the variable for a clone elsewhere; no absolute path is written in the
tests). It installs vLLM once (cached in ~/.cache/tachy-vllm),
starts it in the background and prints `url`, `model`, `pid` and `log` lines once /health
answers (about 2 minutes when cached); the session ends it with SIGTERM. A test of this
tier never passes without vLLM: when it cannot start, the fixture fails.

For working on the tier, TACHY_VLLM_URL=http://127.0.0.1:PORT uses a vLLM already running
(started by vllm-cpu with --enable-per-request-metrics --enable-log-requests); the
session leaves it running.
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
from urllib.parse import urlsplit

import httpx
import pytest

ROOT = Path(__file__).resolve().parents[2]
OPTIONS = ("--enable-per-request-metrics", "--enable-log-requests")
START_TIMEOUT_S = 900  # a first install takes minutes; the tool itself gives up after 8


@dataclass(frozen=True, slots=True)
class VllmServer:
    url: str
    model: str
    pid: int | None  # None: not ours to stop (TACHY_VLLM_URL)
    log: Path | None  # vLLM's own log (it says "Aborted request" there)

    def running(self) -> float:
        """vllm:num_requests_running now, read from /metrics."""
        text = httpx.get(f"{self.url}/metrics", timeout=30, trust_env=False).text
        return sum(
            float(line.rsplit(" ", 1)[1])
            for line in text.splitlines()
            if line.startswith("vllm:num_requests_running{")
        )

    def log_text(self) -> str:
        return self.log.read_text(encoding="utf-8", errors="replace") if self.log else ""


def vllm_cpu() -> Path:
    """The vllm-cpu tool; fails the session, with where it looked, when it is absent."""
    places = [
        Path(os.environ["TACHY_VLLM_CPU"]) if os.environ.get("TACHY_VLLM_CPU") else None,
        ROOT.parent / "shared" / "tools" / "vllm-cpu",
    ]
    for place in places:
        if place is not None and place.is_file() and os.access(place, os.X_OK):
            return place
    looked = ", ".join(str(p) for p in places if p is not None)
    pytest.fail(
        f"The vLLM tier needs the vllm-cpu tool; not found at {looked} "
        "(set TACHY_VLLM_CPU to its path)",
        pytrace=False,
    )


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _started(lines: str) -> dict[str, str]:
    found = {}
    for line in lines.splitlines():
        key, _, value = line.partition(" ")
        if key in ("url", "model", "pid", "log") and value:
            found[key] = value.strip()
    return found


def start_vllm(options: tuple[str, ...] = OPTIONS) -> VllmServer:
    tool = vllm_cpu()
    try:
        done = subprocess.run(
            [str(tool), "serve", str(free_port()), *options],
            capture_output=True, text=True, timeout=START_TIMEOUT_S, stdin=subprocess.DEVNULL,
        )  # fmt: skip
    except subprocess.TimeoutExpired:
        pytest.fail(f"vLLM did not start within {START_TIMEOUT_S} s", pytrace=False)
    found = _started(done.stdout)
    if done.returncode != 0 or "url" not in found or "pid" not in found:
        tail = (done.stderr or done.stdout)[-2000:]
        pytest.fail(f"vLLM could not start (exit {done.returncode}):\n{tail}", pytrace=False)
    log = Path(found["log"]) if "log" in found else None
    return VllmServer(found["url"], found.get("model", "smollm2"), int(found["pid"]), log)


def given_vllm(url: str) -> VllmServer:
    port = urlsplit(url).port
    home = Path(os.environ.get("TACHY_VLLM_HOME", Path.home() / ".cache" / "tachy-vllm"))
    log = home / f"serve-{port}.log"
    return VllmServer(url.rstrip("/"), "smollm2", None, log if log.is_file() else None)


def stop_vllm(pid: int, timeout_s: float = 120.0) -> None:
    """SIGTERM, then wait for the process to end (SIGKILL past the timeout)."""
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
def vllm() -> Iterator[VllmServer]:
    url = os.environ.get("TACHY_VLLM_URL")
    server = given_vllm(url) if url else start_vllm()
    try:
        yield server
    finally:
        if server.pid is not None:
            stop_vllm(server.pid)
