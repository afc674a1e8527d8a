"""What the window asks of the stores, through services: saved servers, the last one
used, and the conversation list's edits (real SQLite in a temporary folder)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from client.services.errors import InvalidServerAddress
from client.services.servers.saved_servers import LAST_SERVER, SavedServers
from client.services.servers.servers import ServerChoice
from client.services.storage.conversation_list import ConversationList
from client.services.storage.stores import Stores, open_stores


@pytest.fixture
def stores(tmp_path: Path) -> Iterator[Stores]:
    opened = open_stores(tmp_path / "tachy.sqlite3")
    yield opened
    opened.close()


def test_a_saved_server_is_listed_with_its_keyring_entry(stores: Stores) -> None:
    saved = SavedServers(stores)
    choice = saved.save("Team", "gpu-box:8000/", "openai")
    assert choice == ServerChoice("Team", "http://gpu-box:8000", "openai", api_key_name="Team")
    assert saved.choices() == [choice]


@pytest.mark.parametrize(
    ("url", "reason"),
    [("ftp://h", "not supported"), ("not a url", "space"), ("http://u:secret@h", "password")],
)
def test_a_bad_address_is_not_saved(stores: Stores, url: str, reason: str) -> None:
    saved = SavedServers(stores)
    with pytest.raises(InvalidServerAddress, match=reason) as raised:
        saved.save("Bad", url, "auto")
    assert "secret" not in str(raised.value)
    assert saved.choices() == []


def test_the_last_server_is_remembered_and_garbage_ignored(stores: Stores) -> None:
    saved = SavedServers(stores)
    assert saved.last_used() is None
    saved.remember(ServerChoice("x", "http://h:1", "ollama"))
    assert SavedServers(stores).last_used() == ("http://h:1", "ollama")
    assert stores.settings is not None
    stores.settings.set(LAST_SERVER, "not a pair")
    assert saved.last_used() is None


def test_without_stores_nothing_is_saved_or_listed() -> None:
    saved = SavedServers(None)
    assert saved.choices() == [] and saved.last_used() is None
    assert saved.save("x", "http://h", "auto") is None
    assert not ConversationList(Stores()).available and ConversationList(Stores()).list() == []


def test_delete_gives_the_title_for_undo_and_restore_brings_it_back(stores: Stores) -> None:
    assert stores.history is not None
    conversation = stores.history.create_conversation("Trip plans")
    library = ConversationList(stores)
    library.rename(conversation.id, "  Trip  ")
    library.rename(conversation.id, "   ")  # a blank name changes nothing
    assert [c.title for c in library.list()] == ["Trip"]
    assert library.delete(conversation.id) == "Trip" and library.list() == []
    library.restore(conversation.id)
    assert [c.id for c in library.list("Trip")] == [conversation.id]
    assert '"Trip"' in library.export(conversation.id, "json")
