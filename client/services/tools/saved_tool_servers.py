"""The MCP servers the user saved, and which of them each conversation uses.

Kept in the settings store without secrets: a stdio server's command, arguments and the
names of its environment variables; an HTTP server's address and its headers' names. The
values of both (tokens, API keys) are kept only in the keyring, one entry per server
(account "mcp-server:<name>", a JSON object), read off the event loop.
"""

from __future__ import annotations

import asyncio
import json
import logging
from dataclasses import replace

from client.services.tools.server_errors import SettingsProblem
from client.services.tools.server_settings import (
    NAME_TAKEN,
    HttpServer,
    StdioServer,
    ToolServerSettings,
    checked,
)
from client.store.settings import Settings

log = logging.getLogger(__name__)
SERVERS_KEY = "tool_servers"
CHOSEN_KEY = "tool_servers_by_conversation"  # {conversation id: [server names]}
SECRET_PREFIX = "mcp-server:"


class SavedToolServers:
    def __init__(self, settings: Settings | None) -> None:
        self._settings = settings
        self._memory: dict[str, object] = {}  # without a store (tests, a broken database)

    # --- the servers ------------------------------------------------------------------
    def servers(self) -> list[ToolServerSettings]:
        """The saved servers by name; their env and header values are "" here (they
        stay in the keyring until `with_secrets`)."""
        servers = [server for row in self._rows() if (server := _from_row(row)) is not None]
        return sorted(servers, key=lambda server: server.name.casefold())

    def get(self, name: str) -> ToolServerSettings | None:
        return next((server for server in self.servers() if server.name == name), None)

    async def save(self, server: ToolServerSettings, old_name: str | None = None) -> None:
        """Add a server or change one (`old_name`: the one it replaces, maybe renamed).
        SettingsProblem (a ValueError) for bad settings or a name already taken; the keyring's
        SecretsUnavailable when it refuses the values."""
        server = checked(server)
        if server.name != old_name and self.get(server.name) is not None:
            raise SettingsProblem(NAME_TAKEN, name=server.name)
        await asyncio.to_thread(_write_secrets, server)
        others = [s for s in self.servers() if s.name not in (old_name, server.name)]
        self._set(SERVERS_KEY, [_to_row(s) for s in [*others, server]])
        if old_name is not None and old_name != server.name:
            await asyncio.to_thread(_delete_secrets, old_name)
            self._rename_choices(old_name, server.name)

    async def remove(self, name: str) -> None:
        self._set(SERVERS_KEY, [_to_row(s) for s in self.servers() if s.name != name])
        self._rename_choices(name, None)
        await asyncio.to_thread(_delete_secrets, name)

    async def with_secrets(self, server: ToolServerSettings) -> ToolServerSettings:
        """The server with its env and header values from the keyring (off the loop)."""
        return await asyncio.to_thread(secrets_filled, server)

    # --- per conversation -------------------------------------------------------------
    def enabled_for(self, conversation_id: int | None) -> list[str]:
        """The servers a conversation uses: its own choice, else those on by default."""
        servers = self.servers()
        chosen = self._choices().get(str(conversation_id))
        if chosen is not None:
            return [server.name for server in servers if server.name in chosen]
        return [server.name for server in servers if server.on_by_default]

    def set_enabled_for(self, conversation_id: int, name: str, on: bool) -> None:
        now = set(self.enabled_for(conversation_id))
        now = now | {name} if on else now - {name}
        choices = self._choices()
        choices[str(conversation_id)] = sorted(now)
        self._set(CHOSEN_KEY, choices)

    def _rename_choices(self, old: str, new: str | None) -> None:
        choices = self._choices()
        for key, names in choices.items():
            if old in names:
                choices[key] = sorted({n for n in names if n != old} | ({new} if new else set()))
        self._set(CHOSEN_KEY, choices)

    # --- storage ----------------------------------------------------------------------
    def _rows(self) -> list[dict[str, object]]:
        rows = self._read(SERVERS_KEY)
        return [row for row in rows if isinstance(row, dict)] if isinstance(rows, list) else []

    def _choices(self) -> dict[str, list[str]]:
        value = self._read(CHOSEN_KEY)
        if not isinstance(value, dict):
            return {}
        return {
            str(key): [str(name) for name in names]
            for key, names in value.items()
            if isinstance(names, list)
        }

    def _read(self, key: str) -> object:
        if self._settings is None:
            return self._memory.get(key)
        return self._settings.get(key)

    def _set(self, key: str, value: object) -> None:
        if self._settings is not None:
            self._settings.set(key, value)
        else:
            self._memory[key] = value


