"""Several models in one lab: [models.NAME] tables, each with its own dials, listed by
/api/tags and /v1/models, with their own keep-alive state in /api/ps."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest

from client.lab import LabServer, ScenarioError, load_scenario, scenario_from_dict
from tests.lab.conftest import chat_body

SCENARIOS = Path(__file__).resolve().parents[2] / "resources" / "scenarios"
TWO = {
    "ttft": 5,
    "tpot_ms": 1,
    "output_tokens": 6,
    "models": {
        "small": {"keep_alive": "30s", "family": "qwen2"},
        "big:7b": {
            "start_loaded": False,
            "load_ms": 300,
            "output_tokens": 3,
            "steps": ["reset", "ok"],
        },
    },
}


@pytest.fixture
async def lab() -> AsyncIterator[httpx.AsyncClient]:
    server = LabServer(scenario_from_dict(TWO))
    url = await server.start()
    async with httpx.AsyncClient(base_url=url, timeout=10) as client:
        yield client
    await server.stop()


def test_each_table_starts_from_the_top_level_or_its_own_base() -> None:
    scenario = scenario_from_dict({"tpot_ms": 7, "models": {"a": {}, "b": {"base": "slow"}}})
    a, b = scenario.served()
    assert (a.model, a.tpot_ms, b.model, b.tpot_ms) == ("a", 7, "b", 40)
    with pytest.raises(ScenarioError, match=r"models\.b: unknown scenario key 'tpo'"):
        scenario_from_dict({"models": {"b": {"tpo": 1}}})


async def test_both_are_listed_by_both_apis(lab: httpx.AsyncClient) -> None:
    tags = (await lab.get("/api/tags")).json()["models"]
    assert [m["name"] for m in tags] == ["small:latest", "big:7b"]
    assert tags[0]["details"]["family"] == "qwen2"
    assert [m["id"] for m in (await lab.get("/v1/models")).json()["data"]] == ["small", "big:7b"]
    missing = await lab.post("/api/chat", json=chat_body(model="tachy-lab"))
    assert missing.status_code == 404


async def test_each_keeps_its_own_keep_alive_and_dials(lab: httpx.AsyncClient) -> None:
    ps = (await lab.get("/api/ps")).json()["models"]
    assert [m["name"] for m in ps] == ["small:latest"]  # big starts unloaded
    with pytest.raises((httpx.RemoteProtocolError, httpx.ReadError)):
        await lab.post("/api/chat", json=chat_body(model="big:7b"))  # its first step
    small = (await lab.post("/api/chat", json=chat_body(model="small", stream=False))).json()
    big = (await lab.post("/api/chat", json=chat_body(model="big:7b", stream=False))).json()
    assert small["eval_count"] == 6 and small["load_duration"] / 1e9 < 0.05
    assert big["eval_count"] == 3 and big["load_duration"] / 1e9 < 0.05  # loaded by the reset
    ps = {m["name"]: m for m in (await lab.get("/api/ps")).json()["models"]}
    assert set(ps) == {"small:latest", "big:7b"}


async def test_a_cold_model_pays_its_own_load(lab: httpx.AsyncClient) -> None:
    body = (await lab.post("/api/chat", json=chat_body(model="small", stream=False))).json()
    assert body["load_duration"] / 1e9 < 0.05
    await lab.post("/api/chat", json={"model": "big:7b", "messages": []})  # load it
    ps = {m["name"]: m["expires_at"] for m in (await lab.get("/api/ps")).json()["models"]}
    assert set(ps) == {"small:latest", "big:7b"}
    assert ps["big:7b"] > ps["small:latest"]  # 5 minutes against 30 s


async def test_fast_down_strong_up() -> None:
    scenario = load_scenario(SCENARIOS / "fast-down-strong-up.toml")
    server = LabServer(scenario)
    url = await server.start()
    try:
        async with httpx.AsyncClient(base_url=url, timeout=10) as client:
            for _ in range(2):
                fast = await client.post("/v1/chat/completions", json=chat_body(model="lab-fast"))
                assert fast.status_code == 503 and "lab-fast is down" in fast.text
            strong = await client.post(
                "/v1/chat/completions", json=chat_body(model="lab-strong", max_tokens=4)
            )
            assert strong.status_code == 200
            assert strong.json()["choices"][0]["finish_reason"] == "length"
            assert strong.elapsed.total_seconds() >= 0.32  # the typing tier's floor
    finally:
        await server.stop()
