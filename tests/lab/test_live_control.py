"""The live control: stdin commands, POST /lab/control and RunningLab.control change the
next requests' TTFT, TPOT and fault without a restart."""

from __future__ import annotations

import subprocess
import sys
import time

import httpx
import pytest

from client.lab import ScenarioError, run_in_thread, scenario_from_dict
from client.lab.running.live import Live, change, command
from tests.lab.conftest import chat_body


def test_commands_read_as_the_control_json() -> None:
    assert command("ttft 600") == {"ttft_ms": "600"}
    assert command("tier slow") == {"tier": "slow"}
    assert command("fault stall after_tokens=3 seconds=0.5") == {
        "fault": {"kind": "stall", "after_tokens": 3, "seconds": 0.5}
    }
    assert command("fault none") == {"fault": None}
    assert command("clear") == {"clear": True} and command("  ") == {}
    with pytest.raises(ScenarioError, match="unknown command 'jump'"):
        command("jump")


def test_bad_values_are_one_sentence() -> None:
    for body, words in [
        ({"ttft_ms": "soon"}, "ttft_ms must be a number"),
        ({"tier": "cold-start"}, "tier must be one of"),
        ({"fault": {"kind": "boom"}}, "unknown fault kind"),
        ({"speed": 1}, "unknown control key"),
    ]:
        with pytest.raises(ScenarioError, match=words):
            change(Live(), body)


async def test_post_changes_the_next_request_and_clear_goes_back(start_lab) -> None:
    _, client = await start_lab(ttft=5, fault={"kind": "reset", "after_tokens": 2})
    set_it = await client.post("/lab/control", json={"ttft_ms": 300, "fault": None})
    assert set_it.json() == {"ttft_ms": 300.0, "tpot_ms": None, "fault": "none"}
    began = time.perf_counter()
    answer = await client.post("/api/chat", json=chat_body(stream=False))
    assert answer.status_code == 200 and time.perf_counter() - began >= 0.3
    await client.post("/lab/control", json={"fault": {"kind": "queue_full"}})
    assert (await client.post("/api/chat", json=chat_body())).status_code == 503
    await client.post("/lab/control", json={"clear": True})
    with pytest.raises((httpx.RemoteProtocolError, httpx.ReadError)):
        await client.post("/api/chat", json=chat_body())  # the scenario's reset again
    bad = await client.post("/lab/control", json={"tpot_ms": -1})
    assert bad.status_code == 400 and "tpot_ms" in bad.json()["error"]


def test_running_lab_moves_one_question_across_the_tiers() -> None:
    running = run_in_thread(scenario_from_dict({"output_tokens": 3, "base": "instant"}))
    try:
        spans = {}
        for tier, p50_ms in (("instant", 30.0), ("fast", 180.0), ("typing", 600.0)):
            assert running.control({"tier": tier})["ttft_ms"] == p50_ms
            began = time.perf_counter()
            httpx.post(f"{running.url}/api/chat", json=chat_body(stream=False), timeout=60)
            spans[tier] = time.perf_counter() - began
        # Each tier's first token is drawn from its own range (instant 5-95 ms, fast
        # 110-290, typing 320-980): the floors hold on any machine (sleeps only come late).
        assert spans["fast"] >= 0.11 and spans["typing"] >= 0.32
        with pytest.raises(ScenarioError):
            running.control({"tier": "warp"})
    finally:
        running.stop()


def test_tachy_lab_reads_commands_on_stdin() -> None:
    process = subprocess.Popen(
        [sys.executable, "-m", "client", "lab", "--port", "0", "--scenario", "instant"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdin is not None and process.stdout is not None
        process.stdout.readline()
        url = process.stdout.readline().split("Ollama API: ")[1].split("/api/chat")[0]
        process.stdin.write("fault http_error status=418\n")
        process.stdin.flush()
        while "next requests" not in (line := process.stdout.readline()):
            assert line, "tachy lab stopped"
        assert '"fault": "http_error"' in line
        assert httpx.post(f"{url}/api/chat", json=chat_body(), timeout=60).status_code == 418
        process.stdin.write("warp 9\n")
        process.stdin.flush()
        assert process.stderr is not None
        assert "unknown command 'warp 9'" in process.stderr.readline()
    finally:
        process.terminate()
        process.wait(10)
