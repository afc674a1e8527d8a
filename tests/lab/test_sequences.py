"""Sequences: steps played in order of arrival, per model or per conversation, and the
bundled sequence scenarios served in order through the lab's HTTP API."""

from __future__ import annotations

import itertools
import time
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest

from client.lab import LabServer, ScenarioError, load_scenario, scenario_from_dict
from client.lab.scenarios.steps import step_at
from tests.lab.conftest import chat_body
from tests.lab.test_faults import tokens_in

SCENARIOS = Path(__file__).resolve().parents[2] / "resources" / "scenarios"
OLLAMA = "/api/chat"
OPENAI = "/v1/chat/completions"


def kinds(scenario: dict, count: int) -> list[str]:
    s = scenario_from_dict(scenario)
    return [step_at(s.steps, s.after, i).kind for i in range(count)]


def test_repeat_and_what_follows_the_last_step() -> None:
    steps = [{"kind": "queue_full", "repeat": 2}, "ok", {"kind": "reset", "after_tokens": 3}]
    assert kinds({"steps": steps}, 6) == ["queue_full"] * 2 + ["ok", "reset", "ok", "ok"]
    assert kinds({"steps": steps, "after": "hold"}, 6) == [
        *["queue_full"] * 2, "ok", "reset", "reset", "reset"
    ]  # fmt: skip
    assert kinds({"steps": steps, "after": "loop"}, 6) == [
        *["queue_full"] * 2, "ok", "reset", "queue_full", "queue_full"
    ]  # fmt: skip


@pytest.mark.parametrize(("steps", "words"), [
    ([], "non-empty"),
    ([{"kind": "ok", "status": 500}], "step 1: an 'ok' step"),
    ([{"kind": "ok"}, {"kind": "boom"}], "step 2: unknown fault kind 'boom'"),
    ([{"kind": "ok", "repeat": 0}], "repeat"),
    ([{"ttft": 5}], "at least 'kind'"),
])  # fmt: skip
def test_a_bad_step_is_named_in_one_sentence(steps: list, words: str) -> None:
    with pytest.raises(ScenarioError, match=words):
        scenario_from_dict({"steps": steps})


def test_after_must_be_known() -> None:
    with pytest.raises(ScenarioError, match="after must be"):
        scenario_from_dict({"steps": ["ok"], "after": "again"})


async def start(scenario: object) -> tuple[LabServer, httpx.AsyncClient]:
    server = LabServer(scenario)  # type: ignore[arg-type]
    url = await server.start()
    return server, httpx.AsyncClient(base_url=url, timeout=60)


@pytest.fixture
async def running() -> AsyncIterator[list[tuple[LabServer, httpx.AsyncClient]]]:
    started: list[tuple[LabServer, httpx.AsyncClient]] = []
    yield started
    for server, client in started:
        await client.aclose()
        await server.stop()


async def serve(running: list, scenario: object) -> httpx.AsyncClient:
    pair = await start(scenario)
    running.append(pair)
    return pair[1]


async def test_steps_count_per_conversation_when_the_request_names_one(running) -> None:
    client = await serve(
        running,
        scenario_from_dict(
            {"ttft": 5, "tpot_ms": 1, "output_tokens": 4, "steps": ["queue_full", "ok"]}
        ),
    )
    first_a = await client.post(OLLAMA, json=chat_body(), headers={"X-Conversation-Id": "a"})
    first_b = await client.post(OPENAI, json=chat_body(user="b"))
    second_a = await client.post(OLLAMA, json=chat_body(), headers={"X-Conversation-Id": "a"})
    first_none = await client.post(OLLAMA, json=chat_body(stream=False))
    assert [r.status_code for r in (first_a, first_b, second_a, first_none)] == [503, 503, 200, 503]


async def test_a_step_sets_its_own_ttft_and_tpot(running) -> None:
    steps = [{"kind": "ok", "ttft": 1000, "tpot_ms": 30}, {"kind": "ok"}]
    client = await serve(
        running, scenario_from_dict({"ttft": 5, "tpot_ms": 1, "output_tokens": 6, "steps": steps})
    )
    spans = []
    for _ in range(2):
        began = time.perf_counter()
        response = await client.post(OLLAMA, json=chat_body(stream=False))
        spans.append(time.perf_counter() - began)
        assert response.status_code == 200
    # The first step's own 1 s and 30 ms (sleeps only come late); the second, the
    # scenario's 5 ms: not the first step's second, however busy the machine.
    assert spans[0] >= 1.0 + 5 * 0.03 - 0.01 and spans[1] < 1.0


