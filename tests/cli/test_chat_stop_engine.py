"""Ctrl-C on `tachy chat` while the local engine reads a long prompt: the command exits
130 and the engine stops reading (llama-server notices the closed connection when it
writes its next progress chunk, one to two batches later). Counted in the engine's CPU
work, not timed: tests/perf/test_engine_stop.py measures how soon."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import pytest

from client.backends.engine.local_engine import LocalEngine
from tests.engine_work import cpu_ticks, wait_until_idle, work_after_stop

pytestmark = pytest.mark.engine
WORDS = "river stone light green window paper music garden silver morning table winter".split()


def test_ctrl_c_mid_prefill_frees_the_engine(local_engine: LocalEngine) -> None:
    pid = local_engine.pid
    assert pid is not None
    stamp = str(time.time_ns())  # a prompt no earlier test sent: nothing of it is cached
    prompt = stamp + " " + " ".join(WORDS[(i * 7) % len(WORDS)] for i in range(1200))
    wait_until_idle(local_engine.url)
    before = cpu_ticks(pid)
    chat = subprocess.Popen(
        [sys.executable, "-m", "client", "chat", "--url", local_engine.url, "--api", "openai",
         "-m", local_engine.model, "--max-tokens", "1", "--json", prompt],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
    )  # fmt: skip
    try:
        assert chat.stdout is not None
        progress = []
        for line in chat.stdout:
            event = json.loads(line)
            if event["event"] == "prefill" and event["processed"] > event["cached"]:
                progress.append(event)
                if len(progress) == 2:
                    break
        assert len(progress) == 2, "no prefill progress from the engine"
        stopped_at = cpu_ticks(pid)
        os.kill(chat.pid, signal.SIGINT)  # Ctrl-C
        assert chat.wait(timeout=120) == 130
    finally:
        if chat.poll() is None:
            chat.kill()
            chat.wait()
    after = work_after_stop(pid, local_engine.url, stopped_at)
    read = progress[-1]
    # Ticks a prompt token costs, over-counted (the engine read on while the event came).
    per_token = (stopped_at - before) / (read["processed"] - read["cached"])
    rest = per_token * (read["total"] - read["processed"])
    print(f"\nengine: {after} ticks after Ctrl-C; the rest of the prompt: ~{rest:.0f} ticks")
    assert stopped_at > before, "the engine was not computing"
    assert after < rest / 2, "the engine read on after Ctrl-C"
