"""The images sent with messages (table message_images, schema 6).

Each row is one image of a user message, in the order attached: the bytes sent (after
downscaling) and the original file, kept locally. A database from before schema 6 gets
the empty table on opening, so its messages simply have no images. Calls are short
indexed statements; the session makes them on the database's own thread.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Sequence

from client.core.images import Attachment, ImagePart
from client.store.db import Database

_COLUMNS = (
    "message_id, position, mime, width, height, data, original, original_mime, "
    "original_width, original_height, name, prepare_ms"
)


class ImageStore:
    def __init__(self, db: Database) -> None:
        self.db = db

    def add(self, message_id: int, attachments: Sequence[Attachment]) -> None:
        """Store a message's images (in the caller's transaction, if any)."""
        rows = [_row(message_id, position, a) for position, a in enumerate(attachments)]
        if rows:
            marks = ", ".join("?" * len(_COLUMNS.split(", ")))
            with self.db.transaction() as conn:
                conn.executemany(f"INSERT INTO message_images ({_COLUMNS}) VALUES ({marks})", rows)

    def copy(self, from_message_id: int, to_message_id: int) -> None:
        """The images of one message given to another (an edited question keeps them)."""
        self.add(to_message_id, self.attachments(from_message_id))

    def attachments(self, message_id: int) -> list[Attachment]:
        return self.for_messages([message_id]).get(message_id, [])

    def for_messages(self, message_ids: Iterable[int]) -> dict[int, list[Attachment]]:
        """The images of each message that has any, in the order attached."""
        found: dict[int, list[Attachment]] = {}
        rows = self.db.query_in(
            f"SELECT {_COLUMNS} FROM message_images WHERE message_id IN ({{ids}}) "
            "ORDER BY message_id, position",
            list(message_ids),
        )
        for row in rows:
            found.setdefault(row[0], []).append(_attachment(row))
        return found

    def sent_images(self, message_ids: Iterable[int]) -> dict[int, tuple[ImagePart, ...]]:
        """What each message sends: its images as sent (the originals are not read)."""
        found: dict[int, list[ImagePart]] = {}
        rows = self.db.query_in(
            "SELECT message_id, data, mime, width, height FROM message_images "
            "WHERE message_id IN ({ids}) ORDER BY message_id, position",
            list(message_ids),
        )
        for message_id, data, mime, width, height in rows:
            found.setdefault(message_id, []).append(
                ImagePart(bytes(data), str(mime), int(width), int(height))
            )
        return {message_id: tuple(parts) for message_id, parts in found.items()}


def _row(message_id: int, position: int, a: Attachment) -> tuple[object, ...]:
    sent = a.sent
    original = a.original if a.downscaled else None  # stored once when sent as it was
    return (
        message_id,
        position,
        sent.mime,
        sent.width,
        sent.height,
        sent.data,
        original,
        a.original_mime,
        a.original_width,
        a.original_height,
        a.name,
        a.prepare_ms,
    )


def _attachment(row: sqlite3.Row) -> Attachment:
    (_id, _pos, mime, width, height, data, original, o_mime, o_width, o_height, name, ms) = row
    sent = ImagePart(bytes(data), str(mime), int(width), int(height))
    return Attachment(
        sent,
        bytes(original) if original is not None else sent.data,
        str(o_mime) or sent.mime,
        int(o_width) or sent.width,
        int(o_height) or sent.height,
        str(name),
        float(ms),
    )