async def _tokens(client: httpx.AsyncClient, path: str) -> tuple[int, list[str]]:
    extra = {"stream": True} if path == OPENAI else {}
    async with client.stream("POST", path, json=chat_body(**extra)) as response:
        return response.status_code, tokens_in(await response.aread(), path)


@pytest.mark.parametrize("path", [OLLAMA, OPENAI])
async def test_retry_after_503(running, path: str) -> None:
    client = await serve(running, SCENARIOS / "retry-after-503.toml")
    first = await client.post(path, json=chat_body())
    assert first.status_code == 503 and "server busy" in first.text
    for _ in range(2):
        code, tokens = await _tokens(client, path)
        assert code == 200 and len(tokens) == 64


@pytest.mark.parametrize("path", [OLLAMA, OPENAI])
async def test_reset_then_continue(running, path: str) -> None:
    client = await serve(running, SCENARIOS / "reset-then-continue.toml")
    received = b""
    extra = {"stream": True} if path == OPENAI else {}
    with pytest.raises((httpx.RemoteProtocolError, httpx.ReadError)):
        async with client.stream("POST", path, json=chat_body(**extra)) as response:
            async for data in response.aiter_raw():
                received += data
    assert len(tokens_in(received, path)) == 12
    code, tokens = await _tokens(client, path)
    assert code == 200 and len(tokens) == 64


async def test_cold_then_warm(running) -> None:
    client = await serve(running, SCENARIOS / "cold-then-warm.toml")
    assert (await client.get("/api/ps")).json()["models"] == []
    bodies = []
    for _ in range(3):
        response = await client.post(OLLAMA, json=chat_body(stream=False))
        bodies.append(response.json())
    load_s = [b["load_duration"] / 1e9 for b in bodies]
    assert load_s[0] > 1.9 and max(load_s[1:]) < 1.0  # a load takes 2 s: only the first
    assert [m["name"] for m in (await client.get("/api/ps")).json()["models"]] == [
        "tachy-lab:latest"
    ]


async def test_stall_then_recovery(running) -> None:
    client = await serve(running, SCENARIOS / "stall-then-recovery.toml")
    gaps = []
    for _ in range(2):
        stamps = []
        async with client.stream("POST", OLLAMA, json=chat_body()) as response:
            async for line in response.aiter_lines():
                if tokens_in(line.encode(), OLLAMA):
                    stamps.append(time.perf_counter())
        gaps.append([b - a for a, b in itertools.pairwise(stamps)])
        assert len(stamps) == 64
    assert gaps[0][9] >= 2.95 and max(gaps[1]) < 2.0  # the 3 s stall once, not again


async def test_unknown_model(running) -> None:
    client = await serve(running, SCENARIOS / "unknown-model.toml")
    for path in (OLLAMA, OPENAI, OLLAMA):
        response = await client.post(path, json=chat_body())
        assert response.status_code == 404
        assert "not found" in response.text or "does not exist" in response.text


async def test_first_byte_timeout(running) -> None:
    server_client = await start(SCENARIOS / "first-byte-timeout.toml")
    running.append(server_client)
    server, client = server_client
    with pytest.raises(httpx.ReadTimeout):
        await client.post(OLLAMA, json=chat_body(), timeout=httpx.Timeout(5, read=0.3))
    assert server.stats.faults["never_answer"] == 1
    code, tokens = await _tokens(client, OLLAMA)
    assert code == 200 and len(tokens) == 64


def test_every_bundled_sequence_is_covered_here() -> None:
    with_steps = {p.stem for p in SCENARIOS.glob("*.toml") if load_scenario(p).steps}
    tested = {name.removeprefix("test_").replace("_", "-") for name in globals()}
    assert with_steps and with_steps <= tested, sorted(with_steps - tested)
