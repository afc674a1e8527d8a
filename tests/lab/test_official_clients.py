"""The lab driven by clients nobody here wrote: the official `ollama` and `openai` Python
packages. If the lab drifted from the real servers' wire, their parsing would say so."""

from __future__ import annotations

from collections.abc import AsyncIterator

import httpx
import ollama
import openai
import pytest

from client.lab import LabServer, scenario_from_dict

DIALS = {"ttft": 5, "tpot_ms": 1, "output_tokens": 8, "seed": 3}
HI = [{"role": "user", "content": "hi"}]
# As vLLM counts it with SmolLM2's chat template (client/lab/text/chat_template.py): the
# template's own system prompt as a message (21 tokens), "hi"'s (6), the generation prompt (4).
HI_TOKENS = 31


@pytest.fixture
async def url() -> AsyncIterator[str]:
    server = LabServer(scenario_from_dict(DIALS))
    yield await server.start()
    await server.stop()


async def test_ollama_package_list_chat_generate_ps_show_embed(url: str) -> None:
    client = ollama.AsyncClient(host=url)
    listed = await client.list()
    assert [m.model for m in listed.models] == ["tachy-lab:latest"]
    whole = await client.chat(model="tachy-lab", messages=HI)
    assert whole.done and whole.done_reason == "stop" and whole.message.content
    assert whole.load_duration and whole.load_duration > 0  # was None before
    assert whole.prompt_eval_count == HI_TOKENS and whole.eval_count == 8
    parts = [part async for part in await client.chat(model="tachy-lab", messages=HI, stream=True)]
    assert "".join(p.message.content or "" for p in parts[:-1])
    assert parts[-1].done and parts[-1].eval_duration and parts[-1].load_duration
    generated = await client.generate(model="tachy-lab", prompt="hi")
    assert generated.response and generated.context and generated.load_duration
    running = (await client.ps()).models
    assert running[0].size_vram and running[0].expires_at is not None
    shown = await client.show("tachy-lab")
    assert shown.modelinfo and shown.modelinfo["llama.context_length"] == 8192
    assert shown.capabilities == ["completion"]
    embedded = await client.embed(model="tachy-lab", input=["hi", "there"])
    assert len(embedded.embeddings) == 2 and len(embedded.embeddings[0]) == 384
    async with httpx.AsyncClient(base_url=url) as raw:  # the package has no version call
        assert (await raw.get("/api/version")).json()["version"]


async def test_ollama_package_unknown_model_is_a_404_response_error(url: str) -> None:
    client = ollama.AsyncClient(host=url)
    with pytest.raises(ollama.ResponseError) as caught:
        await client.chat(model="ghost", messages=HI)
    assert caught.value.status_code == 404 and caught.value.error == "model 'ghost' not found"
    with pytest.raises(ollama.ResponseError) as shown:
        await client.show("ghost")
    assert shown.value.status_code == 404


async def test_openai_package_models_chat_legacy_completions_usage(url: str) -> None:
    client = openai.AsyncOpenAI(base_url=url + "/v1", api_key="unused")
    models = await client.models.list()
    assert [m.id for m in models.data] == ["tachy-lab:latest"]
    whole = await client.chat.completions.create(model="tachy-lab", messages=HI)
    assert whole.choices[0].message.content and whole.choices[0].finish_reason == "stop"
    assert whole.usage is not None and whole.usage.prompt_tokens == HI_TOKENS
    stream = await client.chat.completions.create(
        model="tachy-lab", messages=HI, stream=True, stream_options={"include_usage": True}
    )
    chunks = [chunk async for chunk in stream]
    assert chunks[0].choices[0].delta.role == "assistant"
    text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    assert text == whole.choices[0].message.content or text  # both are real text
    assert chunks[-1].choices == [] and chunks[-1].usage is not None
    assert chunks[-1].usage.completion_tokens == 8 and chunks[-1].usage.prompt_tokens == HI_TOKENS
    legacy = await client.completions.create(model="tachy-lab", prompt="hi", max_tokens=3)
    assert legacy.choices[0].text and legacy.choices[0].finish_reason == "length"
    assert legacy.usage is not None and legacy.usage.completion_tokens == 3
    embedded = await client.embeddings.create(model="tachy-lab", input="hi")
    assert len(embedded.data[0].embedding) == 384


async def test_openai_package_unknown_model_is_not_found(url: str) -> None:
    client = openai.AsyncOpenAI(base_url=url + "/v1", api_key="unused")
    with pytest.raises(openai.NotFoundError) as caught:
        await client.chat.completions.create(model="ghost", messages=HI)
    assert caught.value.status_code == 404
    assert "The model `ghost` does not exist." in caught.value.message


async def test_openai_package_reads_llamacpp_flavour(url: str) -> None:
    server = LabServer(scenario_from_dict({**DIALS, "server": "llamacpp", "n_batch": 12}))
    base = await server.start()
    try:
        client = openai.AsyncOpenAI(base_url=base + "/v1", api_key="unused")
        stream = await client.chat.completions.create(
            model="tachy-lab", messages=HI, stream=True, extra_body={"return_progress": True}
        )
        chunks = [chunk async for chunk in stream]
        progress = [
            c.model_extra["prompt_progress"] for c in chunks if c.model_extra.get("prompt_progress")
        ]
        assert [p["processed"] for p in progress] == [12, 24, HI_TOKENS]
        assert chunks[-1].model_extra["timings"]["predicted_n"] == 8
    finally:
        await server.stop()
