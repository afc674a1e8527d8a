"""Images for the lab's models: read from either API, counted as prompt tokens, refused
by a text model the way each real server refuses them.

A model marked `vision = true` in a scenario accepts images: Ollama's /api/chat
`messages[].images` (base64 strings) and the OpenAI API's `image_url` content parts
(data URLs; the lab loads no URL). Each image becomes prompt tokens by its size,
`tokens_per_tile` for every `tile_px` square tile it covers (a 1,024 x 768 image is
2 x 2 tiles), and costs `encode_ms_per_megapixel` of encoding before the first token,
so a 12-megapixel photo sent whole is slower than the same photo downscaled.

A text model answers as its server would: Ollama 500 "this model is missing data
required for image input", llama-server 400 "image input is not supported - hint: if
this is unexpected, you may need to provide the mmproj", vLLM 400 "... is not a
multimodal model".
"""

from __future__ import annotations

import base64
import binascii
import io
import math
from dataclasses import dataclass
from typing import Any

from PIL import Image, UnidentifiedImageError

from client.lab.scenarios.scenario import Scenario

IMAGE_TOKEN = "<image>"
OLLAMA_REFUSAL = (500, "this model is missing data required for image input")
LLAMACPP_REFUSAL = (
    400,
    "image input is not supported - hint: if this is unexpected, you may need to provide "
    "the mmproj",
)


class BadImage(ValueError):
    """An image field the lab cannot read (its message is the server's words)."""


@dataclass(frozen=True, slots=True)
class SeenImage:
    width: int
    height: int
    bytes: int

    @property
    def megapixels(self) -> float:
        return self.width * self.height / 1e6


def ollama_images(messages: Any) -> list[SeenImage]:
    """The images of /api/chat's messages (each message's `images`: base64 strings)."""
    found: list[SeenImage] = []
    for message in messages if isinstance(messages, list) else []:
        images = message.get("images") if isinstance(message, dict) else None
        for data in images if isinstance(images, list) else []:
            found.append(_read(_b64(str(data))))
    return found


def openai_images(messages: Any) -> list[SeenImage]:
    """The images of chat completions' content parts (`image_url` with a data URL)."""
    found: list[SeenImage] = []
    for message in messages if isinstance(messages, list) else []:
        content = message.get("content") if isinstance(message, dict) else None
        for part in content if isinstance(content, list) else []:
            if isinstance(part, dict) and part.get("type") == "image_url":
                found.append(_read(_data_url(part.get("image_url"))))
    return found


def refusal(scenario: Scenario, api: str) -> tuple[int, str]:
    """The status and words a text model's server answers an image with."""
    if api == "ollama":
        return OLLAMA_REFUSAL
    if scenario.server == "llamacpp":
        return LLAMACPP_REFUSAL
    return 400, f"{scenario.model} is not a multimodal model"


def image_tokens(scenario: Scenario, images: list[SeenImage]) -> tuple[str, ...]:
    """The prompt tokens the images become: `tokens_per_tile` per tile they cover."""
    count = 0
    for image in images:
        tiles = math.ceil(image.width / scenario.tile_px) * math.ceil(
            image.height / scenario.tile_px
        )
        count += tiles * scenario.tokens_per_tile
    return (IMAGE_TOKEN,) * count


def encode_s(scenario: Scenario, images: list[SeenImage]) -> float:
    """The vision encoder's time for these images, before the first token."""
    return sum(i.megapixels for i in images) * scenario.encode_ms_per_megapixel / 1000.0


def _data_url(value: Any) -> bytes:
    url = value.get("url") if isinstance(value, dict) else value
    if not isinstance(url, str) or not url.startswith("data:") or "," not in url:
        raise BadImage("image_url must be a data URL (data:image/...;base64,...)")
    head, data = url.split(",", 1)
    if not head.endswith(";base64"):
        raise BadImage("image_url data URLs must be base64")
    return _b64(data)


def _b64(data: str) -> bytes:
    try:
        return base64.b64decode(data, validate=True)
    except (binascii.Error, ValueError):
        raise BadImage("illegal base64 data in image") from None


def _read(data: bytes) -> SeenImage:
    try:
        with Image.open(io.BytesIO(data)) as image:  # the header only: no decoding
            return SeenImage(image.width, image.height, len(data))
    except (UnidentifiedImageError, OSError, Image.DecompressionBombError):
        raise BadImage("failed to load image: unknown format") from None
