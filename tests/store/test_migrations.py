"""Schema 3: messages_with_metrics; schema 4: an answer's cascade route; opening a file
written by schema 2."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from client.core.metrics import RequestMetrics
from client.store.conversations.history import HistoryStore
from client.store.db import MIGRATIONS, Database, migrate
from client.store.metrics_store import MetricsStore

VIEW_METRICS = "ttft_ms, tpot_ms, tokens_per_s, e2el_ms, output_tokens, request_count"


def schema_2_file(path: Path) -> None:
    """A history as Tachy with schema 2 left it: a question, an answer continued once
    (two requests), an answer whose request row is unlinked."""
    conn = sqlite3.connect(path, isolation_level=None)
    assert migrate(conn, MIGRATIONS[:2]) == 2
    conn.executescript(
        """
        INSERT INTO conversations (id, title, created_at, updated_at, active_leaf_id)
            VALUES (1, 'old', 1, 2, 2);
        INSERT INTO messages (id, conversation_id, parent_id, role, content, created_at)
            VALUES (1, 1, NULL, 'user', 'q', 1), (2, 1, 1, 'assistant', 'a', 2);
        INSERT INTO request_metrics (time, message_id, ttft_ms, tpot_ms, tokens_per_s,
                                     e2el_ms, output_tokens)
            VALUES (10, 2, 100, 20, 50, 900, 40), (20, 2, 80, 10, 100, 500, 45),
                   (30, NULL, 1, 1, 1, 1, 1);
        """
    )
    conn.close()


def test_a_schema_2_history_opens_migrated_with_its_data(data_dir: Path) -> None:
    data_dir.mkdir(parents=True)
    schema_2_file(data_dir / "tachy.sqlite3")
    with Database() as db:
        assert db.version == len(MIGRATIONS) == 8
        assert db.query("PRAGMA user_version")[0][0] == 8
        history = HistoryStore(db)
        assert [m.content for m in history.active_path(1)] == ["q", "a"]
        assert [c.title for c in history.list_conversations("q")] == ["old"]  # index kept
        rows = db.query(f"SELECT id, {VIEW_METRICS} FROM messages_with_metrics ORDER BY id")
        # The question has no request; the answer shows its latest request (a Continue).
        assert [tuple(r) for r in rows] == [
            (1, None, None, None, None, None, 0),
            (2, 80.0, 10.0, 100.0, 500.0, 45, 2),
        ]


def test_the_view_has_every_message_column_and_follows_new_records(
    history: HistoryStore, metrics_store: MetricsStore
) -> None:
    db = history.db
    message_columns = [r[1] for r in db.query("PRAGMA table_info(messages)")]
    view_columns = [r[1] for r in db.query("PRAGMA table_info(messages_with_metrics)")]
    assert view_columns[: len(message_columns)] == message_columns
    assert {"conversation_id", "role", "content", "state", "ttft_ms", "e2el_ms"} <= set(
        view_columns
    )
    chat = history.create_conversation()
    question = history.add_message(chat.id, "user", "q")
    answer = history.add_message(chat.id, "assistant", "a", parent_id=question.id)
    first = metrics_store.record(
        RequestMetrics(ttft_ms=50.0, output_tokens=3), server="s", model="m",
        outcome="stopped", message_id=answer.id, at=100.0,
    )  # fmt: skip
    second = metrics_store.record(
        RequestMetrics(ttft_ms=70.0, output_tokens=9), server="s", model="m",
        outcome="complete", message_id=answer.id, at=200.0,
    )  # fmt: skip
    metrics_store.set_paint_ms(second, 4.5)
    [row] = db.query(
        "SELECT state, ttft_ms, output_tokens, paint_ms, metrics_id, request_count "
        "FROM messages_with_metrics WHERE id = ?",
        (answer.id,),
    )
    assert tuple(row) == ("complete", 70.0, 9, 4.5, second, 2)
    assert first != second


def test_a_rerun_of_the_migrations_changes_nothing(data_dir: Path) -> None:
    data_dir.mkdir(parents=True)
    schema_2_file(data_dir / "tachy.sqlite3")
    for _ in range(2):
        with Database() as db:
            assert db.version == len(MIGRATIONS)
            assert db.query("SELECT count(*) FROM messages_with_metrics")[0][0] == 2


def test_schema_4_keeps_an_answers_route_and_older_answers_have_none(data_dir: Path) -> None:
    data_dir.mkdir(parents=True)
    schema_2_file(data_dir / "tachy.sqlite3")
    with Database() as db:
        history = HistoryStore(db)
        old = history.active_path(1)
        assert [m.route for m in old] == [None, None]  # written before routes were kept
        answer = history.add_message(
            1, "assistant", "b", parent_id=1, model="strong:7b", route="strong"
        )
        assert history.get_message(answer.id).route == "strong"  # type: ignore[union-attr]
        [row] = db.query("SELECT route FROM messages_with_metrics WHERE id = ?", (answer.id,))
        assert row[0] == "strong"
