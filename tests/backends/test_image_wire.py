"""Images on the wire: Ollama's base64 `images`, OpenAI-compatible `image_url` parts with
data URLs; which models can see; a refusal in plain words."""

from __future__ import annotations

import base64

import pytest

from client.backends import OllamaBackend, OpenAICompatBackend
from client.backends.apis.ollama.backend import chat_body as ollama_body
from client.backends.apis.openai.backend import chat_body as openai_body
from client.backends.decoders import error_from_http, error_from_message
from client.backends.errors import ImagesRefused
from client.backends.vision import vision_support
from client.core.conversation import ChatMessage, ChatRequest
from client.core.images import ImagePart
from client.lab import LabServer, scenario_from_dict

IMAGE = ImagePart(b"\x89PNG\r\n\x1a\n-pixels-", "image/png", 640, 480)
ENCODED = base64.b64encode(IMAGE.data).decode()


def request() -> ChatRequest:
    return ChatRequest(
        "m", [ChatMessage("user", "before"), ChatMessage("user", "what is it?", (IMAGE, IMAGE))]
    )


def test_ollama_sends_base64_images_beside_the_text() -> None:
    messages = ollama_body(request())["messages"]
    assert messages[0] == {"role": "user", "content": "before"}  # no images: no field
    assert messages[1] == {"role": "user", "content": "what is it?", "images": [ENCODED] * 2}


def test_openai_sends_text_then_image_url_parts_with_data_urls() -> None:
    messages = openai_body(request())["messages"]
    assert messages[0] == {"role": "user", "content": "before"}
    url = f"data:image/png;base64,{ENCODED}"
    assert messages[1]["content"] == [
        {"type": "text", "text": "what is it?"},
        {"type": "image_url", "image_url": {"url": url}},
        {"type": "image_url", "image_url": {"url": url}},
    ]


@pytest.mark.parametrize(
    ("status", "body"),
    [
        (500, b'{"error":"this model is missing data required for image input"}'),
        (
            400,
            b'{"error":{"code":400,"message":"image input is not supported - hint: if this '
            b'is unexpected, you may need to provide the mmproj","type":"invalid_request_error"}}',
        ),
        (400, b'{"error":{"message":"smollm2 is not a multimodal model","code":400}}'),
    ],
)
def test_each_servers_refusal_says_the_model_cannot_see(status: int, body: bytes) -> None:
    error = error_from_http(status, body, "application/json", "smollm2")
    assert isinstance(error, ImagesRefused)
    assert not error.retryable
    assert str(error).startswith("This model (smollm2) cannot see images")
    assert "Your question is kept" in str(error)


def test_a_refusal_inside_the_stream_is_the_same_error() -> None:
    error = error_from_message(None, "image input is not supported", "m")
    assert isinstance(error, ImagesRefused)


async def test_which_models_can_see_as_each_server_says() -> None:
    scenario = scenario_from_dict(
        {"models": {"seer": {"vision": True, "image_size": 896}, "reader": {}}}
    )
    lab = LabServer(scenario)
    url = await lab.start()
    ollama, vllm = OllamaBackend(url), OpenAICompatBackend(url)
    try:
        seer = await vision_support(ollama, "seer")
        reader = await vision_support(ollama, "reader")
        unsaid = await vision_support(vllm, "seer")  # vLLM says nothing: tried, then refused
    finally:
        await ollama.aclose()
        await vllm.aclose()
        await lab.stop()
    assert (seer.sees, seer.image_size, seer.source) == (True, 896, "/api/show")
    assert (reader.sees, reader.image_size) == (False, None)
    assert unsaid.sees is None
    lab = LabServer(scenario_from_dict({"server": "llamacpp", "vision": True}))
    llama = OpenAICompatBackend(await lab.start())
    try:
        said = await vision_support(llama, "tachy-lab")
    finally:
        await llama.aclose()
        await lab.stop()
    assert (said.sees, said.source) == (True, "/props")
