"""The chat page's reads of the stored history, through services (real SQLite)."""

from __future__ import annotations

from pathlib import Path

from client.services.chat.shown_history import ShownHistory
from client.services.storage.stores import open_stores


def test_versions_and_switching_between_them(tmp_path: Path) -> None:
    stores = open_stores(tmp_path / "tachy.sqlite3")
    try:
        history = stores.history
        assert history is not None
        conversation = history.create_conversation("Versions").id
        question = history.add_message(conversation, "user", "Why?").id
        first = history.add_message(conversation, "assistant", "One", parent_id=question).id
        second = history.add_message(conversation, "assistant", "Two", parent_id=question).id
        shown = ShownHistory(history, stores.metrics)
        assert shown.available
        assert shown.versions(second) == [first, second]
        assert [m.content for m in shown.path(conversation)] == ["Why?", "Two"]
        shown.show_version(first)
        assert [m.content for m in shown.path(conversation)] == ["Why?", "One"]
        assert shown.answer_records([first, second]) == {}  # no request stored for them
    finally:
        stores.close()


def test_without_a_history_nothing_is_shown() -> None:
    shown = ShownHistory()
    assert not shown.available
    assert shown.path(1) == [] and shown.versions(1) == [] and shown.answer_records([1]) == {}
    shown.show_version(1)
    shown.set_paint_ms(1, 2.0)  # nowhere to keep it: nothing happens
