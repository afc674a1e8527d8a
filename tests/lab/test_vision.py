"""The lab's vision models: images accepted on both APIs and counted as prompt tokens by
their size; a text model refuses them as each real server does."""

from __future__ import annotations

import base64
import io
import json

from PIL import Image

from tests.lab.conftest import StartLab

VISION = {"vision": True, "tile_px": 512, "tokens_per_tile": 100, "image_size": 896}


def png(width: int, height: int) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (width, height), (200, 30, 30)).save(out, "PNG")
    return out.getvalue()


def ollama_chat(image: bytes | None, model: str = "tachy-lab") -> dict[str, object]:
    message: dict[str, object] = {"role": "user", "content": "what is this?"}
    if image is not None:
        message["images"] = [base64.b64encode(image).decode()]
    return {"model": model, "messages": [message], "stream": False}


def openai_chat(image: bytes | None, model: str = "tachy-lab") -> dict[str, object]:
    parts: list[dict[str, object]] = [{"type": "text", "text": "what is this?"}]
    if image is not None:
        url = "data:image/png;base64," + base64.b64encode(image).decode()
        parts.append({"type": "image_url", "image_url": {"url": url}})
    return {"model": model, "messages": [{"role": "user", "content": parts}]}


async def test_ollama_vision_model_counts_an_image_by_its_tiles(start_lab: StartLab) -> None:
    _, client = await start_lab(**VISION)
    plain = (await client.post("/api/chat", json=ollama_chat(None))).json()
    seen = await client.post("/api/chat", json=ollama_chat(png(1024, 600)))
    assert seen.status_code == 200, seen.text
    # 1,024 x 600 covers 2 x 2 tiles of 512 px: 400 tokens more than the text alone.
    assert seen.json()["prompt_eval_count"] - plain["prompt_eval_count"] == 400
    shown = (await client.post("/api/show", json={"model": "tachy-lab"})).json()
    assert "vision" in shown["capabilities"]
    assert shown["model_info"]["llama.vision.image_size"] == 896


async def test_openai_vision_model_reads_image_url_parts(start_lab: StartLab) -> None:
    _, client = await start_lab(**VISION)
    plain = (await client.post("/v1/chat/completions", json=openai_chat(None))).json()
    seen = await client.post("/v1/chat/completions", json=openai_chat(png(513, 100)))
    assert seen.status_code == 200, seen.text
    extra = seen.json()["usage"]["prompt_tokens"] - plain["usage"]["prompt_tokens"]
    assert extra == 200  # 513 px wide: two tiles across, one down


async def test_a_text_model_refuses_images_as_each_server_does(start_lab: StartLab) -> None:
    _, ollama_like = await start_lab()
    refused = await ollama_like.post("/api/chat", json=ollama_chat(png(64, 64)))
    assert refused.status_code == 500
    assert refused.json() == {"error": "this model is missing data required for image input"}
    shown = (await ollama_like.post("/api/show", json={"model": "tachy-lab"})).json()
    assert "vision" not in shown["capabilities"]

    vllm = await ollama_like.post("/v1/chat/completions", json=openai_chat(png(64, 64)))
    assert vllm.status_code == 400
    assert "is not a multimodal model" in vllm.json()["error"]["message"]

    _, llamacpp = await start_lab(server="llamacpp")
    said = await llamacpp.post("/v1/chat/completions", json=openai_chat(png(64, 64)))
    assert said.status_code == 400
    assert said.json()["error"]["message"].startswith("image input is not supported")
    assert (await llamacpp.get("/props")).json()["modalities"]["vision"] is False


async def test_llamacpp_props_say_a_vision_model_sees(start_lab: StartLab) -> None:
    _, client = await start_lab(server="llamacpp", **VISION)
    assert (await client.get("/props")).json()["modalities"]["vision"] is True
    answer = await client.post("/v1/chat/completions", json=openai_chat(png(100, 100)))
    assert answer.status_code == 200


async def test_what_is_not_an_image_is_a_400(start_lab: StartLab) -> None:
    _, client = await start_lab(**VISION)
    body = ollama_chat(b"not an image at all")
    assert (await client.post("/api/chat", json=body)).status_code == 400
    broken = json.loads(json.dumps(openai_chat(png(8, 8))))
    broken["messages"][0]["content"][1]["image_url"]["url"] = "http://example.com/a.png"
    answer = await client.post("/v1/chat/completions", json=broken)
    assert answer.status_code == 400
    assert "data URL" in answer.json()["error"]["message"]


async def test_each_model_of_a_scenario_has_its_own_eyes(start_lab: StartLab) -> None:
    models = {"seer": {"vision": True}, "reader": {}}
    _, client = await start_lab(models=models)
    assert (await client.post("/api/chat", json=ollama_chat(png(8, 8), "seer"))).status_code == 200
    refused = await client.post("/api/chat", json=ollama_chat(png(8, 8), "reader"))
    assert refused.status_code == 500
