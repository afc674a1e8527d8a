"""The OpenAI-compatible API as vLLM documents it: SSE framing, chunks, usage, errors, metrics."""

from __future__ import annotations

import json

from tests.lab.conftest import chat_body


def sse_events(raw: bytes) -> list[str]:
    """Split an SSE body strictly: every event is 'data: ...' followed by a blank line."""
    text = raw.decode()
    assert text.endswith("\n\n")
    events = text[:-2].split("\n\n")
    for event in events:
        assert event.startswith("data: ") and "\n" not in event
    return [event[len("data: ") :] for event in events]


async def test_stream_framing_role_chunk_content_finish_usage_done(lab) -> None:
    _, client = lab
    body = chat_body(stream=True, stream_options={"include_usage": True})
    response = await client.post("/v1/chat/completions", json=body)
    assert response.status_code == 200
    assert response.headers["content-type"] == "text/event-stream; charset=utf-8"
    events = sse_events(response.content)
    assert events[-1] == "[DONE]"
    chunks = [json.loads(e) for e in events[:-1]]
    first, *content, finish, usage = chunks
    ids = {c["id"] for c in chunks}
    assert len(ids) == 1 and ids.pop().startswith("chatcmpl-")
    for chunk in chunks:
        assert list(chunk)[:5] == ["id", "object", "created", "model", "choices"]
        assert chunk["object"] == "chat.completion.chunk" and chunk["model"] == "tachy-lab"
    assert first["choices"] == [
        {
            "index": 0,
            "delta": {"role": "assistant", "content": ""},
            "logprobs": None,
            "finish_reason": None,
        }
    ]
    assert len(content) == 8
    assert all(c["choices"][0]["delta"]["content"] for c in content)
    assert all(c["choices"][0]["finish_reason"] is None for c in content)
    # vLLM 0.32: "stop" comes on the end-of-sequence token's chunk, its content "".
    assert finish["choices"][0]["finish_reason"] == "stop"
    assert finish["choices"][0]["delta"] == {"content": ""}
    assert finish["choices"][0]["stop_reason"] is None and "token_ids" in finish["choices"][0]
    assert usage["choices"] == []
    assert usage["usage"]["completion_tokens"] == 8
    assert usage["usage"]["total_tokens"] == usage["usage"]["prompt_tokens"] + 8


async def test_no_usage_chunk_unless_asked(lab) -> None:
    _, client = lab
    events = sse_events(
        (await client.post("/v1/chat/completions", json=chat_body(stream=True))).content
    )
    assert events[-1] == "[DONE]"
    assert all("usage" not in json.loads(e) for e in events[:-1])


async def test_max_tokens_gives_finish_reason_length(lab) -> None:
    _, client = lab
    body = chat_body(stream=True, max_tokens=2)
    events = sse_events((await client.post("/v1/chat/completions", json=body)).content)
    # vLLM 0.32: "length" comes on the last token's own chunk, with its text.
    last = json.loads(events[-2])["choices"][0]
    assert last["finish_reason"] == "length" and last["delta"]["content"]
    assert len(events) == 1 + 2 + 1


async def test_non_streaming_completion(lab) -> None:
    _, client = lab
    response = await client.post("/v1/chat/completions", json=chat_body())
    assert response.headers["content-type"].startswith("application/json")
    body = response.json()
    assert body["object"] == "chat.completion"
    (choice,) = body["choices"]
    assert choice["message"]["role"] == "assistant" and len(choice["message"]["content"]) > 10
    assert choice["finish_reason"] == "stop"
    assert body["usage"]["completion_tokens"] == 8


async def test_reasoning_content_comes_first(start_lab) -> None:
    _, client = await start_lab(reasoning_tokens=4)
    events = sse_events(
        (await client.post("/v1/chat/completions", json=chat_body(stream=True))).content
    )
    deltas = [json.loads(e)["choices"][0]["delta"] for e in events[1:-2]]
    assert all("reasoning_content" in d for d in deltas[:4])
    assert all("content" in d and "reasoning_content" not in d for d in deltas[4:])
    off = chat_body(stream=True, chat_template_kwargs={"enable_thinking": False})
    events = sse_events((await client.post("/v1/chat/completions", json=off)).content)
    assert "reasoning_content" not in events[1]


