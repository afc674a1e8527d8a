"""Preparing an attached image for the wire, off the GUI thread.

A vision encoder works at a fixed input size (336 to 1,024 px a side), so a 12-megapixel
photo sent whole costs upload, decoding and encoding time for nothing. `prepare_image`
decodes the file with Pillow (PNG, JPEG, WebP; a GIF's first frame), turns it upright
(a phone's EXIF orientation), downscales it so its longest side is at most the model's
input size (1,024 px unless the server says), and re-encodes it: JPEG for photos, PNG
for screenshots and images with transparency. The original bytes are kept with it.

Anything that is not such an image gets one clear sentence (`ImageProblem`), and the
message it was attached to is left as it was. Call `prepare_file` / `prepare_bytes`
from the event loop: the work runs in a worker thread.
"""

from __future__ import annotations

import asyncio
import io
import time
from dataclasses import dataclass
from pathlib import Path

from PIL import Image, ImageOps, UnidentifiedImageError

from client.core.images import Attachment, ImagePart

DEFAULT_LONGEST_SIDE = 1024
MAX_FILE_BYTES = 40 * 1024 * 1024  # a 12-megapixel photo is 4-8 MB; a PNG of one 30 MB
MAX_PIXELS = 100_000_000  # Pillow's own bomb check stops at 179 million
JPEG_QUALITY = 85
FORMATS = {"PNG": "image/png", "JPEG": "image/jpeg", "WEBP": "image/webp", "GIF": "image/gif"}
# Sent as they are when small enough; a GIF is always sent as its first frame in PNG.
SENT_AS_IS = {"PNG", "JPEG", "WEBP"}


class ImageProblem(ValueError):
    """An attachment that cannot be sent; str() is one sentence for the user."""


@dataclass(frozen=True, slots=True)
class Preparation:
    longest_side: int = DEFAULT_LONGEST_SIDE  # the model's input size, when told
    downscale: bool = True  # False: the image goes as it is (a benchmark's baseline)


async def prepare_file(path: Path, how: Preparation = Preparation()) -> Attachment:
    """Read and prepare an image file in a worker thread."""
    return await asyncio.to_thread(_prepare_path, path, how)


async def prepare_bytes(
    data: bytes, name: str = "", how: Preparation = Preparation()
) -> Attachment:
    """Prepare image bytes (pasted, dropped) in a worker thread."""
    return await asyncio.to_thread(prepare_image, data, name, how)


def _prepare_path(path: Path, how: Preparation) -> Attachment:
    try:
        size = path.stat().st_size
        if size > MAX_FILE_BYTES:
            raise ImageProblem(_too_big(path.name, size))
        data = path.read_bytes()
    except OSError as error:
        reason = error.strerror or type(error).__name__
        raise ImageProblem(f"“{path.name}” could not be read ({reason.lower()}).") from error
    return prepare_image(data, path.name, how)


def prepare_image(data: bytes, name: str = "", how: Preparation = Preparation()) -> Attachment:
    """The image as it will be sent (downscaled, re-encoded) beside the original."""
    started = time.perf_counter()
    label = f"“{name}”" if name else "The pasted image"
    if len(data) > MAX_FILE_BYTES:
        raise ImageProblem(_too_big(name, len(data)))
    image, kind = _open(data, label)
    width, height = image.size
    sent = _sent_part(data, image, kind, how, label)
    return Attachment(
        sent=sent,
        original=data,
        original_mime=FORMATS[kind],
        original_width=width,
        original_height=height,
        name=name,
        prepare_ms=(time.perf_counter() - started) * 1000.0,
    )


def _open(data: bytes, label: str) -> tuple[Image.Image, str]:
    try:
        image = Image.open(io.BytesIO(data))
    except UnidentifiedImageError:
        raise ImageProblem(f"{label} is not an image Tachy can read.") from None
    except Image.DecompressionBombError:
        raise ImageProblem(f"{label} has too many pixels to send.") from None
    kind = image.format or ""
    if kind not in FORMATS:
        raise ImageProblem(f"{label} is a {kind or 'kind of'} image; send PNG, JPEG, WebP or GIF.")
    if image.width * image.height > MAX_PIXELS:
        raise ImageProblem(f"{label} has too many pixels to send ({_megapixels(image)}).")
    return image, kind


def _sent_part(
    data: bytes, image: Image.Image, kind: str, how: Preparation, label: str
) -> ImagePart:
    side = max(image.size)
    small = side <= how.longest_side
    upright = _orientation(image) in (None, 1)
    try:
        if kind in SENT_AS_IS and upright and (small or not how.downscale):
            image.load()  # decodes: a damaged file is said now, not by the server
            return ImagePart(data, FORMATS[kind], image.width, image.height)
        image.seek(0)  # a GIF's (or an animated WebP's) first frame
        if how.downscale and not small:
            image.draft("RGB", _draft_size(image, how.longest_side))  # JPEG: decode smaller
        image.load()
        frame = ImageOps.exif_transpose(image) or image
        if how.downscale and max(frame.size) > how.longest_side:
            frame = frame.copy()
            frame.thumbnail(
                (how.longest_side, how.longest_side), Image.Resampling.LANCZOS, reducing_gap=2.0
            )
        return _encode(frame, kind)
    except (OSError, ValueError, SyntaxError) as error:
        raise ImageProblem(f"{label} could not be read: the file is damaged.") from error


def _encode(frame: Image.Image, kind: str) -> ImagePart:
    out = io.BytesIO()
    transparent = frame.mode in ("RGBA", "LA", "PA") or "transparency" in frame.info
    if kind in ("JPEG", "WEBP") and not transparent:  # photos
        frame.convert("RGB").save(out, "JPEG", quality=JPEG_QUALITY, optimize=True)
        mime = "image/jpeg"
    else:  # screenshots, drawings, transparency: lossless keeps text sharp
        mode = "RGBA" if transparent else "RGB"
        frame.convert(mode).save(out, "PNG", optimize=False, compress_level=6)
        mime = "image/png"
    return ImagePart(out.getvalue(), mime, frame.width, frame.height)


def _draft_size(image: Image.Image, longest_side: int) -> tuple[int, int]:
    scale = longest_side / max(image.size)
    return (max(1, int(image.width * scale)), max(1, int(image.height * scale)))


def _orientation(image: Image.Image) -> int | None:
    try:
        value = image.getexif().get(0x0112)  # Orientation
    except (OSError, ValueError, SyntaxError):
        return None
    return int(value) if isinstance(value, int) else None


def _megapixels(image: Image.Image) -> str:
    return f"{image.width * image.height / 1e6:.0f} megapixels"


def _too_big(name: str, size: int) -> str:
    label = f"“{name}”" if name else "The pasted image"
    limit = MAX_FILE_BYTES // (1024 * 1024)
    return f"{label} is too big to send ({size / (1024 * 1024):.0f} MB; the limit is {limit} MB)."
