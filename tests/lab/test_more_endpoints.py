"""Endpoints and fields real clients use beyond chat: /api/embed, /api/generate's
context, errors as Ollama's handlers word them, /v1/completions, /v1/embeddings,
usage that counts the chat template, vLLM's continuous_usage_stats."""

from __future__ import annotations

import json
import math

from tests.lab.conftest import chat_body
from tests.lab.test_openai_api import sse_events


async def test_api_embed_one_and_many(lab) -> None:
    _, client = lab
    one = (await client.post("/api/embed", json={"model": "tachy-lab", "input": "hi"})).json()
    assert list(one)[:2] == ["model", "embeddings"] and len(one["embeddings"]) == 1
    vector = one["embeddings"][0]
    assert len(vector) == 384 and math.isclose(math.fsum(v * v for v in vector), 1, rel_tol=1e-4)
    assert isinstance(one["total_duration"], int) and one["prompt_eval_count"] > 1
    many = await client.post("/api/embed", json={"model": "tachy-lab", "input": ["a", "hi"]})
    assert len(many.json()["embeddings"]) == 2 and many.json()["embeddings"][1] == vector
    legacy = await client.post("/api/embeddings", json={"model": "tachy-lab", "prompt": "hi"})
    assert legacy.json() == {"embedding": vector}
    bad = await client.post("/api/embed", json={"model": "tachy-lab", "input": [1]})
    assert bad.status_code == 400 and bad.json() == {"error": "invalid input type"}
    missing = await client.post("/api/embed", json={"model": "nope", "input": "hi"})
    assert missing.status_code == 404 and missing.json() == {"error": "model 'nope' not found"}


async def test_ollama_bad_bodies_are_400_with_one_error_string(lab) -> None:
    _, client = lab
    for path in ("/api/chat", "/api/generate", "/api/show", "/api/embed"):
        empty = await client.post(path, content=b"")
        assert empty.status_code == 400 and empty.json() == {"error": "missing request body"}
        broken = await client.post(path, content=b"{nope")
        assert broken.status_code == 400 and isinstance(broken.json()["error"], str)
    show = await client.post("/api/show", json={"model": "ghost"})
    assert show.status_code == 404 and show.json() == {"error": "model 'ghost' not found"}


async def test_generate_returns_context_tokens(lab) -> None:
    _, client = lab
    body = {"model": "tachy-lab", "prompt": "Why is the sky blue?", "stream": False}
    final = (await client.post("/api/generate", json=body)).json()
    context = final["context"]
    assert all(isinstance(t, int) for t in context)
    assert len(context) == final["prompt_eval_count"] + final["eval_count"]


async def test_prompt_tokens_count_the_chat_template(lab) -> None:
    _, client = lab
    hi = {"model": "tachy-lab", "messages": [{"role": "user", "content": "hi"}]}
    usage = (await client.post("/v1/chat/completions", json=hi)).json()["usage"]
    # SmolLM2's template (as vLLM 0.32 counts it): its system prompt first, as a message
    # (<|im_start|>system\n + 16 tokens + <|im_end|>\n), <|im_start|>user\nhi<|im_end|>\n,
    # then <|im_start|>assistant\n, "assistant" two tokens in SmolLM2's tokenizer.
    assert usage["prompt_tokens"] == 21 + 6 + 4
    ollama = (await client.post("/api/chat", json={**hi, "stream": False})).json()
    assert ollama["prompt_eval_count"] == 21 + 6 + 4


async def test_continuous_usage_stats_on_every_chunk(lab) -> None:
    _, client = lab
    options = {"include_usage": True, "continuous_usage_stats": True}
    body = chat_body(stream=True, stream_options=options)
    chunks = [
        json.loads(e)
        for e in sse_events((await client.post("/v1/chat/completions", json=body)).content)[:-1]
    ]
    assert all("usage" in c for c in chunks)
    counts = [c["usage"]["completion_tokens"] for c in chunks]
    assert counts == sorted(counts) and counts[-1] == 8
    assert chunks[1]["usage"]["completion_tokens"] == 1  # role chunk, then the first token


async def test_legacy_completions_stream_and_whole(lab) -> None:
    _, client = lab
    body = {"model": "tachy-lab", "prompt": "Once upon a time", "max_tokens": 5}
    whole = (await client.post("/v1/completions", json=body)).json()
    assert whole["object"] == "text_completion" and whole["id"].startswith("cmpl-")
    assert whole["choices"][0]["finish_reason"] == "length" and whole["choices"][0]["text"]
    assert whole["usage"]["completion_tokens"] == 5 and whole["usage"]["prompt_tokens"] == 5
    streamed = await client.post(
        "/v1/completions", json={**body, "stream": True, "stream_options": {"include_usage": True}}
    )
    events = sse_events(streamed.content)
    assert events[-1] == "[DONE]"
    chunks = [json.loads(e) for e in events[:-1]]
    assert [c["object"] for c in chunks] == ["text_completion"] * len(chunks)
    assert "".join(c["choices"][0]["text"] for c in chunks if c["choices"])
    assert chunks[-1]["choices"] == [] and chunks[-1]["usage"]["completion_tokens"] == 5


async def test_v1_embeddings_and_models_permission(lab) -> None:
    _, client = lab
    out = (await client.post("/v1/embeddings", json={"model": "tachy-lab", "input": ["a"]})).json()
    assert out["object"] == "list" and out["data"][0]["object"] == "embedding"
    assert len(out["data"][0]["embedding"]) == 384
    card = (await client.get("/v1/models")).json()["data"][0]
    assert card["permission"][0]["object"] == "model_permission"
