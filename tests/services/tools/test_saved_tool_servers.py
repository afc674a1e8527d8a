"""Saved MCP servers: settings in SQLite without secrets, values in the keyring, the
choice of servers per conversation."""

from __future__ import annotations

import json

import pytest

from client.services.tools.saved_tool_servers import SavedToolServers
from client.services.tools.server_settings import HttpServer, StdioServer
from client.store.db import Database
from client.store.secrets import SecretsUnavailable
from client.store.settings import Settings
from tests.memory_keyring import MemoryKeyring

GITHUB = StdioServer("github", "docker", ("run", "-i"), {"TOKEN": "ghp_secret"})
REMOTE = HttpServer("remote", "https://example.org/mcp", {"Authorization": "Bearer s3cret"})


async def test_values_go_to_the_keyring_and_never_to_the_database(
    db: Database, memory_keyring: MemoryKeyring
) -> None:
    saved = SavedToolServers(Settings(db))
    await saved.save(GITHUB)
    await saved.save(REMOTE)
    stored = json.dumps(Settings(db).all())
    assert "ghp_secret" not in stored and "s3cret" not in stored
    assert "TOKEN" in stored and "Authorization" in stored  # the names stay visible
    listed = {server.name: server for server in SavedToolServers(Settings(db)).servers()}
    assert listed["github"] == StdioServer("github", "docker", ("run", "-i"), {"TOKEN": ""})
    assert await saved.with_secrets(listed["github"]) == GITHUB
    assert await saved.with_secrets(listed["remote"]) == REMOTE
    assert set(memory_keyring.passwords) == {
        ("tachy", "mcp-server:github"),
        ("tachy", "mcp-server:remote"),
    }


async def test_renaming_moves_the_secrets_and_the_conversations_choice(
    db: Database, memory_keyring: MemoryKeyring
) -> None:
    saved = SavedToolServers(Settings(db))
    await saved.save(GITHUB)
    saved.set_enabled_for(7, "github", True)
    renamed = StdioServer("gh", GITHUB.command, GITHUB.args, GITHUB.env)
    await saved.save(renamed, old_name="github")
    assert [server.name for server in saved.servers()] == ["gh"]
    assert saved.enabled_for(7) == ["gh"]
    assert set(memory_keyring.passwords) == {("tachy", "mcp-server:gh")}


async def test_a_name_taken_is_refused_and_removing_forgets_the_secrets(
    db: Database, memory_keyring: MemoryKeyring
) -> None:
    saved = SavedToolServers(Settings(db))
    await saved.save(GITHUB)
    with pytest.raises(ValueError, match="already called 'github'"):
        await saved.save(StdioServer("github", "other"))
    await saved.remove("github")
    assert saved.servers() == [] and memory_keyring.passwords == {}


async def test_each_conversation_chooses_its_servers_else_those_on_by_default(
    memory_keyring: MemoryKeyring,
) -> None:
    saved = SavedToolServers(None)
    await saved.save(GITHUB)
    await saved.save(HttpServer("off", "http://127.0.0.1:1/mcp", on_by_default=False))
    assert saved.enabled_for(None) == ["github"]
    saved.set_enabled_for(1, "off", True)
    saved.set_enabled_for(2, "github", False)
    assert (saved.enabled_for(1), saved.enabled_for(2), saved.enabled_for(3)) == (
        ["github", "off"],
        [],
        ["github"],
    )


@pytest.mark.parametrize(
    ("server", "sentence"),
    [
        (StdioServer(" ", "x"), "A tool server needs a name of 1 to 64 characters."),
        (StdioServer("a", " "), "A tool server started by Tachy needs a command."),
        (StdioServer("a", "x", env={"A B": "1"}), "'A B' is not a name an environment"),
        (HttpServer("a", "localhost:3000"), "'localhost:3000' is not an http:// or https://"),
        (HttpServer("a", "http://h/", {"Bad Header": "v"}), "'Bad Header' is not a name an HTTP"),
    ],
)
async def test_settings_that_cannot_work_are_refused_with_a_sentence(
    server: StdioServer | HttpServer, sentence: str, memory_keyring: MemoryKeyring
) -> None:
    with pytest.raises(ValueError, match=sentence.replace("(", r"\(")):
        await SavedToolServers(None).save(server)


async def test_without_a_keyring_a_server_without_values_is_still_saved() -> None:
    import keyring
    from keyring.backends.fail import Keyring as NoKeyring

    previous = keyring.get_keyring()
    keyring.set_keyring(NoKeyring())
    try:
        saved = SavedToolServers(None)
        await saved.save(StdioServer("plain", "uvx", ("tool",)))
        assert [server.name for server in saved.servers()] == ["plain"]
        with pytest.raises(SecretsUnavailable):
            await saved.save(GITHUB)  # its token has nowhere to go: refused, not lost
        await saved.remove("plain")
        assert saved.servers() == []
    finally:
        keyring.set_keyring(previous)
