"""The route is chosen per request: each request goes to the route its plan chose
from the session's candidates at the time it was asked, and the answer records it."""

from __future__ import annotations

import httpx

from client.backends import OllamaBackend, OpenAICompatBackend
from client.services.chat.generation import Generation
from client.services.chat.session import ChatSession
from client.services.planning.planner import Route

OLLAMA_ANSWER = (
    b'{"message":{"role":"assistant","content":"Hi."},"done":false}\n'
    b'{"message":{"role":"assistant","content":""},"done":true,"done_reason":"stop"}\n'
)
OPENAI_ANSWER = (
    b'data: {"choices":[{"delta":{"content":"Hi."}}]}\n\n'
    b'data: {"choices":[{"delta":{},"finish_reason":"stop"}]}\n\n'
    b"data: [DONE]\n\n"
)


class Servers:
    """Two servers behind one mock transport; each chat request is noted by host."""

    def __init__(self) -> None:
        self.hosts: list[str] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.hosts.append(request.url.host)
        if request.url.path == "/api/chat":
            return httpx.Response(200, content=OLLAMA_ANSWER)
        return httpx.Response(200, content=OPENAI_ANSWER)


async def answer(generation: Generation) -> None:
    async for _event in generation:
        pass
    assert generation.finished is not None and generation.finished.text == "Hi."


async def test_each_request_goes_to_the_route_chosen_when_it_was_asked() -> None:
    servers = Servers()
    client = httpx.AsyncClient(transport=httpx.MockTransport(servers))
    ollama = Route(OllamaBackend("http://ollama.test", client=client), "llama3.2", "Ollama")
    lab = Route(OpenAICompatBackend("http://lab.test", client=client), "smol", "Lab")
    session = ChatSession(ollama.backend, ollama.model, server_name="Ollama")
    assert session.routes == (ollama,)

    first = session.generate(None, "Hello?")
    session.use_route(lab)  # chosen while the first is not sent yet: for the next one
    await answer(first)
    second = session.generate(first.conversation_id, "And you?")
    await answer(second)

    assert servers.hosts == ["ollama.test", "lab.test"]
    assert first.route == ollama and second.route == lab
    assert first.plan is not None and first.plan.why == "the server and model chosen"
    assert second.request is not None and second.request.model == "smol"
    stored = [session.history.get_message(g.assistant_message_id or 0) for g in (first, second)]
    assert [(m.server, m.model) for m in stored if m is not None] == [
        ("Ollama", "llama3.2"),
        ("Lab", "smol"),
    ]
    session.close()
    await client.aclose()


async def test_a_model_change_keeps_the_server() -> None:
    servers = Servers()
    client = httpx.AsyncClient(transport=httpx.MockTransport(servers))
    session = ChatSession(OllamaBackend("http://ollama.test", client=client), "a", server_name="O")
    session.use_model("b")  # what the window's model picker does
    generation = session.generate(None, "Hello?")
    await answer(generation)
    assert generation.route == Route(session.backend, "b", "O")
    assert servers.hosts == ["ollama.test"]
    session.close()
    await client.aclose()
