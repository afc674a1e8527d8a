"""An edited question is a version beside the old one: both branches stay reachable,
and the conversation's title follows its first question as it now stands."""

from __future__ import annotations

import pytest

from client.services.chat.generation import Generation
from client.services.chat.session import ChatSession
from client.services.chat.shown_history import ShownHistory
from client.store.conversations.history import HistoryStore
from client.store.db import Database
from tests.services.scripted_server import MODEL, ScriptedServer, ollama_done, ollama_token

pytestmark = pytest.mark.timeout(20)


async def run(generation: Generation) -> Generation:
    """Run it to its end; the generation, with its stored ids."""
    async for _ in generation:
        pass
    return generation


def session_answering(history: HistoryStore, *answers: str) -> ChatSession:
    server = ScriptedServer()
    for answer in answers:
        server.add(ollama_token(answer), ollama_done())
    return ChatSession(server.backend(), MODEL, history, server_name="scripted")


def title(history: HistoryStore, conversation_id: int) -> str:
    conversation = history.get_conversation(conversation_id)
    assert conversation is not None
    return conversation.title


def shown(history: HistoryStore, conversation_id: int) -> list[str]:
    return [m.content for m in history.active_path(conversation_id)]


async def test_editing_the_first_question_branches_and_retitles(db: Database) -> None:
    history = HistoryStore(db)
    session = session_answering(history, "Cats purr.", "Dogs bark.")
    first = await run(session.generate(None, "Why do cats purr?"))
    conversation = first.conversation_id
    assert title(history, conversation) == "Why do cats purr?"
    edited = await run(session.edit_and_resend(first.user_message_id, "Why do dogs bark?"))
    assert shown(history, conversation) == ["Why do dogs bark?", "Dogs bark."]
    assert title(history, conversation) == "Why do dogs bark?"

    versions = ShownHistory(history)
    question_versions = versions.versions_in(conversation)
    assert question_versions[first.user_message_id] == (1, 2)
    assert question_versions[edited.user_message_id] == (2, 2)
    # Back to the first version: its question, its answer, its title.
    assert versions.show_version(first.user_message_id) is True
    assert shown(history, conversation) == ["Why do cats purr?", "Cats purr."]
    assert title(history, conversation) == "Why do cats purr?"
    assert versions.show_version(edited.user_message_id) is True
    assert shown(history, conversation) == ["Why do dogs bark?", "Dogs bark."]


async def test_a_title_the_user_chose_is_kept(db: Database) -> None:
    history = HistoryStore(db)
    session = session_answering(history, "Cats purr.", "Dogs bark.")
    first = await run(session.generate(None, "Why do cats purr?"))
    history.rename(first.conversation_id, "Pets")
    edited = await run(session.edit_and_resend(first.user_message_id, "Why do dogs bark?"))
    assert title(history, first.conversation_id) == "Pets"
    assert ShownHistory(history).show_version(first.user_message_id) is False
    assert ShownHistory(history).show_version(edited.user_message_id) is False
    assert title(history, first.conversation_id) == "Pets"


async def test_editing_a_later_question_keeps_the_title(db: Database) -> None:
    history = HistoryStore(db)
    session = session_answering(history, "A1", "A2", "B2")
    first = await run(session.generate(None, "Q1"))
    second = await run(session.generate(first.conversation_id, "Q2"))
    await run(session.edit_and_resend(second.user_message_id, "Q2 edited"))
    assert title(history, first.conversation_id) == "Q1"
    assert shown(history, first.conversation_id) == ["Q1", "A1", "Q2 edited", "B2"]
    assert ShownHistory(history).show_version(second.user_message_id) is False
    assert shown(history, first.conversation_id) == ["Q1", "A1", "Q2", "A2"]


async def test_a_question_version_keeps_its_own_answer_versions(db: Database) -> None:
    history = HistoryStore(db)
    session = session_answering(history, "One.", "Two.", "Edited answer.")
    first = await run(session.generate(None, "Q"))
    again = await run(session.regenerate(first.assistant_message_id))
    await run(session.edit_and_resend(first.user_message_id, "Q, edited"))
    versions = ShownHistory(history)
    versions.show_version(first.user_message_id)
    # The old branch as it was left: its second answer shown, the first one beside it.
    assert shown(history, first.conversation_id) == ["Q", "Two."]
    assert versions.versions(again.assistant_message_id) == [
        first.assistant_message_id,
        again.assistant_message_id,
    ]
