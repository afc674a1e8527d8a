"""The images stored with a conversation's questions, for the window to show again
(read on the database's own thread: `await stored_images(...)`)."""

from __future__ import annotations

from collections.abc import Sequence

from client.core.images import Attachment, ImagePart
from client.store.conversations.history import HistoryStore
from client.store.conversations.images import ImageStore


async def stored_images(
    history: HistoryStore, message_ids: Sequence[int]
) -> dict[int, tuple[ImagePart, ...]]:
    """Each message's images as sent (what the chat shows small)."""
    store = ImageStore(history.db)
    return await history.db.run(store.sent_images, list(message_ids))


async def stored_attachments(history: HistoryStore, message_id: int) -> list[Attachment]:
    """A message's images with their originals (what the full-size view shows)."""
    store = ImageStore(history.db)
    return await history.db.run(store.attachments, message_id)
