"""Schema 5: a conversation's summary of its older turns, kept across restarts."""

from __future__ import annotations

from pathlib import Path

from client.store.conversations.history import HistoryStore
from client.store.conversations.summaries import SavedSummary, SummaryStore
from client.store.db import Database
from tests.store.test_migrations import schema_2_file


def test_a_summary_is_kept_replaced_and_goes_with_its_conversation(
    history: HistoryStore,
) -> None:
    store = SummaryStore(history.db)
    chat = history.create_conversation()
    assert store.get(chat.id) is None
    store.save(chat.id, "first", (1, 2))
    store.save(chat.id, "They talked about words.", (1, 2, 3, 4))
    assert store.get(chat.id) == SavedSummary("They talked about words.", (1, 2, 3, 4))
    history.purge(chat.id)
    assert store.get(chat.id) is None


def test_a_damaged_row_reads_as_no_summary(history: HistoryStore) -> None:
    store = SummaryStore(history.db)
    chat = history.create_conversation()
    for damaged in ("not json", '{"a": 1}', '["x"]'):
        history.db.execute(
            "INSERT OR REPLACE INTO history_summaries VALUES (?, 's', ?, 0)", (chat.id, damaged)
        )
        assert store.get(chat.id) is None


def test_an_older_history_gains_the_table_and_keeps_its_messages(data_dir: Path) -> None:
    data_dir.mkdir(parents=True)
    schema_2_file(data_dir / "tachy.sqlite3")
    with Database() as db:
        assert [m.content for m in HistoryStore(db).active_path(1)] == ["q", "a"]
        assert SummaryStore(db).get(1) is None
        SummaryStore(db).save(1, "s", (1,))
    with Database() as db:  # the next start
        assert SummaryStore(db).get(1) == SavedSummary("s", (1,))