async def test_errors_have_message_type_code(lab) -> None:
    _, client = lab
    response = await client.post("/v1/chat/completions", json={**chat_body(), "model": "gpt-9"})
    assert response.status_code == 404
    error = response.json()["error"]
    assert error["message"] == "The model `gpt-9` does not exist. Valid aliases: tachy-lab:latest."
    assert error["type"] == "NotFoundError" and error["code"] == 404 and error["param"] == "model"
    bad = await client.post("/v1/chat/completions", json={"model": "tachy-lab"})
    assert bad.status_code == 400 and bad.json()["error"]["code"] == 400


async def test_models_and_health(lab) -> None:
    _, client = lab
    models = (await client.get("/v1/models")).json()
    assert models["object"] == "list"
    (model,) = models["data"]
    assert model["id"] == "tachy-lab:latest" and model["object"] == "model"
    assert model["max_model_len"] == 8192
    health = await client.get("/health")
    assert health.status_code == 200


async def test_metrics_use_vllm_names_with_model_name_labels(lab) -> None:
    _, client = lab
    await client.post("/v1/chat/completions", json=chat_body(stream=True))
    response = await client.get("/metrics")
    assert response.headers["content-type"] == "text/plain; version=1.0.0; charset=utf-8"
    text = response.text
    for name in (
        "vllm:time_to_first_token_seconds",
        "vllm:inter_token_latency_seconds",
        "vllm:e2e_request_latency_seconds",
        "vllm:request_queue_time_seconds",
    ):
        assert f"# TYPE {name} histogram" in text
        count = "7.0" if "inter_token" in name else "1.0"
        assert f'{name}_count{{engine="0",model_name="tachy-lab:latest"}} {count}' in text
        assert f'{name}_bucket{{engine="0",le="+Inf",model_name="tachy-lab:latest"}}' in text
    for name in ("num_requests_running", "num_requests_waiting", "kv_cache_usage_perc"):
        assert f"# TYPE vllm:{name} gauge" in text
    # As vLLM 0.32: the spec-decoding counters only when speculation is on (the dial).
    assert "vllm:spec_decode_num_draft_tokens_total" not in text
    for name in ("prompt_tokens", "generation_tokens", "prefix_cache_hits"):
        assert f"# TYPE vllm:{name}_total counter" in text
    assert 'vllm:generation_tokens_total{engine="0",model_name="tachy-lab:latest"} 8.0' in text
    assert 'sleep_state="awake"} 1.0' in text
    samples = [line for line in text.splitlines() if line and not line.startswith("#")]
    assert all('model_name="tachy-lab:latest"' in line for line in samples)
    # the TTFT (5 ms scripted; the lab's own timer may stamp it at 5.0 ms, inside the
    # 0.005 s bucket, so the first bucket above the scripted time is not asserted)
    ttft = (
        'vllm:time_to_first_token_seconds_bucket{engine="0",le="%s",model_name="tachy-lab:latest"}'
    )
    assert f"{ttft % '0.001'} 0.0" in text
    assert f"{ttft % '2560.0'} 1.0" in text
    itl = 'vllm:inter_token_latency_seconds_count{engine="0",model_name="tachy-lab:latest"} 7.0'
    assert itl in text


async def test_spec_decode_counters_follow_the_acceptance_dial(start_lab) -> None:
    _, client = await start_lab(spec_acceptance=1.0)
    await client.post("/v1/chat/completions", json=chat_body())
    text = (await client.get("/metrics")).text
    assert (
        'vllm:spec_decode_num_draft_tokens_total{engine="0",model_name="tachy-lab:latest"} 8.0'
        in text
    )
    assert (
        'vllm:spec_decode_num_accepted_tokens_total{engine="0",model_name="tachy-lab:latest"} 8.0'
        in text
    )


async def test_the_end_token_is_counted_one_tpot_after_the_text(start_lab) -> None:
    """end_token_counted: as vLLM, a reply ending by stop counts its end-of-sequence token,
    sent as content "" with finish_reason; Ollama's API counts it and sends nothing."""
    _, client = await start_lab(end_token_counted=True)
    body = chat_body(stream=True, stream_options={"include_usage": True})
    chunks = [json.loads(e) for e in sse_events(
        (await client.post("/v1/chat/completions", json=body)).content)[:-1]]  # fmt: skip
    _, *content, finish, usage = chunks
    assert len(content) == 8 and finish["choices"][0]["delta"] == {"content": ""}
    assert usage["usage"]["completion_tokens"] == 9
    ollama = {"model": "tachy-lab", "messages": [{"role": "user", "content": "Hi"}]}
    lines = (await client.post("/api/chat", json=ollama)).text.splitlines()
    assert len(lines) == 8 + 1 and json.loads(lines[-1])["eval_count"] == 9
