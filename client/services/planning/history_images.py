"""The history's images for a model that cannot see them.

A follow-up question after an image message carries that image in its history. A text
model (a cascade's fast text route, or the model the user switched to) would refuse the
whole request for it, so for such a route each history message's images are left out
and a short note stands in their place, so the model knows something was there:

    plain = unseen(ChatMessage("user", "what is this?", (photo,)))
    plain.content   # 'what is this?\\n\\n[an image was attached here]'

A route whose model can see (or is not known not to) gets the images as stored.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from client.core.conversation import ChatMessage

ONE_IMAGE_NOTE = "[an image was attached here]"
IMAGES_NOTE = "[{count} images were attached here]"


def image_note(count: int) -> str:
    return ONE_IMAGE_NOTE if count == 1 else IMAGES_NOTE.format(count=count)


def unseen(message: ChatMessage) -> ChatMessage:
    """The message without its images, a note in their place (as it was otherwise)."""
    if not message.images:
        return message
    note = image_note(len(message.images))
    content = f"{message.content}\n\n{note}" if message.content else note
    return replace(message, content=content, images=())


def all_unseen(messages: Sequence[ChatMessage]) -> list[ChatMessage]:
    return [unseen(m) for m in messages]
