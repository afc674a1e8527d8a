from __future__ import annotations

import httpx
import pytest

from client.backends.apis.ollama.backend import OllamaBackend
from client.backends.errors import BackendUnreachable, ModelNotFound, ProtocolError, ServerError
from client.core.conversation import ChatMessage, ChatRequest, GenerationOptions
from client.core.events import Done, DoneReason, Failed, ServerTimings, Token, TokenKind
from tests.backends.fakes import Recorder, ndjson, streaming

FINAL = ndjson(
    {
        "done": True,
        "done_reason": "stop",
        "eval_count": 2,
        "eval_duration": 10**8,
        "prompt_eval_count": 7,
        "load_duration": 2 * 10**6,
    }
)


def ollama(recorder: Recorder, url: str = "http://box:11434/") -> OllamaBackend:
    return OllamaBackend(url, client=recorder.client())


async def test_chat_request_passes_options_keep_alive_and_think() -> None:
    response, _ = streaming([FINAL], content_type="application/x-ndjson")
    recorder = Recorder([response])
    request = ChatRequest(
        "qwen3:0.6b",
        [ChatMessage("system", "be brief"), ChatMessage("user", "hi")],
        GenerationOptions(temperature=0.2, seed=7, max_tokens=64, num_ctx=4096, stop=["\n\n"]),
        keep_alive="30m",
        think=True,
    )
    async with ollama(recorder).chat(request) as stream:
        [e async for e in stream]
    sent = recorder.requests[0]
    assert sent.method == "POST" and str(sent.url) == "http://box:11434/api/chat"
    assert recorder.body() == {
        "model": "qwen3:0.6b",
        "messages": [{"role": "system", "content": "be brief"}, {"role": "user", "content": "hi"}],
        "stream": True,
        "options": {
            "temperature": 0.2,
            "seed": 7,
            "num_predict": 64,
            "num_ctx": 4096,
            "stop": ["\n\n"],
        },
        "keep_alive": "30m",
        "think": True,
    }


async def test_chat_body_without_optional_fields() -> None:
    response, _ = streaming([FINAL])
    recorder = Recorder([response])
    async with ollama(recorder).chat(ChatRequest("m", [ChatMessage("user", "x")])) as stream:
        [e async for e in stream]
    assert recorder.body() == {
        "model": "m",
        "messages": [{"role": "user", "content": "x"}],
        "stream": True,
    }


async def test_a_partial_answer_is_sent_as_the_final_assistant_message() -> None:
    """Ollama continues a final assistant message itself (template/template.go leaves
    it open): the body carries it last, and no flag."""
    response, _ = streaming([FINAL])
    recorder = Recorder([response])
    backend = ollama(recorder)
    assert backend.continues_trailing_assistant
    assert not backend.supports_continue_final_message
    messages = [ChatMessage("user", "poem?"), ChatMessage("assistant", "Roses are")]
    request = ChatRequest("m", messages, continue_final_message=True)
    async with backend.chat(request) as stream:
        [e async for e in stream]
    body = recorder.body()
    assert body["messages"][-1] == {"role": "assistant", "content": "Roses are"}
    assert "continue_final_message" not in body and "add_generation_prompt" not in body


async def test_stream_of_thinking_answer_and_server_timings() -> None:
    lines = [
        ndjson({"message": {"role": "assistant", "content": "", "thinking": "let me"}}),
        ndjson({"message": {"role": "assistant", "content": "Yes"}, "done": False}),
        FINAL,
    ]
    response, _ = streaming(lines)
    stream = ollama(Recorder([response])).chat(ChatRequest("m", [ChatMessage("user", "?")]))
    async with stream:
        events = [e async for e in stream]
    assert events[1:3] == [Token("let me", TokenKind.THINKING), Token("Yes")]
    assert isinstance(events[3], ServerTimings) and events[3].values["eval_duration_ms"] == 100.0
    assert events[4] == Done(DoneReason.STOP, "Yes", "let me")
    metrics = stream.metrics()
    assert metrics.output_tokens == 2 and metrics.prompt_tokens == 7
    assert metrics.ttfo_ms is not None and metrics.ttft_ms is not None
    assert metrics.ttfo_ms >= metrics.ttft_ms


async def test_empty_messages_is_the_load_request() -> None:
    response, _ = streaming([ndjson({"model": "m", "done": True, "done_reason": "load"})])
    recorder = Recorder([response])
    stream = ollama(recorder).chat(ChatRequest("m", [], keep_alive=-1))
    async with stream:
        events = [e async for e in stream]
    assert recorder.body()["messages"] == [] and recorder.body()["keep_alive"] == -1
    assert events[-1] == Done(DoneReason.LOAD)


