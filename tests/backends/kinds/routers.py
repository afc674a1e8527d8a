"""The real vLLM router (`vllm-router`, from its wheel in the test extra) started in front
of given workers, with its own metrics on a free port."""

from __future__ import annotations

import shutil
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

import httpx
import pytest

from client.backends.kinds.vllm_router.workers import workers
from tests.backends.test_live_http import closed_port

STARTUP_S = 60.0


@dataclass
class RunningRouter:
    url: str
    port: int
    metrics_url: str
    process: subprocess.Popen[bytes]


def _wait_until_routing(url: str, count: int, process: subprocess.Popen[bytes]) -> None:
    """Until the router lists `count` healthy workers (it checks them before it listens)."""
    deadline = time.monotonic() + STARTUP_S
    while time.monotonic() < deadline:
        if process.poll() is not None:
            pytest.fail(f"vllm-router exited with {process.returncode}", pytrace=False)
        try:
            found = workers(httpx.get(f"{url}/workers", timeout=2).json())
        except (httpx.HTTPError, ValueError):
            found = None
        if found is not None and sum(bool(w.healthy) for w in found) == count:
            return
        time.sleep(0.1)  # polling for readiness, not a wait standing in for an event
    pytest.fail(f"vllm-router did not route to {count} workers in {STARTUP_S:g} s", pytrace=False)


@contextmanager
def running_router(
    worker_urls: list[str], policy: str = "round_robin", *flags: str
) -> Iterator[RunningRouter]:
    binary = shutil.which("vllm-router")
    if binary is None:
        pytest.fail("vllm-router is not installed (pip install -e '.[test]')", pytrace=False)
    port, metrics_port = closed_port(), closed_port()
    command = [binary, "--worker-urls", *worker_urls, "--policy", policy]
    command += ["--host", "127.0.0.1", "--port", str(port), *flags]
    # Its Prometheus exporter listens too (on 29000 by default: a second router would clash).
    command += ["--prometheus-host", "127.0.0.1", "--prometheus-port", str(metrics_port)]
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    try:
        _wait_until_routing(url, len(worker_urls), process)
        yield RunningRouter(url, port, f"http://127.0.0.1:{metrics_port}", process)
    finally:
        process.terminate()
        process.wait(timeout=30)
