"""Prefill progress: llama.cpp's prompt_progress chunks become Prefill events, asked for
only once a server has shown it is llama.cpp's, and they reach `tachy chat`."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from client.backends.apis.openai.backend import OpenAICompatBackend
from client.backends.apis.openai.decoder import OpenAIStreamDecoder
from client.backends.kinds.llamacpp import LLAMACPP
from client.cli import main
from client.core.conversation import ChatMessage, ChatRequest
from client.core.events import Prefill, Token
from client.core.timeline import RequestTimeline
from client.lab import scenario_from_dict
from client.lab.server import run_in_thread

ROLE = {"choices": [{"index": 0, "delta": {"role": "assistant", "content": None}}]}


def sse(*chunks: dict[str, Any]) -> bytes:
    return b"".join(b"data: " + json.dumps(chunk).encode() + b"\n\n" for chunk in chunks)


def progress(total: int, cache: int, processed: int, time_ms: float) -> dict[str, Any]:
    return {
        **ROLE,
        "prompt_progress": dict(total=total, cache=cache, processed=processed, time_ms=time_ms),
    }


def test_progress_chunks_become_prefill_events_and_never_tokens() -> None:
    decoder = OpenAIStreamDecoder()
    events = decoder.feed(
        sse(
            progress(1493, 0, 0, 0),
            progress(1493, 0, 630, 2100.0),
            progress(1493, 0, 1493, 4980.0),
            {"choices": [{"index": 0, "delta": {"content": "Hi"}}]},
        )
    )
    assert events == [
        Prefill(0, 1493, 0, 0.0),
        Prefill(630, 1493, 0, 2100.0),
        Prefill(1493, 1493, 0, 4980.0),
        Token("Hi"),
    ]


@pytest.mark.parametrize(
    "value",
    [None, "50%", {"total": 10}, {"processed": 3}, {"total": -1, "processed": 0}, [1, 2]],
)
def test_malformed_progress_is_ignored_not_fatal(value: object) -> None:
    events = OpenAIStreamDecoder().feed(sse({**ROLE, "prompt_progress": value}))
    assert events == []


def test_a_cache_larger_than_the_prompt_is_capped() -> None:
    (event,) = OpenAIStreamDecoder().feed(sse(progress(100, 500, 100, 0)))
    assert isinstance(event, Prefill) and event.cached == 100 and event.fraction == 1.0


def test_share_and_time_left_count_only_what_is_computed() -> None:
    # 1,400 of 1,493 tokens from the cache: the wait is for the other 93.
    half = Prefill(processed=1446, total=1493, cached=1400, time_ms=500.0)
    assert (half.computed, half.to_compute) == (46, 93)
    assert half.fraction == pytest.approx(46 / 93)
    assert half.seconds_left() == pytest.approx((93 - 46) / (46 / 500.0) / 1000)
    assert Prefill(1400, 1493, 1400, 0.0).seconds_left() is None  # nothing measured yet
    assert Prefill(10, 10, 10, 0.0).fraction == 1.0  # all cached: nothing to wait for


def test_the_time_left_counts_down_between_progress_chunks() -> None:
    timeline = RequestTimeline()
    assert timeline.prefill_seconds_left() is None
    timeline.mark_prefill(Prefill(100, 300, 0, 1000.0), at_ns=0)  # 0.1 tokens/ms: 2 s left
    assert timeline.prefill_seconds_left(at_ns=0) == pytest.approx(2.0)
    assert timeline.prefill_seconds_left(at_ns=500_000_000) == pytest.approx(1.5)
    assert timeline.prefill_seconds_left(at_ns=5_000_000_000) == 0.0


class Recorder:
    """A fake OpenAI-compatible server: which bodies it got; llama.cpp's or not."""

    def __init__(self, server_header: str = "", owned_by: str = "vllm") -> None:
        self.bodies: list[dict[str, Any]] = []
        self.server_header = server_header
        self.owned_by = owned_by

    def __call__(self, request: httpx.Request) -> httpx.Response:
        headers = {"server": self.server_header} if self.server_header else {}
        if request.url.path == "/v1/models":
            return httpx.Response(
                200, json={"data": [{"id": "m", "owned_by": self.owned_by}]}, headers=headers
            )
        self.bodies.append(json.loads(request.content))
        body = sse({"choices": [{"index": 0, "delta": {"content": "ok"}}]}) + b"data: [DONE]\n\n"
        headers["content-type"] = "text/event-stream"
        return httpx.Response(200, content=body, headers=headers)


