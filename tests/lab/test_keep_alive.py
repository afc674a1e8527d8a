"""keep_alive: load, unload, expiry, cold loads with load_duration (Ollama semantics)."""

from __future__ import annotations

import asyncio
import math
from datetime import UTC, datetime, timedelta

import pytest

from client.lab.scenarios.models import KeepAliveError, ModelState, parse_keep_alive
from tests.lab.conftest import chat_body


@pytest.mark.parametrize(
    ("value", "seconds"),
    [("10m", 600), ("30s", 30), ("1h30m", 5400), ("500ms", 0.5), (300, 300), (2.5, 2.5),
     ("0", 0), (0, 0), (-1, math.inf), ("-1m", math.inf), ("45", 45)],
)  # fmt: skip
def test_keep_alive_values(value: object, seconds: float) -> None:
    assert parse_keep_alive(value) == seconds


@pytest.mark.parametrize("value", ["soon", "10x", "", True, None, [1]])
def test_bad_keep_alive_values(value: object) -> None:
    with pytest.raises(KeepAliveError):
        parse_keep_alive(value)


def test_a_model_in_use_never_expires_under_its_request() -> None:
    state = ModelState()
    assert state.acquire("m:latest", now=0.0, load_s=2.0, hold_s=1.0) == 2.0
    assert state.loaded("m:latest", now=50.0) is not None  # still busy
    state.release("m:latest", now=50.0, keep_alive_s=1.0)
    assert state.loaded("m:latest", now=50.5) is not None
    assert state.loaded("m:latest", now=51.5) is None


async def test_empty_messages_load_the_cold_model(start_lab) -> None:
    _, client = await start_lab(start_loaded=False, load_ms=120)
    assert (await client.get("/api/ps")).json() == {"models": []}
    response = await client.post("/api/chat", json={"model": "tachy-lab", "messages": []})
    body = response.json()
    assert body["done_reason"] == "load" and body["done"] is True
    assert body["message"] == {"role": "assistant", "content": ""}
    assert len((await client.get("/api/ps")).json()["models"]) == 1
    generate = await client.post("/api/generate", json={"model": "tachy-lab"})
    assert generate.json()["done_reason"] == "load"


async def test_cold_request_reports_load_duration_then_warm_a_small_one(start_lab) -> None:
    _, client = await start_lab(start_loaded=False, load_ms=150)
    cold = (await client.post("/api/chat", json=chat_body(stream=False))).json()
    assert cold["load_duration"] >= 150_000_000  # nanoseconds
    assert cold["total_duration"] >= cold["load_duration"] + cold["prompt_eval_duration"]
    warm = (await client.post("/api/chat", json=chat_body(stream=False))).json()
    # Real Ollama sets it on every done response (server/routes.go): small but present.
    assert 0 < warm["load_duration"] < 50_000_000


async def test_keep_alive_zero_unloads(lab) -> None:
    _, client = lab
    response = await client.post(
        "/api/chat", json={"model": "tachy-lab", "messages": [], "keep_alive": 0}
    )
    assert response.json()["done_reason"] == "unload"
    assert (await client.get("/api/ps")).json()["models"] == []
    generate = await client.post("/api/generate", json={"model": "tachy-lab", "keep_alive": 0})
    assert generate.json()["done_reason"] == "unload"


async def test_a_reply_with_keep_alive_zero_unloads_after_it(lab) -> None:
    _, client = lab
    reply = await client.post("/api/chat", json=chat_body(stream=False, keep_alive=0))
    assert reply.json()["done_reason"] == "stop"
    assert (await client.get("/api/ps")).json()["models"] == []


async def test_expiry_counts_down_and_the_model_unloads(start_lab) -> None:
    _, client = await start_lab(keep_alive="2s")
    await client.post("/api/chat", json=chat_body(stream=False))
    first = await _expires_at(client)
    assert 0 < (first - datetime.now(UTC)).total_seconds() <= 2
    await asyncio.sleep(0.1)
    second = await _expires_at(client)
    assert abs((second - first).total_seconds()) < 0.05  # a countdown to a fixed instant
    for _ in range(6000):  # unloaded at that instant (polled: a minute at most)
        if (await client.get("/api/ps")).json()["models"] == []:
            break
        await asyncio.sleep(0.01)
    assert datetime.now(UTC) >= first - timedelta(seconds=0.05)
    assert (await client.get("/api/ps")).json()["models"] == []
    cold = (await client.post("/api/chat", json=chat_body(stream=False))).json()
    assert "done_reason" in cold


async def _expires_at(client) -> datetime:
    (model,) = (await client.get("/api/ps")).json()["models"]
    return datetime.fromisoformat(model["expires_at"].replace("Z", "+00:00"))


async def test_negative_keep_alive_keeps_it_forever(lab) -> None:
    _, client = lab
    await client.post("/api/chat", json={"model": "tachy-lab", "messages": [], "keep_alive": -1})
    (model,) = (await client.get("/api/ps")).json()["models"]
    assert model["expires_at"] > "2300"
