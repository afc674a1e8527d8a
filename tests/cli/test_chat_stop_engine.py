"""Ctrl-C on `tachy chat` while the local engine reads a long prompt: the command exits
130 and the engine stops computing one to two batches later (llama-server notices the
closed connection when it writes its next progress chunk)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from client.backends.local_engine import LocalEngine

pytestmark = pytest.mark.engine
WORDS = "river stone light green window paper music garden silver morning table winter".split()


def cpu_ticks(pid: int) -> int:
    after_name = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return int(after_name[11]) + int(after_name[12])


class LastTick(threading.Thread):
    """Samples the engine's CPU ticks from before the Stop, so that no tick it spends
    while the command winds down is missed; ends after `quiet_s` without one."""

    def __init__(self, pid: int, quiet_s: float = 0.6) -> None:
        super().__init__(daemon=True)
        self.pid, self.quiet_s = pid, quiet_s
        self.since = self.last_growth = time.monotonic()

    def run(self) -> None:
        ticks = cpu_ticks(self.pid)
        while time.monotonic() - self.last_growth < self.quiet_s:
            time.sleep(0.003)  # sampling a clock, not waiting for an event
            now = cpu_ticks(self.pid)
            if now > ticks:
                ticks, self.last_growth = now, time.monotonic()

    def idle_ms(self) -> float:
        self.join(timeout=60)
        return (self.last_growth - self.since) * 1000.0


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
