"""The Ollama native API, checked against the examples in ollama docs/api.md."""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime

from tests.lab.conftest import chat_body

GO_TIME = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{1,9})?(Z|[+-]\d\d:\d\d)$")
DURATIONS = ("total_duration", "load_duration", "prompt_eval_duration", "eval_duration")


def lines_of(raw: bytes) -> list[dict]:
    assert raw.endswith(b"\n")
    return [json.loads(line) for line in raw.decode().split("\n")[:-1]]


async def test_chat_streams_ndjson_objects_like_the_docs(lab) -> None:
    _, client = lab
    response = await client.post("/api/chat", json=chat_body())
    assert response.status_code == 200
    assert response.headers["content-type"] == "application/x-ndjson"
    objects = lines_of(response.content)
    *chunks, final = objects
    assert len(chunks) == 8
    for chunk in chunks:
        assert list(chunk) == ["model", "created_at", "message", "done"]
        assert chunk["model"] == "tachy-lab"
        assert GO_TIME.match(chunk["created_at"])
        assert chunk["message"]["role"] == "assistant" and chunk["message"]["content"]
        assert chunk["done"] is False
    assert list(final)[:5] == ["model", "created_at", "message", "done_reason", "done"]
    assert final["done"] is True and final["done_reason"] == "stop"
    assert final["message"] == {"role": "assistant", "content": ""}
    assert final["eval_count"] == 8 and final["prompt_eval_count"] >= 1
    for key in ("total_duration", "prompt_eval_duration", "eval_duration"):
        assert isinstance(final[key], int)
    # nanoseconds: a 5 ms TTFT is millions, not thousands
    assert final["prompt_eval_duration"] > 4_000_000
    assert final["total_duration"] > final["prompt_eval_duration"]
    assert final["load_duration"] > 0  # warm: small, but on every final line
    # Go's encoding/json: compact, no spaces after separators
    assert response.content.split(b"\n")[0].startswith(b'{"model":"tachy-lab","created_at":"')


async def test_chat_without_streaming_is_one_object(lab) -> None:
    _, client = lab
    response = await client.post("/api/chat", json=chat_body(stream=False))
    assert response.headers["content-type"] == "application/json; charset=utf-8"
    body = response.json()
    assert body["done"] is True and body["done_reason"] == "stop"
    assert len(body["message"]["content"]) > 10
    assert body["eval_count"] == 8


async def test_num_predict_cuts_with_done_reason_length(lab) -> None:
    _, client = lab
    body = chat_body(stream=False, options={"num_predict": 3})
    reply = (await client.post("/api/chat", json=body)).json()
    assert reply["done_reason"] == "length" and reply["eval_count"] == 3


async def test_generate_uses_response_and_done_before_done_reason(lab) -> None:
    _, client = lab
    response = await client.post("/api/generate", json={"model": "tachy-lab", "prompt": "Hi"})
    *chunks, final = lines_of(response.content)
    assert all(list(c) == ["model", "created_at", "response", "done"] for c in chunks)
    assert list(final)[:5] == ["model", "created_at", "response", "done", "done_reason"]
    assert final["response"] == ""


async def test_thinking_comes_first_when_think_is_requested(start_lab) -> None:
    _, client = await start_lab(reasoning_tokens=5)
    objects = lines_of((await client.post("/api/chat", json=chat_body(think=True))).content)
    thinking = [o["message"]["thinking"] for o in objects if "thinking" in o["message"]]
    assert len(thinking) == 5 and objects[0]["message"]["content"] == ""
    assert objects[5]["message"]["content"] and "thinking" not in objects[5]["message"]
    assert objects[-1]["eval_count"] == 13
    plain = lines_of((await client.post("/api/chat", json=chat_body())).content)
    assert not any("thinking" in o["message"] for o in plain)
    generated = lines_of(
        (
            await client.post(
                "/api/generate", json={"model": "tachy-lab", "prompt": "x", "think": True}
            )
        ).content
    )
    assert "thinking" in generated[0] and generated[0]["response"] == ""


async def test_thinking_preset_thinks_without_being_asked(start_lab) -> None:
    _, client = await start_lab(base="thinking", ttft=5, tpot_ms=1, reasoning_tokens=3)
    objects = lines_of((await client.post("/api/chat", json=chat_body())).content)
    assert "thinking" in objects[0]["message"]


async def test_unknown_model_is_404_with_error_string(lab) -> None:
    _, client = lab
    response = await client.post("/api/chat", json={**chat_body(), "model": "nope:7b"})
    assert response.status_code == 404
    assert response.json() == {"error": "model 'nope:7b' not found"}
    shown = await client.post("/api/show", json={"model": "nope"})
    assert shown.status_code == 404 and "error" in shown.json()


async def test_bad_requests_are_400(lab) -> None:
    _, client = lab
    assert (await client.post("/api/chat", content=b"{not json")).status_code == 400
    assert (await client.post("/api/chat", json={"messages": []})).status_code == 400
    response = await client.post("/api/chat", json=chat_body(keep_alive="soon"))
    assert response.status_code == 400 and "invalid duration" in response.json()["error"]


async def test_tags_show_version_and_root(lab) -> None:
    _, client = lab
    tags = (await client.get("/api/tags")).json()
    (model,) = tags["models"]
    assert model["name"] == "tachy-lab:latest" and len(model["digest"]) == 64
    assert set(model) >= {"name", "model", "modified_at", "size", "digest", "details"}
    assert set(model["details"]) == {
        "parent_model", "format", "family", "families", "parameter_size", "quantization_level"
    }  # fmt: skip
    show = (await client.post("/api/show", json={"model": "tachy-lab"})).json()
    assert show["model_info"]["llama.context_length"] == 8192
    assert show["capabilities"] == ["completion"]
    assert set(show) >= {"modelfile", "parameters", "template", "details", "model_info"}
    assert (await client.get("/api/version")).json() == {"version": "0.12.6"}
    root = await client.get("/")
    assert root.text == "Ollama is running"


async def test_ps_lists_the_loaded_model_with_future_expiry(lab) -> None:
    _, client = lab
    (model,) = (await client.get("/api/ps")).json()["models"]
    assert model["name"] == "tachy-lab:latest" and model["size_vram"] > 0
    expires = datetime.fromisoformat(model["expires_at"].replace("Z", "+00:00"))
    remaining = (expires - datetime.now(UTC)).total_seconds()
    assert 250 < remaining <= 300  # the default keep_alive is 5 minutes
