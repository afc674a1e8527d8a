"""Ctrl-C during a tool ends `tachy chat --mcp` within 250 ms (issue 36), exit 130: the
`hang` tool of the demo server blocks that server for good, so the command must end it
rather than wait out the SDK's 2 s grace. Measured from SIGINT to the process's end, by
the parent. The baseline from this run: Ctrl-C on a plain `tachy chat` while its answer
streams (the command's own exit); on a machine too busy for 250 ms, the goal is twice
that baseline."""

from __future__ import annotations

import json
import signal
import statistics
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from client.lab import run_in_thread, scenario_from_dict
from tests.cli.test_chat_tools import ROOT, _env

GOAL_MS = 250.0
RUNS = 3


@pytest.fixture(scope="module")
def lab_url() -> Iterator[str]:
    running = run_in_thread(scenario_from_dict({"ttft": 5, "tpot_ms": 50, "output_tokens": 4000}))
    yield running.url
    running.stop()


def _stop_ms(args: list[str], when: dict[str, str]) -> float:
    """Start the command, SIGINT it once `when` is printed, and time its end."""
    chat = subprocess.Popen(
        [sys.executable, "-m", "client", *args], stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True, env=_env(),
    )  # fmt: skip
    assert chat.stdout is not None
    for line in chat.stdout:
        if json.loads(line) == when:
            break
    started = time.perf_counter()
    chat.send_signal(signal.SIGINT)
    chat.wait(timeout=30)
    ended = (time.perf_counter() - started) * 1000
    _, err = chat.communicate()
    assert chat.returncode == 130 and "Traceback" not in err
    return ended


def test_ctrl_c_during_a_hung_tool_ends_within_250_ms(lab_url: str, tmp_path: Path) -> None:
    demo = {"command": sys.executable, "args": ["-m", "client.lab.mcp_demo"],
            "env": {"PYTHONPATH": str(ROOT)}}  # fmt: skip
    mcp = tmp_path / "mcp.json"
    mcp.write_text(json.dumps({"mcpServers": {"demo": demo}}), encoding="utf-8")
    chat = ["chat", "--url", lab_url, "--api", "openai", "-m", "tachy-lab", "--json"]
    plain = [_stop_ms([*chat, "hi"], {"event": "state", "state": "answering"})
             for _ in range(RUNS)]  # fmt: skip
    tools = [*chat, "--mcp", str(mcp), "--allow-tools", "all", "Use hang."]
    using = {"event": "state", "state": "using_tool", "tool": "hang"}
    stopped = [_stop_ms(tools, using) for _ in range(RUNS)]
    baseline, measured = statistics.median(plain), statistics.median(stopped)
    goal = max(GOAL_MS, 2 * baseline)
    print(
        f"\nCtrl-C during the hang tool: exit 130 after {measured:.0f} ms (median of {RUNS}; "
        f"a plain tachy chat stopped mid-answer: {baseline:.0f} ms; goal {goal:.0f} ms)"
    )
    assert measured <= goal