def _to_row(server: ToolServerSettings) -> dict[str, object]:
    """What the settings store keeps: no value of an env variable or a header."""
    if isinstance(server, StdioServer):
        return {
            "name": server.name, "kind": "stdio", "command": server.command,
            "args": list(server.args), "env_names": sorted(server.env), "cwd": server.cwd,
            "on_by_default": server.on_by_default,
        }  # fmt: skip
    return {
        "name": server.name, "kind": "http", "url": server.url,
        "header_names": sorted(server.headers), "on_by_default": server.on_by_default,
    }  # fmt: skip


def _from_row(row: dict[str, object]) -> ToolServerSettings | None:
    """A stored row, or None (logged) for one a hand edit or an older Tachy left unreadable."""
    try:
        name, on = str(row["name"]), bool(row.get("on_by_default", True))
        if row.get("kind") == "stdio":
            args = row.get("args", [])
            env = dict.fromkeys(_strings(row.get("env_names", [])), "")
            cwd = str(row.get("cwd", ""))
            return StdioServer(name, str(row["command"]), tuple(_strings(args)), env, cwd, on)
        headers = dict.fromkeys(_strings(row.get("header_names", [])), "")
        return HttpServer(name, str(row["url"]), headers, on)
    except (KeyError, TypeError, ValueError):
        log.warning("a saved tool server cannot be read: %.80r", row)
        return None


def _strings(value: object) -> list[str]:
    if not isinstance(value, list):
        raise TypeError("not a list")
    return [str(item) for item in value]


# --- the keyring (blocking: call these off the loop) ----------------------------------
def _account(name: str) -> str:
    return SECRET_PREFIX + name


def _write_secrets(server: ToolServerSettings) -> None:
    # The keyring is imported here, on a worker thread: it takes a tenth of a second.
    from client.store.secrets import set_api_key

    values = server.env if isinstance(server, StdioServer) else server.headers
    if not values:
        _delete_secrets(server.name)
        return
    field = "env" if isinstance(server, StdioServer) else "headers"
    set_api_key(_account(server.name), json.dumps({field: values}))


def _delete_secrets(name: str) -> None:
    """Forget a server's values; without a keyring there are none to forget."""
    from client.store.secrets import SecretsUnavailable, delete_api_key

    try:
        delete_api_key(_account(name))
    except SecretsUnavailable:
        log.info("no keyring: no values of %s to forget", name)


def secrets_filled(server: ToolServerSettings) -> ToolServerSettings:
    """The server with its values from the keyring (blocking); a name the keyring has no
    value for keeps "". Raises SecretsUnavailable when the keyring refuses."""
    from client.store.secrets import get_api_key

    names = server.env if isinstance(server, StdioServer) else server.headers
    if not names:
        return server
    stored = get_api_key(_account(server.name))
    try:
        found = json.loads(stored) if stored else {}
    except ValueError:
        found = {}
    field = "env" if isinstance(server, StdioServer) else "headers"
    values = found.get(field, {}) if isinstance(found, dict) else {}
    filled = {key: str(values.get(key, "")) for key in names}
    if isinstance(server, StdioServer):
        return replace(server, env=filled)
    return replace(server, headers=filled)
