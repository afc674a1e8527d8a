"""The in-process API a Demo menu uses: run_in_thread, live scenario switches, stop."""

from __future__ import annotations

import httpx
import pytest

from client.lab import LabServer, ScenarioError, run_in_thread, scenario_from_dict
from tests.lab.conftest import chat_body


def test_run_in_thread_serves_switches_live_and_stops() -> None:
    running = run_in_thread("instant")
    try:
        assert running.url.startswith("http://127.0.0.1:")
        with httpx.Client(base_url=running.url, timeout=10) as client:
            assert client.get("/").text == "Ollama is running"
            assert len(client.get("/api/ps").json()["models"]) == 1  # tiers start loaded
            running.set_scenario("cold-start")
            assert client.get("/api/ps").json()["models"] == []  # cold from now on
            assert running.server.scenario.name == "cold-start"
            running.set_scenario("overloaded")
            running.set_scenario("reset")
            with pytest.raises(ScenarioError):
                running.set_scenario("no-such-preset")
            assert running.server.scenario.name == "reset"
    finally:
        running.stop()
    assert not running.thread.is_alive()
    with pytest.raises(httpx.ConnectError):
        httpx.get(running.url, timeout=2)
    running.stop()  # twice is harmless


async def test_set_scenario_changes_the_next_reply() -> None:
    server = LabServer(scenario_from_dict({"base": "instant", "output_tokens": 3}))
    url = await server.start(port=0)
    try:
        async with httpx.AsyncClient(base_url=url, timeout=10) as client:
            assert (await client.post("/api/chat", json=chat_body(stream=False))).status_code == 200
            quick = {"ttft": 1, "tpot_ms": 1, "output_tokens": 2}
            server.set_scenario(scenario_from_dict({"base": "overloaded", **quick}))
            codes = {
                (await client.post("/api/chat", json=chat_body(stream=False))).status_code
                for _ in range(12)
            }
            assert codes & {429, 503}
    finally:
        await server.stop()
