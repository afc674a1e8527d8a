from __future__ import annotations

import httpx
import pytest

from client.backends import backend_for, make_backend
from client.backends.apis.ollama.backend import OllamaBackend
from client.backends.apis.openai.backend import OpenAICompatBackend
from client.backends.errors import AuthenticationFailed
from client.core.conversation import ChatMessage, ChatRequest, GenerationOptions
from tests.backends.fakes import Recorder, sse, streaming

DONE = sse("[DONE]")


async def chat_once(backend: OpenAICompatBackend, request: ChatRequest) -> None:
    async with backend.chat(request) as stream:
        [e async for e in stream]


async def test_chat_request_body_and_bearer_key() -> None:
    response, _ = streaming([DONE])
    recorder = Recorder([response])
    backend = OpenAICompatBackend(
        "http://gpu:8000/v1/", api_key="sk-test", client=recorder.client()
    )
    options = GenerationOptions(temperature=0.0, seed=1, max_tokens=32, num_ctx=8192, stop=["##"])
    await chat_once(backend, ChatRequest("llama", [ChatMessage("user", "hi")], options))
    sent = recorder.requests[0]
    assert str(sent.url) == "http://gpu:8000/v1/chat/completions"
    assert sent.headers["authorization"] == "Bearer sk-test"
    assert recorder.body() == {
        "model": "llama",
        "messages": [{"role": "user", "content": "hi"}],
        "stream": True,
        "stream_options": {"include_usage": True},
        "max_tokens": 32,
        "temperature": 0.0,
        "seed": 1,
        "stop": ["##"],
    }


async def test_continue_final_message() -> None:
    response, _ = streaming([DONE])
    recorder = Recorder([response])
    request = ChatRequest(
        "m",
        [ChatMessage("user", "poem?"), ChatMessage("assistant", "Roses are")],
        continue_final_message=True,
    )
    await chat_once(OpenAICompatBackend("http://gpu:8000", client=recorder.client()), request)
    body = recorder.body()
    assert body["continue_final_message"] is True and body["add_generation_prompt"] is False
    assert body["messages"][-1] == {"role": "assistant", "content": "Roses are"}
    assert "authorization" not in recorder.requests[0].headers


def models_answer(owner: str) -> httpx.Response:
    return httpx.Response(200, json={"data": [{"id": "m", "owned_by": owner}]})


@pytest.mark.parametrize(
    ("owner", "trailing", "flag"),
    [("llamacpp", True, False), ("vllm", False, True), ("openai", False, False)],
)
async def test_how_a_server_continues_is_learnt_from_its_model_list(
    owner: str, trailing: bool, flag: bool
) -> None:
    """llama-server continues a final assistant message itself; vLLM when asked by
    continue_final_message; another server is not assumed to do either."""

    def server() -> httpx.AsyncClient:
        return Recorder([models_answer(owner)]).client()

    backend = OpenAICompatBackend("http://gpu:8000", client=server())
    assert not backend.continues_trailing_assistant
    assert not backend.supports_continue_final_message
    await backend.list_models()
    assert backend.continues_trailing_assistant is trailing
    assert backend.supports_continue_final_message is flag
    again = OpenAICompatBackend("http://gpu:8000", client=server())
    await again.server_kind()
    assert (again.continues_trailing_assistant, again.supports_continue_final_message) == (
        trailing,
        flag,
    )


async def test_a_llama_cpp_answer_header_says_it_continues_a_final_assistant_message() -> None:
    response, _ = streaming([DONE])
    response.headers["server"] = "llama.cpp"
    backend = OpenAICompatBackend("http://gpu:8000", client=Recorder([response]).client())
    await chat_once(backend, ChatRequest("m", [ChatMessage("user", "hi")]))
    assert backend.continues_trailing_assistant


async def test_list_models_with_context_lengths() -> None:
    answer = {
        "object": "list",
        "data": [
            {"id": "vllm-model", "max_model_len": 32768},
            {"id": "llamacpp.gguf", "meta": {"n_ctx_train": 8192, "n_vocab": 49152}},
            {"id": "plain"},
        ],
    }
    recorder = Recorder([httpx.Response(200, json=answer)])
    backend = OpenAICompatBackend("http://gpu:8000", api_key="k", client=recorder.client())
    models = await backend.list_models()
    assert [(m.name, m.context_length) for m in models] == [
        ("vllm-model", 32768),
        ("llamacpp.gguf", 8192),
        ("plain", None),
    ]
    assert recorder.requests[0].url.path == "/v1/models"
    assert recorder.requests[0].headers["authorization"] == "Bearer k"


async def test_list_models_refused_key() -> None:
    recorder = Recorder([httpx.Response(401, json={"error": {"message": "Invalid API key"}})])
    with pytest.raises(AuthenticationFailed, match="Invalid API key"):
        await OpenAICompatBackend("http://gpu:8000", client=recorder.client()).list_models()


def test_backend_for_known_apis() -> None:
    client = httpx.AsyncClient()
    assert isinstance(backend_for("http://a:1", "ollama", client=client), OllamaBackend)
    assert isinstance(backend_for("http://a:1/v1", "openai", client=client), OpenAICompatBackend)
    with pytest.raises(ValueError):
        backend_for("http://a:1", "auto")


async def test_make_backend_auto_detects() -> None:
    async def handler(request: httpx.Request) -> httpx.Response:
        if request.url.path == "/v1/models":
            return httpx.Response(200, json={"data": [{"id": "m"}]})
        return httpx.Response(404, text="not found")

    client = httpx.AsyncClient(transport=httpx.MockTransport(handler))
    backend = await make_backend("http://a:8000/v1", client=client)
    assert isinstance(backend, OpenAICompatBackend) and backend.base_url == "http://a:8000"
