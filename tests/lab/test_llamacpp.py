"""The lab as a llama.cpp server (server = "llamacpp"): prompt_progress, timings, /slots,
/props, /v1/models and /metrics as tools/server/README.md documents them."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable
from typing import Any

import pytest

from tests.lab.conftest import chat_body
from tests.lab.test_openai_api import sse_events

WAIT_S = 60.0  # a safety net for a busy machine


async def until_json(client: Any, path: str, condition: Callable[[Any], bool]) -> Any:
    """GET path until its JSON body meets the condition; that body."""
    deadline = time.monotonic() + WAIT_S
    while not condition(body := (await client.get(path)).json()):
        assert time.monotonic() < deadline, f"{path} never showed it: {body}"
        await asyncio.sleep(0.01)
    return body


LONG = "Explain the colour of the sky to a child, in plain words, with an example. " * 20


def long_body(**extra: object) -> dict[str, object]:
    return {"model": "tachy-lab", "messages": [{"role": "user", "content": LONG}], **extra}


async def test_return_progress_sends_one_chunk_per_batch_before_the_first_token(
    start_lab,
) -> None:
    _, client = await start_lab(server="llamacpp", n_batch=64, prefill_tokens_per_s=2000)
    body = long_body(stream=True, return_progress=True)
    started = time.monotonic()
    arrivals: list[tuple[float, dict]] = []
    async with client.stream("POST", "/v1/chat/completions", json=body) as response:
        buffer = b""
        async for data in response.aiter_bytes():
            buffer += data
            *events, buffer = buffer.split(b"\n\n")
            for event in events:
                payload = event.decode().removeprefix("data: ")
                if payload != "[DONE]":
                    arrivals.append((time.monotonic() - started, json.loads(payload)))
    progress = [(t, c) for t, c in arrivals if "prompt_progress" in c]
    tokens = [
        (t, c) for t, c in arrivals if c["choices"] and c["choices"][0]["delta"].get("content")
    ]
    statuses = [c["prompt_progress"] for _, c in progress]
    total = statuses[0]["total"]
    assert total > 200  # the chat template's tokens and the long message
    assert len(statuses) == -(-total // 64)  # one per n_batch tokens
    assert [s["processed"] for s in statuses] == sorted(s["processed"] for s in statuses)
    assert statuses[-1]["processed"] == total and statuses[0]["cache"] == 0
    assert all(set(s) == {"total", "cache", "processed", "time_ms"} for s in statuses)
    assert progress[-1][0] <= tokens[0][0]  # all progress arrives before the first token
    # prefill at 2000 tokens/s: the first token waits for it
    assert tokens[0][0] >= total / 2000
    for _, chunk in progress:  # each progress chunk is a role delta, as llama.cpp sends it
        assert chunk["choices"][0]["delta"] == {"role": "assistant", "content": None}
        assert chunk["object"] == "chat.completion.chunk" and "system_fingerprint" in chunk


async def test_no_progress_without_return_progress_or_on_vllm(start_lab) -> None:
    _, llama = await start_lab(server="llamacpp", n_batch=64)
    plain = await llama.post("/v1/chat/completions", json=long_body(stream=True))
    assert b"prompt_progress" not in plain.content
    _, vllm = await start_lab()
    asked = await vllm.post(
        "/v1/chat/completions", json=long_body(stream=True, return_progress=True)
    )
    assert b"prompt_progress" not in asked.content


async def test_second_request_reuses_the_cached_prefix(start_lab) -> None:
    _, client = await start_lab(server="llamacpp", n_batch=64)
    first = (await client.post("/v1/chat/completions", json=long_body())).json()
    follow_up = long_body()
    follow_up["messages"] = [*follow_up["messages"], {"role": "user", "content": "And why?"}]
    body = {**follow_up, "stream": True, "return_progress": True}
    second = await client.post("/v1/chat/completions", json=body)
    events = [json.loads(e) for e in sse_events(second.content)[:-1]]
    status = next(e["prompt_progress"] for e in events if "prompt_progress" in e)
    # all of the first prompt up to its generation prompt: of "<|im_start|>", "ass",
    # "istant", "\n" (SmolLM2 cuts "assistant" in two) only "<|im_start|>" is shared
    assert status["cache"] == first["usage"]["prompt_tokens"] - 3
    assert events[-1]["timings"]["cache_n"] == status["cache"]
    assert events[-1]["timings"]["prompt_n"] == status["total"] - status["cache"]


async def test_timings_on_the_last_chunk_and_usage(start_lab) -> None:
    _, client = await start_lab(server="llamacpp", tpot_ms=10)
    body = chat_body(stream=True, stream_options={"include_usage": True})
    events = [
        json.loads(e)
        for e in sse_events((await client.post("/v1/chat/completions", json=body)).content)[:-1]
    ]
    last = events[-1]
    assert last["choices"] == [] and set(last["usage"]) >= {
        "completion_tokens",
        "prompt_tokens",
        "total_tokens",
    }
    timings = last["timings"]
    assert list(timings) == [
        "cache_n", "prompt_n", "prompt_ms", "prompt_per_token_ms", "prompt_per_second",
        "predicted_n", "predicted_ms", "predicted_per_token_ms", "predicted_per_second",
    ]  # fmt: skip
    assert timings["predicted_n"] == 8 and timings["prompt_ms"] >= 4.0
    # 10 ms per token, as measured by the lab (a late start is caught up, so no bound)
    assert timings["predicted_ms"] > 0
    per_second = 8 / timings["predicted_ms"] * 1000  # predicted_ms is rounded to 3 places
    assert timings["predicted_per_second"] == pytest.approx(per_second, rel=1e-3)
    assert all("timings" not in e for e in events[:-1])
    whole = (await client.post("/v1/chat/completions", json=chat_body())).json()
    assert whole["object"] == "chat.completion" and whole["timings"]["predicted_n"] == 8


async def test_slots_props_models_health_and_metrics(start_lab) -> None:
    _, client = await start_lab(server="llamacpp", capacity=2, ttft=300)
    running = asyncio.create_task(client.post("/v1/chat/completions", json=chat_body()))
    slots = await until_json(client, "/slots", lambda s: any(x["is_processing"] for x in s))
    assert [s["id"] for s in slots] == [0, 1]
    assert [s["is_processing"] for s in slots] == [True, False]
    assert {"n_ctx", "params", "next_token", "id_task", "speculative"} <= set(slots[0])
    await running
    props = (await client.get("/props")).json()
    assert props["total_slots"] == 2 and isinstance(props["chat_template"], str)
    assert props["default_generation_settings"]["n_ctx"] == 8192
    model = (await client.get("/v1/models")).json()["data"][0]
    assert model["owned_by"] == "llamacpp" and isinstance(model["meta"]["n_ctx_train"], int)
    assert (await client.get("/health")).json() == {"status": "ok"}
    metrics = (await client.get("/metrics")).text
    for name in (
        "llamacpp:prompt_tokens_total",
        "llamacpp:prompt_seconds_total",
        "llamacpp:tokens_predicted_total",
        "llamacpp:tokens_predicted_seconds_total",
        "llamacpp:prompt_tokens_seconds",
        "llamacpp:predicted_tokens_seconds",
        "llamacpp:requests_processing",
        "llamacpp:requests_deferred",
        "llamacpp:n_decode_total",
        "llamacpp:n_busy_slots_per_decode",
    ):
        assert f"\n{name} " in "\n" + metrics, name
    assert "llamacpp:tokens_predicted_total 8\n" in metrics
    assert "vllm:" not in metrics


async def test_vllm_lab_has_no_slots_or_props(lab) -> None:
    _, client = lab
    assert (await client.get("/slots")).status_code == 404
    assert (await client.get("/props")).status_code == 404


async def test_any_model_name_and_llamacpp_error_objects(start_lab) -> None:
    _, client = await start_lab(server="llamacpp")
    body = {"model": "whatever", "messages": [{"role": "user", "content": "hi"}]}
    answered = await client.post("/v1/chat/completions", json=body)
    assert answered.status_code == 200  # a single-model llama-server ignores the name
    ollama = await client.post("/api/chat", json={**body, "stream": False})
    assert ollama.status_code == 404  # the Ollama side still knows its models
    bad = await client.post("/v1/chat/completions", json={"model": "m"})
    assert bad.status_code == 400 and set(bad.json()["error"]) == {"code", "message", "type"}


async def test_health_is_503_while_the_model_loads(start_lab) -> None:
    _, client = await start_lab(server="llamacpp", start_loaded=False, load_ms=1000)
    loading = asyncio.create_task(client.post("/v1/chat/completions", json=chat_body()))
    health = await until_json(client, "/health", lambda body: "error" in body)
    assert health == {
        "error": {"code": 503, "message": "Loading model", "type": "unavailable_error"}
    }
    await loading
    assert (await client.get("/health")).json() == {"status": "ok"}


async def test_the_llamacpp_lab_speaks_only_llama_servers_wire(start_lab) -> None:
    """Issue 39, item 17: a real llama-server answers Ollama's paths 404, so Tachy's
    detection takes it for what it is (OpenAI-compatible, llama.cpp) and asks for its
    prefill progress, and every view names it llama.cpp."""
    from client.backends import backend_for
    from client.backends.detect import detect
    from client.core.conversation import ChatMessage, ChatRequest
    from client.core.events import Prefill, ServerTimings

    server, client = await start_lab(server="llamacpp", prefill_tokens_per_s=2000, n_batch=16)
    for path in ("/api/tags", "/api/version"):
        answer = await client.get(path)
        assert (answer.status_code, answer.headers["server"]) == (404, "llama.cpp"), path
    assert (await client.post("/api/chat", json=chat_body())).status_code == 404
    api = await detect(server.url)
    assert api == "openai"
    backend = backend_for(server.url, api)
    try:
        await backend.list_models()  # as the window does first: it learns the kind
        request = ChatRequest("tachy-lab", [ChatMessage("user", "why " * 60)])
        async with backend.chat(request) as stream:
            events = [event async for event in stream]
    finally:
        await backend.aclose()
    assert any(isinstance(e, Prefill) for e in events)
    assert [e.source for e in events if isinstance(e, ServerTimings)] == ["llamacpp"]
