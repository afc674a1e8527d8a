"""Ctrl-C on `tachy chat` while the local engine reads a long prompt: the command exits
130 and the engine stops computing one to two batches later (llama-server notices the
closed connection when it writes its next progress chunk)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import pytest

from client.backends.local_engine import LocalEngine
from tests.engine_cpu import LastTick, cpu_ticks

pytestmark = pytest.mark.engine
WORDS = "river stone light green window paper music garden silver morning table winter".split()


def test_ctrl_c_mid_prefill_frees_the_engine(local_engine: LocalEngine) -> None:
    assert local_engine.pid is not None
    stamp = str(time.time_ns())  # a prompt no earlier test sent: nothing of it is cached
    prompt = stamp + " " + " ".join(WORDS[(i * 7) % len(WORDS)] for i in range(1200))
    chat = subprocess.Popen(
        [sys.executable, "-m", "client", "chat", "--url", local_engine.url, "--api", "openai",
         "-m", local_engine.model, "--max-tokens", "1", "--json", prompt],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
    )  # fmt: skip
    try:
        assert chat.stdout is not None
        progress, ticks = [], []
        for line in chat.stdout:
            event = json.loads(line)
            if event["event"] == "prefill" and event["processed"] > event["cached"]:
                progress.append(event)
                ticks.append(cpu_ticks(local_engine.pid))
                if len(progress) == 2:
                    break
        assert len(progress) == 2, "no prefill progress from the engine"
        assert ticks[1] - ticks[0] >= 3, f"the engine was not computing: {ticks}"
        last_tick = LastTick(local_engine.pid)
        last_tick.start()
        last_tick.stopped()
        os.kill(chat.pid, signal.SIGINT)  # Ctrl-C
        assert chat.wait(timeout=30) == 130
    finally:
        if chat.poll() is None:
            chat.kill()
            chat.wait()
    idle_ms = last_tick.idle_ms()
    done = progress[-1]
    batch_ms = (
        done["time_ms"] / (done["processed"] - done["cached"]) * local_engine.settings.n_batch
    )
    print(f"\nengine idle {idle_ms:.0f} ms after Ctrl-C (its batches take {batch_ms:.0f} ms)")
    assert idle_ms <= max(500.0, 2.5 * batch_ms)
