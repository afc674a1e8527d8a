from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from client.store.conversations.history import INTERRUPTED_BY_EXIT, HistoryStore, MessageState
from client.store.db import Database


def contents(history: HistoryStore, conversation_id: int) -> list[str]:
    return [m.content for m in history.active_path(conversation_id)]


def test_a_conversation_round_trips(history: HistoryStore) -> None:
    chat = history.create_conversation("First", server="http://127.0.0.1:1", model="m")
    question = history.add_message(chat.id, "user", "Hi?")
    answer = history.add_message(
        chat.id,
        "assistant",
        "Hello!",
        parent_id=question.id,
        thinking="greet",
        server="s",
        model="m2",
    )
    assert history.get_message(answer.id) == answer
    assert contents(history, chat.id) == ["Hi?", "Hello!"]
    stored = history.get_conversation(chat.id)
    assert stored is not None and stored.model == "m2" and stored.updated_at > chat.updated_at
    assert history.active_leaf_id(chat.id) == answer.id


def test_rejects_bad_role_and_a_parent_from_another_conversation(history: HistoryStore) -> None:
    one = history.create_conversation()
    two = history.create_conversation()
    message = history.add_message(one.id, "user", "q")
    with pytest.raises(ValueError, match="role"):
        history.add_message(one.id, "robot", "x")
    with pytest.raises(ValueError, match="not in conversation"):
        history.add_message(two.id, "assistant", "x", parent_id=message.id)
    assert contents(history, two.id) == []


def test_streaming_appends_text_and_thinking(history: HistoryStore) -> None:
    chat = history.create_conversation()
    question = history.add_message(chat.id, "user", "q")
    answer = history.add_message(chat.id, "assistant", parent_id=question.id, state="streaming")
    history.append_text(answer.id, "Hel", thinking="hmm ")
    history.append_text(answer.id, "lo ✓", thinking="ok")
    history.append_text(answer.id, "")  # nothing new: no write
    history.set_state(answer.id, MessageState.STOPPED)
    stored = history.get_message(answer.id)
    assert stored is not None
    assert (stored.content, stored.thinking, stored.state) == ("Hello ✓", "hmm ok", "stopped")
    with pytest.raises(KeyError):
        history.append_text(12345, "x")


def test_set_state_keeps_or_replaces_the_error(history: HistoryStore) -> None:
    chat = history.create_conversation()
    message = history.add_message(chat.id, "assistant", "part", state="streaming")
    history.set_state(message.id, "interrupted", "Connection reset")
    history.set_state(message.id, "interrupted")
    stored = history.get_message(message.id)
    assert stored is not None and stored.error_message == "Connection reset"
    history.set_state(message.id, "complete", "")
    stored = history.get_message(message.id)
    assert stored is not None and stored.error_message == ""


def test_set_answerer_names_the_model_that_wrote_an_answer(history: HistoryStore) -> None:
    chat = history.create_conversation()
    question = history.add_message(chat.id, "user", "q")
    answer = history.add_message(
        chat.id, "assistant", parent_id=question.id, server="big", model="7b", route="strong"
    )
    assert [m.model for m in history.active_path(chat.id)] == [None, "7b"]  # cached now
    history.set_answerer(answer.id, "small", "135m", "fast")
    for stored in (history.get_message(answer.id), history.active_path(chat.id)[-1]):
        assert stored is not None
        assert (stored.server, stored.model, stored.route) == ("small", "135m", "fast")
    with pytest.raises(KeyError):
        history.set_answerer(12345, None, "m", None)


def test_outcomes_map_to_stored_states() -> None:
    assert MessageState.for_outcome("complete") is MessageState.COMPLETE
    assert MessageState.for_outcome("stopped") is MessageState.STOPPED
    assert MessageState.for_outcome("interrupted") is MessageState.INTERRUPTED
    for outcome in ("failed", "unreachable", "timed_out"):
        assert MessageState.for_outcome(outcome) is MessageState.FAILED


def test_regenerate_keeps_both_answers_and_switches(history: HistoryStore) -> None:
    chat = history.create_conversation()
    question = history.add_message(chat.id, "user", "q")
    first = history.add_message(chat.id, "assistant", "one", parent_id=question.id)
    second = history.add_message(chat.id, "assistant", "two", parent_id=question.id)
    assert contents(history, chat.id) == ["q", "two"]
    assert [m.id for m in history.siblings(first.id)] == [first.id, second.id]
    assert [m.active for m in history.siblings(first.id)] == [False, True]
    history.set_active(first.id)
    assert contents(history, chat.id) == ["q", "one"]
    assert [m.active for m in history.siblings(second.id)] == [True, False]


