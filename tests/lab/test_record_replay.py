"""Record and replay: `tachy lab --upstream URL --record FILE` saves a real server's replies
(here another lab, or the real local engine), `--scenario FILE` plays them back byte for
byte with the recorded timing, and `--scrub` takes the text out for sharing."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest

from client.lab import LabServer, ScenarioError, load_scenario, scenario_from_dict
from client.lab.scenarios.recording import pick
from tests.lab.conftest import chat_body
from tests.lab.replay_timing import replay_errors_ms

OLLAMA = "/api/chat"
OPENAI = "/v1/chat/completions"


async def recorder(start_lab, up_url: str, path: Path, scrub: bool = False):
    server = LabServer(scenario_from_dict({}), upstream=up_url, record=path, scrub=scrub)
    url = await server.start()
    return server, httpx.AsyncClient(base_url=url, timeout=20)


async def record(start_lab, path: Path, calls, scrub: bool = False, **upstream_dials):
    """Record the calls [(path, body)] through a recorder in front of a lab; the bodies."""
    up_server, _ = await start_lab(**upstream_dials)
    server, client = await recorder(start_lab, up_server.url, path, scrub)
    try:
        bodies = []
        for url_path, body in calls:
            bodies.append(await client.post(url_path, json=body))
    finally:
        await client.aclose()
        await server.stop()
    return bodies


def sse_body(**extra) -> dict:
    return chat_body(stream=True, stream_options={"include_usage": True}, **extra)


async def test_a_recording_holds_each_reply_with_its_chunks_and_timing(start_lab, tmp_path):
    path = tmp_path / "session.json"
    (reply,) = await record(
        start_lab, path, [(OPENAI, sse_body())], ttft=40, tpot_ms=10, output_tokens=12
    )
    data = json.loads(path.read_text())
    assert data["model"] == "tachy-lab" and data["after"] == "loop"
    (saved,) = data["recording"]["replies"]
    assert (saved["path"], saved["status"], saved["end"]) == (OPENAI, 200, "eof")
    assert ["Content-Type", "text/event-stream; charset=utf-8"] in saved["headers"]
    body = "".join(chunk["text"] for chunk in saved["chunks"])
    assert body.encode() == reply.content  # what the client got, as it came
    offsets = [chunk["at_ms"] for chunk in saved["chunks"]]
    assert offsets == sorted(offsets) and len(offsets) >= 12
    assert 38 <= offsets[0] <= 400  # the upstream's TTFT (40 ms), measured in the lab
    assert 100 <= offsets[-1] - offsets[0] <= 600  # 11 gaps of 10 ms, and the closing
    assert saved["final"]["usage"]["completion_tokens"] == 12
    assert load_scenario(path).recording is not None  # a scenario file the lab can play


async def test_a_replay_is_byte_for_byte_in_both_protocols(start_lab, tmp_path):
    path = tmp_path / "both.json"
    ollama_body = chat_body(options={"num_predict": 6})
    recorded = await record(
        start_lab, path, [(OPENAI, sse_body()), (OLLAMA, ollama_body)], output_tokens=6
    )
    server = LabServer(path)
    url = await server.start()
    try:
        async with httpx.AsyncClient(base_url=url, timeout=20) as client:
            openai = await client.post(OPENAI, json=sse_body())
            ollama = await client.post(OLLAMA, json=chat_body(model="other"))
            again = await client.post(OLLAMA, json=ollama_body)  # after the last: loop
            completions = await client.post("/v1/completions", json={"model": "m", "prompt": "hi"})
    finally:
        await server.stop()
    assert openai.content == recorded[0].content and openai.headers["content-type"] == (
        "text/event-stream; charset=utf-8"
    )
    assert ollama.content == recorded[1].content == again.content
    assert ollama.headers["content-type"] == "application/x-ndjson"
    assert completions.status_code == 404
    assert "no replies to /v1/completions" in completions.json()["error"]["message"]


async def test_errors_and_whole_bodies_are_replayed_with_their_status(start_lab, tmp_path):
    path = tmp_path / "errors.json"
    await record(start_lab, path, [(OLLAMA, chat_body())], fault={"kind": "queue_full"})
    path2 = tmp_path / "whole.json"
    whole = await record(start_lab, path2, [(OPENAI, chat_body())])
    saved = json.loads(path2.read_text())["recording"]["replies"][0]
    assert saved["sized"] is True  # a Content-Length body, replayed with one
    for file, status in ((path, 503), (path2, 200)):
        server = LabServer(file)
        url = await server.start()
        try:
            async with httpx.AsyncClient(base_url=url, timeout=20) as client:
                endpoint = OLLAMA if status == 503 else OPENAI
                reply = await client.post(endpoint, json=chat_body())
        finally:
            await server.stop()
        assert reply.status_code == status
        if status == 503:
            assert "server busy" in reply.json()["error"]
        else:
            assert reply.content == whole[0].content
            assert reply.headers["content-length"] == str(len(whole[0].content))


async def test_a_reset_is_recorded_and_replayed_as_a_reset(start_lab, tmp_path):
    path = tmp_path / "reset.json"
    up_server, _ = await start_lab(fault={"kind": "reset", "after_tokens": 3})
    server, client = await recorder(start_lab, up_server.url, path)
    with pytest.raises((httpx.RemoteProtocolError, httpx.ReadError)):
        await client.post(OLLAMA, json=chat_body())
    await client.aclose()
    await server.stop()
    assert json.loads(path.read_text())["recording"]["replies"][0]["end"] == "reset"
    replaying = LabServer(path)
    url = await replaying.start()
    try:
        received = b""
        with pytest.raises((httpx.RemoteProtocolError, httpx.ReadError)):
            async with httpx.AsyncClient(base_url=url, timeout=20) as replay_client:
                async with replay_client.stream("POST", OLLAMA, json=chat_body()) as response:
                    async for data in response.aiter_raw():
                        received += data
        assert received.count(b"\n") == 3 and b'"done":true' not in received
    finally:
        await replaying.stop()


async def test_scrubbing_replaces_the_text_and_keeps_the_shape(start_lab, tmp_path):
    words = tmp_path / "secret.txt"
    words.write_text("Zanzibar quokka marmalade " * 20)
    plain, scrubbed = tmp_path / "plain.json", tmp_path / "scrubbed.json"
    calls = [(OLLAMA, chat_body()), ("/api/generate", {"model": "tachy-lab", "prompt": "hi"})]
    dials = {"text_file": str(words), "output_tokens": 10}
    await record(start_lab, plain, calls, **dials)
    await record(start_lab, scrubbed, calls, scrub=True, **dials)
    text = scrubbed.read_text()
    assert "quokka" in plain.read_text() and "quokka" not in text
    before = json.loads(plain.read_text())["recording"]["replies"]
    after = json.loads(text)["recording"]
    assert after["scrubbed"] is True
    for old, new in zip(before, after["replies"], strict=True):
        assert len(old["chunks"]) == len(new["chunks"])
        for a, b in zip(old["chunks"], new["chunks"], strict=True):
            assert 0.5 < len(b["text"]) / len(a["text"]) < 1.5
    context = after["replies"][1]["final"]["context"]
    assert set(context) == {0} and len(context) == len(before[1]["final"]["context"])
    body = "".join(c["text"] for c in after["replies"][0]["chunks"])
    lines = [json.loads(line) for line in body.splitlines()]  # still NDJSON, still readable
    assert "".join(line["message"]["content"] for line in lines).strip()


def test_replies_are_picked_in_order_then_loop_hold_or_end() -> None:
    replies = ("a", "b")
    assert [pick(replies, "loop", i) for i in range(4)] == ["a", "b", "a", "b"]  # type: ignore[arg-type]
    assert [pick(replies, "hold", i) for i in range(4)] == ["a", "b", "b", "b"]  # type: ignore[arg-type]
    assert pick(replies, "ok", 2) is None  # type: ignore[arg-type]


@pytest.mark.parametrize(("recording", "words"), [
    ({"replies": []}, "no replies"),
    ({"replies": [{"path": "/x", "status": 200, "chunks": []}]}, "reply 1: path must be"),
    ({"replies": [{"path": OLLAMA, "chunks": []}]}, "reply 1: missing 'status'"),
    ({"replies": [{"path": OLLAMA, "status": 200, "chunks": [{"at_ms": 1}]}]}, "missing 'text'"),
])  # fmt: skip
def test_a_bad_recording_is_named_in_one_sentence(recording: dict, words: str) -> None:
    with pytest.raises(ScenarioError, match=f"recording: .*{words}"):
        scenario_from_dict({"recording": recording})


ENGINE_BODY = {
    "messages": [{"role": "user", "content": "Tell me about the sea."}],
    "max_tokens": 40,
    "temperature": 0,
    "stream": True,
}


async def record_the_engine(local_engine, path: Path) -> dict:  # type: ignore[no-untyped-def]
    """Two replies of the real engine recorded through the lab at `path`; the body sent."""
    server = LabServer(scenario_from_dict({}), upstream=local_engine.url, record=path)
    url = await server.start()
    body = {"model": local_engine.model, **ENGINE_BODY}
    try:
        async with httpx.AsyncClient(base_url=url, timeout=120) as client:
            for _ in range(2):
                assert (await client.post(OPENAI, json=body)).status_code == 200
    finally:
        await server.stop()
    return body


@pytest.mark.engine
async def test_a_local_engine_session_replays_whole(local_engine, tmp_path):
    """The done line of issue 19 item 3: record the real engine, replay every chunk.
    How close the replay keeps the rhythm is a benchmark (tests/perf/test_replay_rhythm.py)."""
    path = tmp_path / "engine.json"
    body = await record_the_engine(local_engine, path)
    recording = load_scenario(path).recording
    assert recording is not None and len(recording.replies) == 2
    assert all(len(reply.chunks) >= 20 for reply in recording.replies)
    starts, errors = replay_errors_ms(path, OPENAI, body, rounds=1)
    assert len(starts) == 2  # every reply played ...
    assert len(errors) == sum(len(reply.chunks) - 1 for reply in recording.replies)  # ... whole
    assert min(starts) >= -2.0  # never early (asyncio may fire a timer ~1 ms soon)
