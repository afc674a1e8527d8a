"""The chaos proxy, with a second lab instance as the "real" upstream server."""

from __future__ import annotations

import asyncio
import json
import time

import httpx
import pytest

from tests.lab.conftest import chat_body


@pytest.fixture
async def upstream(start_lab):
    return await start_lab(output_tokens=6, seed=3)


async def test_ollama_clients_get_ndjson_from_an_openai_upstream(start_lab, upstream) -> None:
    up_server, up_client = upstream
    _, proxy = await start_lab(upstream=up_server.url, ttft=0)
    response = await proxy.post("/api/chat", json=chat_body(options={"seed": 5, "num_predict": 6}))
    assert response.headers["content-type"] == "application/x-ndjson"
    *chunks, final = [json.loads(line) for line in response.text.splitlines()]
    text = "".join(c["message"]["content"] for c in chunks)
    direct = await up_client.post("/v1/chat/completions", json=chat_body(seed=5, max_tokens=6))
    assert text == direct.json()["choices"][0]["message"]["content"]  # the real tokens
    assert final["done"] is True and final["done_reason"] == "stop" and final["eval_count"] == 6
    assert isinstance(final["eval_duration"], int)


async def test_openai_clients_get_sse_and_non_streaming(start_lab, upstream) -> None:
    up_server, _ = upstream
    _, proxy = await start_lab(upstream=up_server.url, ttft=0)
    body = chat_body(stream=True, stream_options={"include_usage": True})
    raw = (await proxy.post("/v1/chat/completions", json=body)).text
    events = raw.split("\n\n")
    assert json.loads(events[0].removeprefix("data: "))["choices"][0]["delta"] == {
        "role": "assistant",
        "content": "",
    }
    assert events[-2] == "data: [DONE]" and '"choices":[]' in events[-3]
    whole = (await proxy.post("/v1/chat/completions", json=chat_body())).json()
    assert whole["usage"]["completion_tokens"] == 6
    generate = await proxy.post(
        "/api/generate", json={"model": "tachy-lab", "prompt": "hi", "stream": False}
    )
    assert generate.json()["response"]


async def test_the_proxy_adds_ttft_and_applies_faults(start_lab, upstream) -> None:
    up_server, _ = upstream
    _, proxy = await start_lab(
        upstream=up_server.url, ttft=200, fault={"kind": "error_mid_stream", "after_tokens": 2}
    )
    started = time.perf_counter()
    lines = []
    async with proxy.stream("POST", "/api/chat", json=chat_body()) as response:
        async for line in response.aiter_lines():
            lines.append((time.perf_counter() - started, json.loads(line)))
    assert lines[0][0] >= 0.2
    assert [obj.get("error") is not None for _, obj in lines] == [False, False, True]


async def test_upstream_http_errors_come_back_in_the_clients_protocol(start_lab) -> None:
    up_server, _ = await start_lab(
        fault={"kind": "http_error", "status": 500, "message": "GPU on fire"}
    )
    _, proxy = await start_lab(upstream=up_server.url, ttft=0)
    ollama = await proxy.post("/api/chat", json=chat_body())
    assert ollama.status_code == 500 and ollama.json() == {"error": "GPU on fire"}
    openai = await proxy.post("/v1/chat/completions", json=chat_body(stream=True))
    assert openai.status_code == 500 and openai.json()["error"]["message"] == "GPU on fire"


async def test_upstream_error_mid_stream_is_passed_on(start_lab) -> None:
    up_server, _ = await start_lab(
        fault={"kind": "error_mid_stream", "after_tokens": 2, "message": "oom"}
    )
    _, proxy = await start_lab(upstream=up_server.url, ttft=0)
    lines = (await proxy.post("/api/chat", json=chat_body())).text.splitlines()
    assert len(lines) == 3 and "oom" in json.loads(lines[-1])["error"]


async def test_a_client_disconnect_stops_the_upstream(start_lab) -> None:
    up_server, _ = await start_lab(output_tokens=400, tpot_ms=20)
    proxy_server, proxy = await start_lab(upstream=up_server.url, ttft=0)
    async with proxy.stream("POST", "/api/chat", json=chat_body()) as response:
        async for _line in response.aiter_lines():
            break  # one token, then the client goes away
    for _ in range(200):
        if up_server.stats.disconnected:
            break
        await asyncio.sleep(0.01)
    assert up_server.stats.disconnected == 1  # the upstream saw its client leave
    assert proxy_server.stats.disconnected == 1
    assert up_server.stats.completed == 0


async def test_models_come_from_the_upstream(start_lab, upstream) -> None:
    up_server, _ = upstream
    _, proxy = await start_lab(upstream=up_server.url, model="other:1b")
    tags = (await proxy.get("/api/tags")).json()
    assert [m["name"] for m in tags["models"]] == ["tachy-lab:latest"]
    models = (await proxy.get("/v1/models")).json()
    assert [m["id"] for m in models["data"]] == ["tachy-lab:latest"]


async def test_an_unreachable_upstream_is_a_502(start_lab) -> None:
    _, proxy = await start_lab(upstream="http://127.0.0.1:9", ttft=0)
    response = await proxy.post("/api/chat", json=chat_body())
    assert response.status_code == 502 and "unreachable" in response.json()["error"]
    with pytest.raises(httpx.HTTPStatusError):
        response.raise_for_status()


@pytest.mark.engine
async def test_the_proxy_in_front_of_the_real_local_engine(start_lab, local_engine) -> None:
    up_url = local_engine.url
    _, proxy = await start_lab(upstream=up_url, ttft=150)
    body = {
        "model": local_engine.model,
        "messages": [{"role": "user", "content": "Say hello."}],
        "options": {"num_predict": 12, "temperature": 0},
    }
    started = time.perf_counter()
    lines = []
    async with proxy.stream("POST", "/api/chat", json=body, timeout=60) as response:
        assert response.headers["content-type"] == "application/x-ndjson"
        async for line in response.aiter_lines():
            lines.append((time.perf_counter() - started, json.loads(line)))
    assert lines[0][0] >= 0.15  # the added TTFT
    final = lines[-1][1]
    assert final["done"] is True and final["done_reason"] in ("stop", "length")
    assert "".join(obj["message"]["content"] for _, obj in lines[:-1]).strip()


@pytest.mark.parametrize(
    "fault",
    [
        {"kind": "reset", "after_tokens": 2},
        {"kind": "stall", "after_tokens": 2, "seconds": 0.3},
        {"kind": "malformed_json", "after_tokens": 2},
        {"kind": "utf8_cut"},
    ],
    ids=lambda f: f["kind"],
)
async def test_mid_stream_faults_apply_to_the_real_stream(start_lab, upstream, fault) -> None:
    up_server, _ = upstream
    _, proxy = await start_lab(upstream=up_server.url, ttft=0, fault=fault)
    received = b""
    started = time.perf_counter()
    try:
        async with proxy.stream("POST", "/api/chat", json=chat_body()) as response:
            async for data in response.aiter_raw():
                received += data
    except (httpx.RemoteProtocolError, httpx.ReadError):
        assert fault["kind"] == "reset"
    lines = received.split(b"\n")
    if fault["kind"] == "reset":
        assert len(lines) == 3 and b'"done":true' not in received
    elif fault["kind"] == "stall":
        assert time.perf_counter() - started >= 0.3 and b'"done":true' in received
    elif fault["kind"] == "malformed_json":
        assert lines[2].endswith(b'{"rol') and b'"done":true' in received
    else:
        assert received.endswith("終".encode()[:1]) and b'"done":true' not in received
