"""Images sent with a message to a model that can see (pure data, no decoding here).

An `ImagePart` is the image as it goes on the wire: its encoded bytes (PNG, JPEG, WebP
or GIF), their media type and its size in pixels. An `Attachment` is what the user
attached: the image as sent (downscaled and re-encoded by client/services/images) and
the original file, kept locally beside it.
"""

from __future__ import annotations

import base64
import math
from dataclasses import dataclass

# What an image costs in prompt tokens before the server has said: a vision encoder
# cuts it into tiles (the lab's rule, client/lab/endpoints/vision.py: 256 tokens per 512 px
# tile, so a 1,024 x 768 image is 2 x 2 tiles, 1,024 tokens).
TILE_PX = 512
TOKENS_PER_TILE = 256


@dataclass(frozen=True, slots=True)
class ImagePart:
    data: bytes
    mime: str  # image/png, image/jpeg, image/webp, image/gif
    width: int
    height: int

    @property
    def pixels(self) -> int:
        return self.width * self.height

    def base64(self) -> str:
        return base64.b64encode(self.data).decode("ascii")

    def data_url(self) -> str:
        return f"data:{self.mime};base64,{self.base64()}"

    def __repr__(self) -> str:  # not the bytes: a log line stays one line
        return f"ImagePart({self.mime}, {self.width}x{self.height}, {len(self.data)} bytes)"


@dataclass(frozen=True, slots=True)
class Attachment:
    """An image as attached: what is sent, the original kept, and what preparing cost."""

    sent: ImagePart
    original: bytes  # the file as it was (kept locally, never sent when downscaled)
    original_mime: str
    original_width: int
    original_height: int
    name: str = ""  # the file's name, or "" for a pasted image
    prepare_ms: float = 0.0  # decoding, downscaling and re-encoding, in this process

    @property
    def downscaled(self) -> bool:
        return self.sent.data is not self.original and self.sent.data != self.original

    def __repr__(self) -> str:
        return (
            f"Attachment({self.name or 'pasted'}, sent {self.sent!r}, "
            f"original {len(self.original)} bytes)"
        )


def image_cost(images: tuple[ImagePart, ...] | list[ImagePart]) -> tuple[int, int]:
    """The bytes and pixels of the images sent, together."""
    return sum(len(i.data) for i in images), sum(i.pixels for i in images)


def estimate_image_tokens(image: ImagePart, tokens_per_tile: float = TOKENS_PER_TILE) -> int:
    """The prompt tokens an image becomes: `tokens_per_tile` per 512 px tile it covers."""
    tiles = math.ceil(image.width / TILE_PX) * math.ceil(image.height / TILE_PX)
    return math.ceil(max(tiles, 1) * tokens_per_tile)


def image_tiles(images: tuple[ImagePart, ...] | list[ImagePart]) -> int:
    """The 512 px tiles the images cover, together."""
    return sum(estimate_image_tokens(i, 1) for i in images)


# The most a common vision encoder's token stands for: 64 px a side (SmolVLM: a 512 px
# tile is 8 x 8 tokens; gemma3: 14 px patches pooled 4 x 4, 56 px). An encoder that made
# T tokens of an image so used at most T x 64 x 64 of its pixels.
PX_PER_TOKEN_SIDE = 64


def useful_side(tokens: float, sent: ImagePart) -> int | None:
    """The longest side worth sending to the encoder that made `tokens` of `sent`: past
    it, by `sent`'s shape, more pixels cost bytes and decoding and add no token. None
    when that is not below what was sent (nothing to save)."""
    if tokens <= 0 or sent.pixels <= 0:
        return None
    area = tokens * PX_PER_TOKEN_SIDE * PX_PER_TOKEN_SIDE
    longest, shortest = max(sent.width, sent.height), min(sent.width, sent.height)
    side = math.ceil(math.sqrt(area * longest / max(shortest, 1)))
    return side if side < longest else None
