"""The warmed prefix is, byte for byte, the start of the next request's messages, on
Ollama's and on the OpenAI-compatible body: the warmer and the session plan with one
function (client.services.planning.planner), so the server's prompt cache hits.

Both requests are the real ones: the KeepAliveWarmer's 1-token warm-up and the
ChatSession's request for the next question, caught on the wire by an httpx
MockTransport."""

from __future__ import annotations

import json

import httpx
import pytest

from client.backends import OllamaBackend, OpenAICompatBackend
from client.backends.base import Backend
from client.services.chat.session import ChatSession
from client.services.servers.model_status import ServerPolicy
from client.services.warming.warming import WARM_PROMPT, KeepAliveWarmer

MODEL = "m"
OPENAI_ANSWER = (
    b'data: {"choices":[{"delta":{"role":"assistant"}}]}\n\n'
    b'data: {"choices":[{"delta":{"content":"The sea \\u00e9bbs."}}]}\n\n'
    b'data: {"choices":[{"delta":{},"finish_reason":"stop"}]}\n\n'
    b"data: [DONE]\n\n"
)
OLLAMA_ANSWER = (
    b'{"message":{"role":"assistant","content":"The sea \\u00e9bbs."},"done":false}\n'
    b'{"message":{"role":"assistant","content":""},"done":true,"done_reason":"stop"}\n'
)


class Wire:
    """An httpx transport that keeps the bytes of every chat request."""

    def __init__(self) -> None:
        self.bodies: list[bytes] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        if request.url.path == "/v1/models":
            return httpx.Response(200, json={"data": [{"id": MODEL, "owned_by": "llamacpp"}]})
        self.bodies.append(request.content)
        if request.url.path == "/api/chat":
            return httpx.Response(200, content=OLLAMA_ANSWER)
        return httpx.Response(200, content=OPENAI_ANSWER)


def message_spans(body: bytes) -> tuple[str, list[tuple[int, int]]]:
    """The body as text, and where each element of its "messages" array starts and ends."""
    text = body.decode("utf-8")
    at = text.index("[", text.index('"messages"')) + 1
    decoder = json.JSONDecoder()
    spans = []
    while text[at] != "]":
        while text[at] in ", ":
            at += 1
        _, end = decoder.raw_decode(text, at)
        spans.append((at, end))
        at = end
        while text[at] == " ":
            at += 1
    return text, spans


def make_backend(api: str, wire: Wire) -> Backend:
    client = httpx.AsyncClient(transport=httpx.MockTransport(wire))
    if api == "ollama":
        return OllamaBackend("http://127.0.0.1:11434", client=client)
    return OpenAICompatBackend("http://127.0.0.1:8000", client=client)


async def drain(generation: object) -> None:
    async for _event in generation:  # type: ignore[attr-defined]
        pass


@pytest.mark.parametrize("api", ["ollama", "openai"])
async def test_the_warmed_prefix_is_the_start_of_the_next_request(api: str) -> None:
    wire = Wire()
    backend = make_backend(api, wire)
    session = ChatSession(backend, MODEL)
    session.configure(system_prompt="Answer briefly, in \u00e9l\u00e9gant words.")
    first = session.generate(None, "What is a tide? \u6f6e")
    await drain(first)
    conversation = first.conversation_id
    # What the window does while the next question is typed
    # (client/ui/warming/warming_controller.py).
    draft = "Why does it turn?"
    history, ids = session.stored_context(conversation)
    prefix = list(session.plan_question(history, draft, ids).prefix)
    # Ollama's own warm-up is the documented load request; the policy that warms a
    # prefix runs the same on its body, as it would on a server with a prompt cache.
    warmer = KeepAliveWarmer(backend, MODEL, policy=ServerPolicy.KEEPS_LOADED)
    warmer.prefix_provider = lambda: prefix
    await warmer.warm_now("typing")
    assert warmer.last_error is None
    await drain(session.generate(conversation, draft))
    _, warm_up, request = wire.bodies

    warm_text, warm_spans = message_spans(warm_up)
    sent_text, sent_spans = message_spans(request)
    assert len(prefix) == 3 and len(warm_spans) == 4 and len(sent_spans) == 4
    warmed = warm_text[warm_spans[0][0] : warm_spans[2][1]]
    sent = sent_text[sent_spans[0][0] : sent_spans[2][1]]
    assert warmed.encode() == sent.encode()  # the server's cache holds the request's start
    assert "The sea" in warmed and "Answer briefly" in warmed
    assert json.loads(warm_text[slice(*warm_spans[3])])["content"] == WARM_PROMPT
    assert json.loads(sent_text[slice(*sent_spans[3])])["content"] == draft
    await warmer.aclose()
    session.close()
    await backend.aclose()
