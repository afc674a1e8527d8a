"""Images stored with their message (schema 6), kept across reopening, and exported."""

from __future__ import annotations

import base64
import json
import sqlite3
from pathlib import Path

from client.core.images import Attachment, ImagePart
from client.store.conversations.export import export_json, export_markdown
from client.store.conversations.history import HistoryStore
from client.store.conversations.images import ImageStore
from client.store.db import MIGRATIONS, Database, migrate
from client.store.metrics_store import MetricsStore

SENT = ImagePart(b"\x89PNG small", "image/png", 1024, 768)
PHOTO = Attachment(SENT, b"\xff\xd8 the whole photo", "image/jpeg", 4000, 3000, "cat.jpg", 41.5)
AS_IS = Attachment(SENT, SENT.data, "image/png", 1024, 768, "", 2.0)


def test_images_come_back_in_order_with_their_originals(history: HistoryStore) -> None:
    conversation = history.create_conversation("t")
    question = history.add_message(conversation.id, "user", "what is this?")
    images = ImageStore(history.db)
    images.add(question.id, [PHOTO, AS_IS])
    back = images.attachments(question.id)
    assert back == [PHOTO, AS_IS]
    assert back[0].downscaled and not back[1].downscaled
    # Sent as it was: stored once (no copy of the original).
    [row] = history.db.query("SELECT original FROM message_images WHERE position = 1")
    assert row[0] is None
    assert images.sent_images([question.id]) == {question.id: (SENT, SENT)}


def test_a_deleted_message_takes_its_images_with_it(history: HistoryStore) -> None:
    conversation = history.create_conversation("t")
    question = history.add_message(conversation.id, "user", "q")
    ImageStore(history.db).add(question.id, [PHOTO])
    history.purge(conversation.id)
    assert history.db.query("SELECT count(*) FROM message_images")[0][0] == 0


def test_a_schema_5_history_opens_and_takes_images(data_dir: Path) -> None:
    data_dir.mkdir(parents=True)
    conn = sqlite3.connect(data_dir / "tachy.sqlite3", isolation_level=None)
    assert migrate(conn, MIGRATIONS[:5]) == 5
    conn.executescript(
        """
        INSERT INTO conversations (id, title, created_at, updated_at) VALUES (1, 'old', 1, 2);
        INSERT INTO messages (id, conversation_id, role, content, created_at)
            VALUES (1, 1, 'user', 'q', 1);
        """
    )
    conn.close()
    with Database() as db:
        assert db.version == len(MIGRATIONS)
        assert [m.content for m in HistoryStore(db).active_path(1)] == ["q"]
        images = ImageStore(db)
        assert images.attachments(1) == []  # older messages simply have none
        images.add(1, [PHOTO])
    with Database() as db:  # kept across a restart
        assert ImageStore(db).attachments(1) == [PHOTO]


def test_exports_carry_the_images_sent(history: HistoryStore, metrics_store: MetricsStore) -> None:
    conversation = history.create_conversation("A photo")
    question = history.add_message(conversation.id, "user", "what is this?")
    ImageStore(history.db).add(question.id, [PHOTO])
    data = json.loads(export_json(history, metrics_store, conversation.id))
    [image] = data["messages"][0]["images"]
    assert base64.b64decode(image["data"]) == SENT.data
    assert (image["width"], image["height"], image["original_width"]) == (1024, 768, 4000)
    markdown = export_markdown(history, metrics_store, conversation.id)
    assert f"![image 1: cat.jpg, 1024×768]({SENT.data_url()})" in markdown
