"""Ctrl-C on `tachy chat` while the local engine reads a long prompt: the command exits
130 and the engine stops computing about one batch later (llama-server notices the
closed connection when it writes its next progress chunk)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from client.backends.local_engine import LocalEngine

pytestmark = pytest.mark.engine
WORDS = "river stone light green window paper music garden silver morning table winter".split()


def cpu_ticks(pid: int) -> int:
    after_name = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return int(after_name[11]) + int(after_name[12])


def last_tick_ms(pid: int, since: float, quiet_s: float = 0.6) -> float:
    last_growth, ticks = since, cpu_ticks(pid)
    while time.monotonic() - last_growth < quiet_s:
        time.sleep(0.01)  # sampling a clock, not waiting for an event
        now = cpu_ticks(pid)
        if now > ticks:
            ticks, last_growth = now, time.monotonic()
    return (last_growth - since) * 1000.0


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
        os.kill(chat.pid, signal.SIGINT)  # Ctrl-C
        stopped_at = time.monotonic()
        assert chat.wait(timeout=30) == 130
    finally:
        if chat.poll() is None:
            chat.kill()
            chat.wait()
    idle_ms = last_tick_ms(local_engine.pid, stopped_at)
    done = progress[-1]
    batch_ms = (
        done["time_ms"] / (done["processed"] - done["cached"]) * local_engine.settings.n_batch
    )
    print(f"\nengine idle {idle_ms:.0f} ms after Ctrl-C (its batches take {batch_ms:.0f} ms)")
    assert idle_ms <= max(500.0, 2.5 * batch_ms)