async def ask(backend: OpenAICompatBackend) -> None:
    async with backend.chat(ChatRequest("m", [ChatMessage("user", "hi")])) as stream:
        async for _ in stream:
            pass


@pytest.mark.parametrize(
    ("server", "learn_by"),
    [(Recorder(server_header="llama.cpp"), "reply"), (Recorder(owned_by="llamacpp"), "models")],
)
async def test_progress_is_asked_once_the_server_showed_it_is_llama_cpp(
    server: Recorder, learn_by: str
) -> None:
    client = httpx.AsyncClient(transport=httpx.MockTransport(server))
    backend = OpenAICompatBackend("http://127.0.0.1:8080", client=client)
    try:
        if learn_by == "models":
            await backend.list_models()
        await ask(backend)
        await ask(backend)
    finally:
        await client.aclose()
    first, second = server.bodies
    assert second["return_progress"] is True
    assert ("return_progress" in first) is (learn_by == "models")


async def test_other_servers_are_never_sent_the_field() -> None:
    server = Recorder(server_header="uvicorn", owned_by="vllm")
    client = httpx.AsyncClient(transport=httpx.MockTransport(server))
    backend = OpenAICompatBackend("http://127.0.0.1:8000", client=client)
    try:
        await backend.list_models()
        await ask(backend)
        await ask(backend)
    finally:
        await client.aclose()
    assert all("return_progress" not in body for body in server.bodies)


async def test_a_shared_client_learns_per_server() -> None:
    """A llama.cpp answer from another server on the same client teaches nothing."""
    server = Recorder(server_header="llama.cpp")
    client = httpx.AsyncClient(transport=httpx.MockTransport(server))
    llama = OpenAICompatBackend("http://127.0.0.1:8080", client=client)
    other = OpenAICompatBackend("http://127.0.0.1:80", client=client)
    try:
        await ask(llama)
    finally:
        await client.aclose()
    assert llama.kind is LLAMACPP and other.kind is not LLAMACPP


@pytest.fixture
def prefill_lab() -> Iterator[str]:
    """The lab as a llama.cpp server reading 4,000 tokens/s, on its own thread (the
    command under test runs its own event loop)."""
    dials = {"ttft": 5, "tpot_ms": 1, "output_tokens": 4, "seed": 1, "server": "llamacpp"}
    lab = run_in_thread(scenario_from_dict({**dials, "n_batch": 64, "prefill_tokens_per_s": 4000}))
    yield lab.url
    lab.stop()


def test_chat_json_prints_prefill_lines_and_stages_on_stderr(
    prefill_lab: str, capsys: pytest.CaptureFixture[str]
) -> None:
    question = " ".join(["hello world"] * 150)
    args = ["chat", "--url", prefill_lab, "--api", "openai", "-m", "tachy-lab"]
    assert main([*args, "--json", question]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    prefill = [line for line in lines if line["event"] == "prefill"]
    assert len(prefill) >= 3, lines[:5]
    assert {"processed", "total", "cached"} <= set(prefill[0])
    done = [p["processed"] for p in prefill]
    assert done == sorted(done) and done[-1] == prefill[-1]["total"]
    first_token = next(i for i, line in enumerate(lines) if line["event"] == "token")
    assert max(i for i, line in enumerate(lines) if line["event"] == "prefill") < first_token

    assert main([*args, "--stages", question + " again"]) == 0
    err = capsys.readouterr().err
    assert "] prefill " in err and " tokens, " in err and " cached)" in err
