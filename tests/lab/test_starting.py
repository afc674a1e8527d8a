"""`starts_loading`: the lab as llama.cpp's server is in the seconds after its port opens.
Its models load from the first request it gets; meanwhile every OpenAI-side request
(/v1/models, /v1/chat/completions, /health ...) is answered 503 "Loading model" with a
real llama-server's bytes, and Ollama's side waits for the load, as Ollama does."""

from __future__ import annotations

import asyncio
from typing import Any

from client.lab.dialects.llamacpp_wire import LOADING_BODY
from tests.backends.test_loading import LOADING as REAL_LLAMA_SERVER_LOADING
from tests.lab.conftest import chat_body

STARTING = {"starts_loading": True, "load_ms": 400, "keep_alive": -1}


def test_the_lab_answers_what_a_real_llama_server_answers_while_loading() -> None:
    assert LOADING_BODY == REAL_LLAMA_SERVER_LOADING


async def test_every_openai_path_is_503_loading_model_until_the_load_ends(start_lab) -> None:
    _, client = await start_lab(server="llamacpp", **STARTING)
    # As llama-server's middleware_server_state: the model list answers while it loads.
    assert (await client.get("/v1/models")).status_code == 200
    for path in ("/health", "/metrics", "/slots", "/props"):
        answer = await client.get(path)
        assert (answer.status_code, answer.content) == (503, LOADING_BODY), path
        assert answer.headers["server"] == "llama.cpp"
    chat = await client.post("/v1/chat/completions", json=chat_body(stream=True))
    assert (chat.status_code, chat.content) == (503, LOADING_BODY)
    # A llama-server speaks no Ollama API, loading or not (issue 39, item 17).
    ollama = await client.post("/api/chat", json=chat_body(stream=False))
    assert ollama.status_code == 404 and ollama.headers["server"] == "llama.cpp"
    await _until_loaded(client)
    assert (await client.get("/v1/models")).json()["data"][0]["owned_by"] == "llamacpp"
    assert (await client.get("/health")).json() == {"status": "ok"}
    chat = await client.post("/v1/chat/completions", json=chat_body())
    assert chat.status_code == 200


async def test_the_load_begins_at_the_first_request_however_late_it_comes(start_lab) -> None:
    server, client = await start_lab(**STARTING)  # the vLLM flavour answers alike
    await asyncio.sleep(0.5)  # longer than load_ms: a load begun at start would be over
    first = await client.get("/health")
    assert (first.status_code, first.content) == (503, LOADING_BODY)
    assert (await client.get("/api/ps")).json()["models"][0]["name"] == "tachy-lab:latest"
    server.set_scenario(server.scenario)  # switching to it starts the server again
    again = await client.get("/health")
    assert again.status_code == 503


async def _until_loaded(client: Any) -> None:
    """Ask /health until the lab's model is loaded (a safety limit for a slow machine)."""
    for _ in range(2000):
        if (await client.get("/health")).status_code == 200:
            return
        await asyncio.sleep(0.01)
    raise AssertionError("the lab's model never loaded")