async def test_error_line_after_streaming_began_keeps_partial_text() -> None:
    lines = [ndjson({"message": {"content": "Once"}}), ndjson({"error": "runner crashed"})]
    response, body = streaming(lines)
    stream = ollama(Recorder([response])).chat(ChatRequest("m", [ChatMessage("user", "?")]))
    async with stream:
        events = [e async for e in stream]
    assert isinstance(events[-1], Failed) and isinstance(events[-1].error, ServerError)
    assert events[-1].partial_text == "Once" and "runner crashed" in events[-1].message
    assert body.closed


async def test_http_404_model_not_found() -> None:
    body = b'{"error":"model \\"nope\\" not found, try pulling it first"}'
    response, _ = streaming([body], status=404, content_type="application/json")
    stream = ollama(Recorder([response])).chat(ChatRequest("nope", [ChatMessage("user", "?")]))
    async with stream:
        events = [e async for e in stream]
    assert isinstance(events[-1], Failed) and isinstance(events[-1].error, ModelNotFound)
    assert "nope" in events[-1].message


async def test_list_models_marks_loaded_ones() -> None:
    tags = {"models": [{"name": "a:latest", "size": 100}, {"name": "b:1b", "size": 200}]}
    ps = {
        "models": [
            {
                "name": "b:1b",
                "size": 200,
                "size_vram": 150,
                "context_length": 4096,
                "expires_at": "2026-12-03T01:00:00Z",
            }
        ]
    }

    async def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, json=tags if request.url.path == "/api/tags" else ps)

    backend = OllamaBackend(
        "http://box:11434", client=httpx.AsyncClient(transport=httpx.MockTransport(handler))
    )
    models = await backend.list_models()
    assert [(m.name, m.loaded, m.size_bytes) for m in models] == [
        ("a:latest", False, 100),
        ("b:1b", True, 200),
    ]
    assert models[1].expires_at == "2026-12-03T01:00:00Z" and models[1].size_vram == 150
    running = await backend.running_models()
    assert running[0].context_length == 4096


async def test_list_models_works_without_api_ps() -> None:
    async def handler(request: httpx.Request) -> httpx.Response:
        if request.url.path == "/api/ps":
            return httpx.Response(404, text="404 page not found")
        return httpx.Response(200, json={"models": [{"name": "a"}]})

    backend = OllamaBackend(
        "http://box:11434", client=httpx.AsyncClient(transport=httpx.MockTransport(handler))
    )
    models = await backend.list_models()
    assert models[0].name == "a" and models[0].loaded is None


async def test_show_reads_context_length_from_model_info() -> None:
    answer = {
        "details": {"family": "qwen3", "parameter_size": "596M", "quantization_level": "Q4_K_M"},
        "model_info": {"general.architecture": "qwen3", "qwen3.context_length": 40960},
        "capabilities": ["completion", "thinking"],
    }
    recorder = Recorder([httpx.Response(200, json=answer)])
    details = await ollama(recorder).show("qwen3:0.6b")
    assert (
        recorder.body() == {"model": "qwen3:0.6b"} and recorder.requests[0].url.path == "/api/show"
    )
    assert details.context_length == 40960 and details.family == "qwen3"
    assert details.capabilities == ("completion", "thinking")
    assert details.quantization == "Q4_K_M"


async def test_version() -> None:
    recorder = Recorder([httpx.Response(200, json={"version": "0.12.3"})])
    assert await ollama(recorder).version() == "0.12.3"


async def test_version_html_answer_is_a_protocol_error() -> None:
    recorder = Recorder([httpx.Response(200, text="<html>hi</html>")])
    with pytest.raises(ProtocolError, match="HTML"):
        await ollama(recorder).version()


async def test_unreachable_for_small_requests() -> None:
    recorder = Recorder([httpx.ConnectError("refused")])
    with pytest.raises(BackendUnreachable, match="box:11434"):
        await ollama(recorder).list_models()


@pytest.mark.parametrize("url", ["box:11434", "http://box:11434/api", "http://box:11434/v1/"])
def test_base_url_forms(url: str) -> None:
    assert OllamaBackend(url, client=httpx.AsyncClient()).base_url == "http://box:11434"


async def test_aclose_closes_only_its_own_client() -> None:
    shared = httpx.AsyncClient()
    await OllamaBackend("http://x", client=shared).aclose()
    assert not shared.is_closed
    own = OllamaBackend("http://x")
    await own.aclose()
    assert own.client.is_closed
    await shared.aclose()
