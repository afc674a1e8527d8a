"""Every fault reproduces as documented, in both protocols (raw httpx clients)."""

from __future__ import annotations

import asyncio
import itertools
import json
import time

import httpx
import pytest

from tests.lab.conftest import chat_body

OLLAMA = ("/api/chat", {})
OPENAI = ("/v1/chat/completions", {"stream": True})
BOTH = pytest.mark.parametrize(("path", "extra"), [OLLAMA, OPENAI], ids=["ollama", "openai"])


async def raw_stream(client: httpx.AsyncClient, path: str, extra: dict) -> tuple[int, bytes]:
    async with client.stream("POST", path, json=chat_body(**extra)) as response:
        return response.status_code, await response.aread()


def tokens_in(raw: bytes, path: str) -> list[str]:
    texts = []
    for line in raw.split(b"\n"):
        line = line.removeprefix(b"data: ")
        try:
            obj = json.loads(line)
        except ValueError:
            continue
        if path == "/api/chat" and not obj.get("done") and "message" in obj:
            texts.append(obj["message"]["content"])
        elif (
            path != "/api/chat" and obj.get("choices") and obj["choices"][0]["delta"].get("content")
        ):
            texts.append(obj["choices"][0]["delta"]["content"])
    return texts


@BOTH
@pytest.mark.parametrize(("fault", "status"), [
    ({"kind": "http_error", "status": 500}, 500),
    ({"kind": "http_error", "status": 429, "message": "slow down"}, 429),
    ({"kind": "queue_full"}, 503),
    ({"kind": "unknown_model"}, 404),
])  # fmt: skip
async def test_http_errors_before_the_stream(start_lab, path, extra, fault, status) -> None:
    _, client = await start_lab(fault=fault)
    code, raw = await raw_stream(client, path, extra)
    assert code == status
    error = json.loads(raw)["error"]
    if path == "/api/chat":
        assert isinstance(error, str) and error
    else:
        assert error["code"] == status and error["message"] and error["type"]
    if fault["kind"] == "queue_full":
        assert "server busy" in raw.decode()


@BOTH
async def test_html_error_page(start_lab, path, extra) -> None:
    _, client = await start_lab(fault="html_error")
    async with client.stream("POST", path, json=chat_body(**extra)) as response:
        body = await response.aread()
    assert response.status_code == 502
    assert response.headers["content-type"].startswith("text/html")
    assert body.startswith(b"<html>") and b"502 Bad Gateway" in body


@BOTH
async def test_error_mid_stream_after_n_tokens(start_lab, path, extra) -> None:
    _, client = await start_lab(
        fault={"kind": "error_mid_stream", "after_tokens": 3, "message": "boom"}
    )
    code, raw = await raw_stream(client, path, extra)
    assert code == 200  # the status was already sent
    assert len(tokens_in(raw, path)) == 3
    if path == "/api/chat":
        assert raw.endswith(b'{"error":"boom"}\n') and b'"done":true' not in raw
    else:
        assert raw.endswith(b"\n\ndata: [DONE]\n\n")
        error = json.loads(raw.split(b"\n\n")[-3].removeprefix(b"data: "))["error"]
        assert error["message"] == "boom" and b'finish_reason":"stop' not in raw


@BOTH
async def test_reset_after_n_tokens_aborts_the_connection(start_lab, path, extra) -> None:
    _, client = await start_lab(fault={"kind": "reset", "after_tokens": 3})
    received = b""
    with pytest.raises((httpx.RemoteProtocolError, httpx.ReadError)):
        async with client.stream("POST", path, json=chat_body(**extra)) as response:
            async for data in response.aiter_raw():
                received += data
    assert len(tokens_in(received, path)) == 3


@BOTH
async def test_stall_for_s_seconds_then_carry_on(start_lab, path, extra) -> None:
    _, client = await start_lab(fault={"kind": "stall", "after_tokens": 3, "seconds": 1.0})
    stamps = []
    started = time.perf_counter()
    async with client.stream("POST", path, json=chat_body(**extra)) as response:
        async for line in response.aiter_lines():
            if tokens_in(line.encode(), path):
                stamps.append(time.perf_counter())
    assert len(stamps) == 8  # and then it carried on
    # The 4th token was sent a second after the 3rd (sleeps only come late; a gap seen by
    # a late reader may look shorter), and that gap is the stall: the longest.
    assert stamps[3] - started >= 1.0
    gaps = [b - a for a, b in itertools.pairwise(stamps)]
    assert max(gaps) == gaps[2], gaps


