"""The images waiting in the composer for the next message, Qt-free: what is offered
(pasted bytes, dropped or chosen files) is prepared off the loop; what cannot be sent
gets its sentence and the rest is kept.

    waiting = WaitingImages()
    problems = await waiting.offer([Offered(path=Path("cat.jpg"))], preparation)
    images = waiting.take()          # sent with the message, the composer emptied
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from client.core.images import Attachment
from client.services.images.preparation import (
    ImageProblem,
    Preparation,
    prepare_bytes,
    prepare_file,
)

MAX_IMAGES = 8  # per message; a server with a lower limit says so when it refuses
IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".webp", ".gif")


@dataclass(frozen=True, slots=True)
class Offered:
    """Something the user gave as an image: bytes (pasted) or a file (dropped, chosen)."""

    data: bytes | None = None
    path: Path | None = None
    name: str = ""


class WaitingImages:
    def __init__(self, limit: int = MAX_IMAGES) -> None:
        self.limit = limit
        self.images: list[Attachment] = []

    async def offer(self, offered: list[Offered], how: Preparation) -> list[str]:
        """Prepare and keep what was offered, up to the limit; one sentence per problem."""
        problems: list[str] = []
        for item in offered:
            if len(self.images) >= self.limit:
                problems.append(
                    f"A message takes up to {self.limit} images; the rest were left out."
                )
                break
            try:
                self.images.append(await _prepare(item, how))
            except ImageProblem as problem:
                problems.append(str(problem))
        return problems

    def remove(self, index: int) -> None:
        del self.images[index]

    def take(self) -> list[Attachment]:
        taken, self.images = self.images, []
        return taken


def looks_like_image(path: Path) -> bool:
    """A file a drop may carry as an image (its bytes decide when it is prepared)."""
    return path.suffix.lower() in IMAGE_SUFFIXES


async def _prepare(item: Offered, how: Preparation) -> Attachment:
    if item.path is not None:
        return await prepare_file(item.path, how)
    return await prepare_bytes(item.data or b"", item.name, how)