def test_editing_an_earlier_question_branches_and_keeps_each_branch(
    history: HistoryStore,
) -> None:
    chat = history.create_conversation()
    q1 = history.add_message(chat.id, "user", "q1")
    a1 = history.add_message(chat.id, "assistant", "a1", parent_id=q1.id)
    q2 = history.add_message(chat.id, "user", "q2", parent_id=a1.id)
    history.add_message(chat.id, "assistant", "a2", parent_id=q2.id)
    edited = history.add_message(chat.id, "user", "q1 edited")  # a second root
    history.add_message(chat.id, "assistant", "b1", parent_id=edited.id)
    assert contents(history, chat.id) == ["q1 edited", "b1"]
    assert [m.content for m in history.siblings(q1.id)] == ["q1", "q1 edited"]
    # Choosing a message deep in the old branch brings its whole path back.
    history.set_active(q2.id)
    assert contents(history, chat.id) == ["q1", "a1", "q2", "a2"]


def test_siblings_of_roots_stay_within_their_conversation(history: HistoryStore) -> None:
    one = history.create_conversation()
    two = history.create_conversation()
    root = history.add_message(one.id, "user", "a")
    history.add_message(two.id, "user", "b")
    assert [m.content for m in history.siblings(root.id)] == ["a"]
    assert history.siblings(999) == []
    with pytest.raises(KeyError):
        history.set_active(999)


def test_soft_delete_restore_and_purge(history: HistoryStore) -> None:
    keep = history.create_conversation("keep")
    gone = history.create_conversation("gone")
    history.add_message(gone.id, "user", "text")
    history.soft_delete(gone.id)
    assert [c.title for c in history.list_conversations()] == ["keep"]
    assert [c.title for c in history.list_conversations(deleted=True)] == ["gone"]
    history.restore(gone.id)
    assert {c.title for c in history.list_conversations()} == {"keep", "gone"}
    history.soft_delete(gone.id)
    history.purge(gone.id)
    assert history.get_conversation(gone.id) is None
    assert history.db.query("SELECT count(*) FROM messages")[0][0] == 0  # cascade
    assert [c.id for c in history.list_conversations(deleted=True)] == []
    with pytest.raises(KeyError):
        history.restore(gone.id)
    assert history.get_conversation(keep.id) is not None


def test_purge_deleted_only_takes_old_deletions(history: HistoryStore, clock) -> None:
    old = history.create_conversation("old")
    history.soft_delete(old.id)
    cutoff = clock.now + 0.0005
    recent = history.create_conversation("recent")
    history.soft_delete(recent.id)
    assert history.purge_deleted(cutoff) == 1
    assert [c.title for c in history.list_conversations(deleted=True)] == ["recent"]


def test_list_is_most_recent_first_and_rename_works(history: HistoryStore) -> None:
    a = history.create_conversation("a")
    b = history.create_conversation("b")
    history.add_message(a.id, "user", "newer activity")
    history.rename(b.id, "b renamed")
    assert [c.title for c in history.list_conversations()] == ["a", "b renamed"]
    assert [c.title for c in history.list_conversations(limit=1)] == ["a"]
    with pytest.raises(KeyError):
        history.rename(404, "x")


@pytest.mark.parametrize("indexed", [True, False], ids=["fts5", "like"])
def test_search_treats_every_character_literally(history: HistoryStore, indexed: bool) -> None:
    history.db.has_search_index = indexed and history.db.has_search_index
    texts = {
        "percent": 'Growth was 100% in "Q3"',
        "underscore": "call snake_case_name() now",
        "quote": "It's the user's \"quoted\" text",
        "backslash": r"C:\path\to\file",
        "plain": "Nothing special, 100 percent and Q3",
    }
    ids = {}
    for title, text in texts.items():
        chat = history.create_conversation(f"t-{title}")
        history.add_message(chat.id, "user", text)
        ids[title] = chat.id

    def found(query: str) -> set[str]:
        return {c.title[2:] for c in history.list_conversations(query)}

    assert found("100%") == {"percent"}
    assert found("%") == {"percent"}
    assert found('"Q3"') == {"percent"}
    assert found("e_c") == {"underscore"}
    assert found("_") == {"underscore"}
    assert found("user's") == {"quote"}
    assert found('"quoted"') == {"quote"}
    assert found("\\path\\") == {"backslash"}
    assert found("QUOTED") == {"quote"}  # case-insensitive
    assert found("special") == {"plain"}
    assert found("Nothing-there") == set()
    assert found("   ") == set(texts)  # blank search lists everything
    assert found("t-perc") == {"percent"}  # titles match too