@BOTH
async def test_first_byte_later_than_the_client_timeout(start_lab, path, extra) -> None:
    # 2 s late against a 0.15 s read timeout: the timeout fires first on any machine.
    _, client = await start_lab(fault={"kind": "slow_first_byte", "seconds": 2.0})
    with pytest.raises(httpx.ReadTimeout):
        await client.post(path, json=chat_body(**extra), timeout=httpx.Timeout(5, read=0.15))
    started = time.perf_counter()
    code, raw = await raw_stream(client, path, extra)
    assert code == 200 and time.perf_counter() - started >= 1.95
    assert len(tokens_in(raw, path)) == 8


@BOTH
async def test_malformed_json_line(start_lab, path, extra) -> None:
    _, client = await start_lab(fault={"kind": "malformed_json", "after_tokens": 2})
    _, raw = await raw_stream(client, path, extra)
    broken = []
    for line in raw.split(b"\n"):
        payload = line.removeprefix(b"data: ")
        if payload and payload != b"[DONE]":
            try:
                json.loads(payload)
            except ValueError:
                broken.append(payload)
    assert len(broken) == 1 and broken[0].startswith(b'{"')
    assert len(tokens_in(raw, path)) == 8  # the stream carries on after it


@BOTH
async def test_oversize_line(start_lab, path, extra) -> None:
    _, client = await start_lab(fault={"kind": "oversize_line", "after_tokens": 2})
    _, raw = await raw_stream(client, path, extra)
    longest = max(raw.split(b"\n"), key=len)
    assert len(longest) > 9 * 1024 * 1024
    assert json.loads(longest.removeprefix(b"data: "))  # one valid, huge line


@BOTH
async def test_utf8_character_cut_at_the_end(start_lab, path, extra) -> None:
    _, client = await start_lab(fault="utf8_cut")
    code, raw = await raw_stream(client, path, extra)
    assert code == 200 and len(tokens_in(raw, path)) == 8
    assert raw.endswith("終".encode()[:1])
    with pytest.raises(UnicodeDecodeError):
        raw.decode()
    assert b'"done":true' not in raw and b"[DONE]" not in raw


@BOTH
async def test_never_answer_holds_until_the_client_leaves(start_lab, path, extra) -> None:
    server, client = await start_lab(fault="never_answer")
    with pytest.raises(httpx.ReadTimeout):
        await client.post(path, json=chat_body(**extra), timeout=httpx.Timeout(5, read=0.3))
    for _ in range(6000):  # the handler is cancelled once the connection closes
        if server.stats.held == 0:
            break
        await asyncio.sleep(0.01)
    assert server.stats.held == 0 and server.stats.disconnected == 0


async def test_never_answer_is_really_held(start_lab) -> None:
    server, client = await start_lab(fault="never_answer")
    task = asyncio.create_task(client.post("/api/chat", json=chat_body()))
    for _ in range(6000):  # a minute at most
        if server.stats.held == 1:
            break
        await asyncio.sleep(0.01)
    assert server.stats.held == 1 and not task.done()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task


async def test_non_streaming_requests_get_the_faults_too(start_lab) -> None:
    _, client = await start_lab(fault={"kind": "error_mid_stream", "after_tokens": 2})
    response = await client.post("/api/chat", json=chat_body(stream=False))
    assert response.status_code == 500 and "error" in response.json()
    _, client = await start_lab(fault="utf8_cut")
    response = await client.post("/v1/chat/completions", json=chat_body())
    with pytest.raises(UnicodeDecodeError):
        response.content.decode()


async def test_random_faults_follow_the_rate_and_the_seed(start_lab) -> None:
    pool = [{"kind": "http_error", "status": 500}, {"kind": "queue_full"}]
    outcomes = []
    for _ in range(2):
        _, client = await start_lab(seed=11, random_faults={"rate": 0.5, "pool": pool})
        codes = [
            (await client.post("/api/chat", json=chat_body(stream=False))).status_code
            for _ in range(30)
        ]
        outcomes.append(codes)
    assert outcomes[0] == outcomes[1]  # the same seed replays the same faults
    assert {200, 500, 503} == set(outcomes[0])
    assert 5 <= outcomes[0].count(200) <= 25
