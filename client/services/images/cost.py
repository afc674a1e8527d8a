"""What a request's images cost, written on its timeline and read back by the HUD.

When a request with images is sent, the stage it is in (understanding) gets counts:
how many images, their bytes and pixels as sent, and the client's time preparing the
new ones. They are stored with the request's stages, so the waterfall shows them for
a request reopened from history too: a bar before "request written" as long as the
preparation, named with the bytes, the pixels and the prompt tokens the server counted.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from client.core.images import ImagePart
from client.core.timeline import RequestTimeline

IMAGES = "images"
IMAGE_BYTES = "image_bytes"
IMAGE_PIXELS = "image_pixels"
IMAGE_PREPARE_MS = "image_prepare_ms"
# The waterfall's row for them (templates; the window translates them).
IMAGES_COUNTED = "image ×{images} · {kilobytes} KB · {pixels} px"
IMAGES_WITH_TOKENS = "image ×{images} · {kilobytes} KB · {pixels} px · {tokens} tokens"


def note_images(
    timeline: RequestTimeline, images: Sequence[ImagePart], prepare_ms: float = 0.0
) -> None:
    """Write the images' cost on the stage the request is sent in."""
    if not images or not timeline.stages:
        return
    stage = timeline.stages[-1]
    stage.counts = {
        **(stage.counts or {}),
        IMAGES: len(images),
        IMAGE_BYTES: sum(len(i.data) for i in images),
        IMAGE_PIXELS: sum(i.pixels for i in images),
        IMAGE_PREPARE_MS: round(prepare_ms, 3),
    }


def reads_image(timeline: RequestTimeline | None) -> bool:
    """True while the request being read carries images (the stage line says so)."""
    if timeline is None:
        return False
    return any((s.counts or {}).get(IMAGES) for s in timeline.stages)


def image_figures(
    counts: Mapping[str, object], prompt_tokens: int | None = None
) -> tuple[str, tuple[tuple[str, int], ...], float] | None:
    """The waterfall row's template, figures and the preparation's ms; None without images."""
    images = _int(counts.get(IMAGES))
    if not images:
        return None
    figures = [
        ("images", images),
        ("kilobytes", max(1, round(_int(counts.get(IMAGE_BYTES)) / 1024))),
        ("pixels", _int(counts.get(IMAGE_PIXELS))),
    ]
    label = IMAGES_COUNTED
    if prompt_tokens:
        label = IMAGES_WITH_TOKENS
        figures.append(("tokens", prompt_tokens))
    prepare = counts.get(IMAGE_PREPARE_MS)
    prepare_ms = float(prepare) if isinstance(prepare, int | float) else 0.0
    return label, tuple(figures), prepare_ms


def _int(value: object) -> int:
    return int(value) if isinstance(value, int | float) and not isinstance(value, bool) else 0
