"""The cached active path must always equal what a fresh read of the database gives."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from client.store.conversations.history import (
    CACHED_PATHS,
    HistoryStore,
    MessageState,
    StoredMessage,
)
from client.store.db import Database


def fresh_path(db: Database, conversation_id: int) -> list[StoredMessage]:
    """What a new store (empty cache) reads for this conversation."""
    return HistoryStore(db, recover=False).active_path(conversation_id)


def chat_of(history: HistoryStore, turns: int) -> tuple[int, list[StoredMessage]]:
    chat = history.create_conversation()
    parent = None
    messages = []
    for n in range(turns):
        role = "user" if n % 2 == 0 else "assistant"
        message = history.add_message(chat.id, role, f"m{n}", parent_id=parent)
        messages.append(message)
        parent = message.id
    return chat.id, messages


def test_a_send_extends_the_cached_path_without_rereading(
    history: HistoryStore, db: Database
) -> None:
    chat_id, messages = chat_of(history, 4)
    assert history.active_path(chat_id) == messages
    question = history.add_message(chat_id, "user", "next", parent_id=messages[-1].id)
    answer = history.add_message(chat_id, "assistant", parent_id=question.id, state="streaming")
    history.append_text(answer.id, "Hel", thinking="t")
    history.append_text(answer.id, "lo")
    history.set_state(answer.id, MessageState.STOPPED, "stopped here")
    cached = history._paths[chat_id]
    path = history.active_path(chat_id)
    assert history._paths[chat_id] is cached  # patched, not rebuilt
    assert path == fresh_path(db, chat_id)
    assert (path[-1].content, path[-1].thinking, path[-1].state) == ("Hello", "t", "stopped")
    assert path[-1].error_message == "stopped here"


def test_the_returned_list_is_the_callers(history: HistoryStore) -> None:
    chat_id, messages = chat_of(history, 3)
    history.active_path(chat_id).clear()
    assert history.active_path(chat_id) == messages


def test_a_branch_and_a_switch_rebuild_the_path(history: HistoryStore, db: Database) -> None:
    chat_id, messages = chat_of(history, 4)
    history.active_path(chat_id)
    again = history.add_message(chat_id, "assistant", "again", parent_id=messages[2].id)
    assert history.active_path(chat_id) == [*messages[:3], again] == fresh_path(db, chat_id)
    history.set_active(messages[3].id)
    assert history.active_path(chat_id) == messages == fresh_path(db, chat_id)


def test_a_rolled_back_write_is_not_kept_in_the_cache(history: HistoryStore) -> None:
    chat_id, messages = chat_of(history, 2)
    history.active_path(chat_id)
    with pytest.raises(RuntimeError), history.db.transaction():
        history.add_message(chat_id, "user", "lost", parent_id=messages[-1].id)
        history.append_text(messages[-1].id, " lost too")
        raise RuntimeError("the send failed")
    assert history.active_path(chat_id) == messages


def test_writes_outside_the_store_are_seen(
    history: HistoryStore, db: Database, data_dir: Path
) -> None:
    chat_id, messages = chat_of(history, 2)
    history.active_path(chat_id)
    db.execute("UPDATE messages SET content = 'by hand' WHERE id = ?", (messages[0].id,))
    assert history.active_path(chat_id)[0].content == "by hand"
    with Database() as other:  # another connection (another process, the CLI)
        HistoryStore(other, recover=False).append_text(messages[1].id, "!")
    assert history.active_path(chat_id)[1].content == "m1!"


def test_a_write_in_one_chat_keeps_the_other_chats_cached(history: HistoryStore) -> None:
    one, one_messages = chat_of(history, 2)
    two, _ = chat_of(history, 2)
    history.active_path(one)
    history.active_path(two)
    cached = history._paths[one]
    history.append_text(history.active_path(two)[-1].id, " more")
    assert history._paths[one] is cached and history.active_path(one) == one_messages


def test_only_a_few_paths_are_kept(history: HistoryStore) -> None:
    chats = [chat_of(history, 2)[0] for _ in range(CACHED_PATHS + 2)]
    for chat_id in chats:
        history.active_path(chat_id)
    assert list(history._paths) == chats[-CACHED_PATHS:]


def test_a_chat_without_a_recorded_leaf_is_read_from_its_root(
    history: HistoryStore, db: Database
) -> None:
    chat_id, messages = chat_of(history, 3)
    db.execute("UPDATE conversations SET active_leaf_id = NULL WHERE id = ?", (chat_id,))
    assert history.active_path(chat_id) == messages


def test_versions_numbers_every_branched_message(history: HistoryStore) -> None:
    chat_id, messages = chat_of(history, 4)
    second = history.add_message(chat_id, "assistant", "v2", parent_id=messages[0].id)
    third = history.add_message(chat_id, "assistant", "v3", parent_id=messages[0].id)
    root_two = history.add_message(chat_id, "user", "other root")
    other_chat, _ = chat_of(history, 2)  # its root does not count as a version here
    assert history.versions(chat_id) == {
        messages[1].id: (1, 3),
        second.id: (2, 3),
        third.id: (3, 3),
        messages[0].id: (1, 2),
        root_two.id: (2, 2),
    }
    assert history.versions(other_chat) == {}
    for message_id, (position, count) in history.versions(chat_id).items():
        ids = [m.id for m in history.siblings(message_id)]
        assert (ids.index(message_id) + 1, len(ids)) == (position, count)


OPERATIONS = st.lists(
    st.tuples(st.sampled_from(["add", "branch", "switch", "append", "state", "rollback"]),
              st.integers(0, 1000)),
    min_size=1,
    max_size=30,
)  # fmt: skip


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(OPERATIONS)
def test_the_cache_matches_a_fresh_read_after_any_operations(
    history: HistoryStore, db: Database, operations: list[tuple[str, int]]
) -> None:
    chat = history.create_conversation()
    ids: list[int] = []
    for operation, pick in operations:
        chosen = ids[pick % len(ids)] if ids else None
        if operation == "add" or chosen is None:
            ids.append(history.add_message(chat.id, "user", str(pick), parent_id=ids[-1]
                                           if ids else None).id)  # fmt: skip
        elif operation == "branch":
            parent = history.get_message(chosen)
            assert parent is not None
            ids.append(history.add_message(chat.id, "assistant", parent_id=parent.parent_id).id)
        elif operation == "switch":
            history.set_active(chosen)
        elif operation == "append":
            history.append_text(chosen, str(pick))
        elif operation == "state":
            history.set_state(chosen, list(MessageState)[pick % len(MessageState)])
        else:
            with pytest.raises(RuntimeError), db.transaction():
                history.append_text(chosen, "gone")
                raise RuntimeError("rolled back")
        assert history.active_path(chat.id) == fresh_path(db, chat.id)
