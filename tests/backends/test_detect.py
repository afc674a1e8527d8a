from __future__ import annotations

import socket
import time

import pytest

from client.backends.detect import detect, discover_local_servers
from client.backends.errors import BackendUnreachable, ProtocolError
from tests.backends.live_server import LiveServer, Script
from tests.backends.test_live_http import closed_port


@pytest.mark.parametrize(("api", "suffix"), [("openai", ""), ("openai", "/v1/"), ("ollama", "")])
async def test_detect_tells_the_apis_apart(api: str, suffix: str) -> None:
    with LiveServer(Script(api=api)) as server:
        assert await detect(server.url + suffix) == api


async def test_detect_unreachable() -> None:
    with pytest.raises(BackendUnreachable, match="Can't reach"):
        await detect(f"http://127.0.0.1:{closed_port()}")


async def test_detect_other_http_server_is_a_protocol_error() -> None:
    with LiveServer(Script(api="none")) as server, pytest.raises(ProtocolError) as caught:
        await detect(server.url)
    assert "neither like Ollama" in str(caught.value)


async def test_discovery_finds_both_apis_with_their_models() -> None:
    ollama = Script(api="ollama", models=["llama3.2:1b", "qwen3:0.6b"])
    openai = Script(api="openai", models=["served-model"])
    with LiveServer(ollama) as one, LiveServer(openai) as two:
        ports = (one.port, closed_port(), two.port)
        # A generous budget: this test checks what is found; the budget has its own tests.
        found = await discover_local_servers(ports, budget_s=60.0)
    assert [(s.url, s.api, s.models) for s in found] == [
        (one.url, "ollama", ["llama3.2:1b", "qwen3:0.6b"]),
        (two.url, "openai", ["served-model"]),
    ]


async def test_closed_ports_answer_at_once() -> None:
    """Refused at once: the search does not wait out its (here 60 s) budget."""
    started = time.perf_counter()
    assert await discover_local_servers((closed_port(), closed_port()), budget_s=60) == []
    assert time.perf_counter() - started < 30


async def test_a_port_that_never_answers_does_not_exceed_the_budget() -> None:
    with socket.socket() as silent:  # listens, accepts into the backlog, never replies
        silent.bind(("127.0.0.1", 0))
        silent.listen(8)
        started = time.perf_counter()
        found = await discover_local_servers((silent.getsockname()[1],), budget_s=0.2)
        took = time.perf_counter() - started
    assert found == []
    assert took >= 0.19  # it waited its budget ...
    assert took < 10  # ... and no more: nothing else bounds a silent port's probe
