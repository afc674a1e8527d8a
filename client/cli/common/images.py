"""`--image PATH` for `tachy chat` and `tachy bench`: images sent with the message.

Each image is prepared as the window prepares it (client/services/images: cut to the
model's input size, re-encoded, off the loop) and its cost is said on stderr. A model
whose server says it cannot see gets a sentence and nothing is sent; one whose server
does not say is tried (its refusal is said in plain words).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from client.backends.base import Backend
from client.backends.errors import TachyError
from client.backends.vision import VisionSupport, vision_support
from client.cli.common.chat_common import say
from client.core.images import Attachment, estimate_image_tokens
from client.services.images.preparation import (
    DEFAULT_LONGEST_SIDE,
    ImageProblem,
    Preparation,
    prepare_file,
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--image",
        action="append",
        type=Path,
        default=[],
        metavar="PATH",
        help="an image to send with the message, for a model that can see (repeatable; "
        "PNG, JPEG, WebP or GIF)",
    )
    parser.add_argument(
        "--no-downscale",
        action="store_true",
        help="send images whole instead of cut to the model's input size (to see the gain)",
    )


async def prepare(
    args: argparse.Namespace, backend: Backend, model: str, support: VisionSupport | None = None
) -> list[Attachment]:
    """The --image files prepared for `model` (`support`: what its server said, when
    asked already); a TachyError (nothing sent) when the model cannot see or a file
    cannot be sent."""
    paths: list[Path] = args.image or []
    if not paths:
        return []
    if support is None:
        support = await vision_support(backend, model)
    if support.sees is False:
        raise TachyError(
            f"{model} cannot see images (the server says it has no vision), so nothing was "
            "sent. Choose a model that can see, or leave out --image."
        )
    how = Preparation(
        longest_side=support.image_size or DEFAULT_LONGEST_SIDE,
        downscale=not args.no_downscale,
    )
    attachments = []
    for path in paths:
        try:
            attachment = await prepare_file(path, how)
        except ImageProblem as problem:
            raise TachyError(f"{problem} Nothing was sent.") from None
        say(cost_line(attachment))
        attachments.append(attachment)
    return attachments


def image_record(attachment: Attachment) -> dict[str, object]:
    """`tachy chat --json`'s image event: the original and what was sent, and what
    preparing it cost in this process."""
    sent = attachment.sent
    return {
        "event": "image",
        "name": attachment.name,
        "original_width": attachment.original_width,
        "original_height": attachment.original_height,
        "original_bytes": len(attachment.original),
        "sent_width": sent.width,
        "sent_height": sent.height,
        "sent_bytes": len(sent.data),
        "sent_pixels": sent.pixels,
        "mime": sent.mime,
        "downscaled": attachment.downscaled,
        "prepare_ms": round(attachment.prepare_ms, 3),
        # The 512 px tile rule's guess: the server's own count is in the usage event.
        "estimated_tokens": estimate_image_tokens(sent),
    }


def cost_line(attachment: Attachment) -> str:
    """image cat.jpg: 4000x3000, 5.1 MB -> sent 1024x768, 182 KB (prepared in 85 ms)"""
    sent = attachment.sent
    original = f"{attachment.original_width}x{attachment.original_height}"
    kept = f"{original}, {size_words(len(attachment.original))}"
    if attachment.downscaled:
        what = f"{kept} -> sent {sent.width}x{sent.height}, {size_words(len(sent.data))}"
    else:
        what = f"{kept}, sent as it is"
    guess = estimate_image_tokens(sent)
    return (
        f"image {attachment.name or 'pasted'}: {what} (prepared in {attachment.prepare_ms:.0f} ms;"
        f" about {guess:,} prompt tokens, an estimate: the server counts them)"
    )


def size_words(count: int) -> str:
    if count >= 1024 * 1024:
        return f"{count / (1024 * 1024):.1f} MB"
    return f"{max(1, round(count / 1024))} KB"