def test_search_finds_a_message_while_it_streams_and_after(history: HistoryStore) -> None:
    chat = history.create_conversation("x")
    message = history.add_message(chat.id, "assistant", state="streaming")
    history.append_text(message.id, "the aardvark sleeps")
    assert [c.id for c in history.list_conversations("aardvark")] == [chat.id]
    history.set_state(message.id, "complete")
    assert [c.id for c in history.list_conversations("aardvark")] == [chat.id]
    history.set_state(message.id, "streaming")  # Continue appends to the same message
    history.append_text(message.id, " and the zebu runs")
    history.set_state(message.id, "stopped")
    assert [c.id for c in history.list_conversations("zebu")] == [chat.id]
    assert [c.id for c in history.list_conversations("aardvark")] == [chat.id]
    history.purge(chat.id)  # the index entry goes with it
    assert history.list_conversations("aardvark") == []
    count = history.db.query(
        "SELECT count(*) FROM message_search WHERE message_search MATCH ?", ('"aardvark"',)
    )
    assert count[0][0] == 0


def test_search_does_not_list_deleted_conversations(history: HistoryStore) -> None:
    chat = history.create_conversation("secret plans")
    history.soft_delete(chat.id)
    assert history.list_conversations("plans") == []
    assert [c.id for c in history.list_conversations("plans", deleted=True)] == [chat.id]


def test_opening_marks_leftover_streaming_messages_interrupted(db: Database) -> None:
    history = HistoryStore(db)
    chat = history.create_conversation()
    message = history.add_message(chat.id, "assistant", "partial", state="streaming")
    done = history.add_message(chat.id, "assistant", "done")
    reopened = HistoryStore(db)
    assert reopened.recovered == [message.id]
    stored = reopened.get_message(message.id)
    assert stored is not None
    assert (stored.state, stored.content, stored.error_message) == (
        "interrupted",
        "partial",
        INTERRUPTED_BY_EXIT,
    )
    assert reopened.get_message(done.id).state == "complete"  # type: ignore[union-attr]
    assert [c.id for c in reopened.list_conversations("partial")] == [chat.id]
    assert HistoryStore(db).recovered == []


def test_active_leaf_follows_branch_switches(history: HistoryStore) -> None:
    chat = history.create_conversation()
    assert history.active_leaf_id(chat.id) is None
    q1 = history.add_message(chat.id, "user", "q1")
    a1 = history.add_message(chat.id, "assistant", "a1", parent_id=q1.id)
    q2 = history.add_message(chat.id, "user", "q2", parent_id=a1.id)
    a2 = history.add_message(chat.id, "assistant", "a2", parent_id=q2.id)
    other = history.add_message(chat.id, "assistant", "a1 again", parent_id=q1.id)
    assert history.active_leaf_id(chat.id) == other.id
    history.set_active(a1.id)  # back to the first answer: its continuation returns too
    assert history.active_leaf_id(chat.id) == a2.id
    assert contents(history, chat.id) == ["q1", "a1", "q2", "a2"]
    with pytest.raises(KeyError):
        history.add_message(404, "user", "x")


class TreeModel:
    """The expected behaviour, in plain Python: each parent remembers its shown child."""

    def __init__(self) -> None:
        self.parent: dict[int, int | None] = {}
        self.shown: dict[int | None, int] = {}

    def activate(self, node: int) -> None:
        current: int | None = node
        while current is not None:
            self.shown[self.parent[current]] = current
            current = self.parent[current]

    def path(self) -> list[int]:
        path: list[int] = []
        node = self.shown.get(None)
        while node is not None:
            path.append(node)
            node = self.shown.get(node)
        return path


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.lists(st.tuples(st.booleans(), st.integers(0, 50)), min_size=1, max_size=25))
def test_branching_matches_a_simple_model(
    history: HistoryStore, steps: list[tuple[bool, int]]
) -> None:
    chat = history.create_conversation()
    model = TreeModel()
    ids: list[int] = []
    for add, pick in steps:
        if add or not ids:
            parent = None if not ids or pick % 5 == 0 else ids[pick % len(ids)]
            message = history.add_message(chat.id, "user", str(pick), parent_id=parent)
            model.parent[message.id] = parent
            model.activate(message.id)
            ids.append(message.id)
        else:
            chosen = ids[pick % len(ids)]
            history.set_active(chosen)
            model.activate(chosen)
        expected = model.path()
        assert [m.id for m in history.active_path(chat.id)] == expected
        assert history.active_leaf_id(chat.id) == expected[-1]
