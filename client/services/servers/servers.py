"""Which server a chat goes to, and one long-lived backend per server.

A `ServerChoice` is what the server picker shows: a detected local server, a saved
endpoint, or the embedded local engine. `BackendPool` keeps exactly one backend (and
so one httpx.AsyncClient with its connection pool) per server for the life of the
app, and closes them all on quit. API keys are looked up only when a backend is made,
through a callable (the keyring lives in client.store), never stored here.
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

# Re-exported: the window parses and checks addresses through these.
from client.backends.address import normalize_url as normalize_url
from client.backends.address import server_url as server_url
from client.backends.base import Backend
from client.backends.engine.engine_settings import SPEC_NAMES
from client.backends.engine.engine_settings import EngineSettings as EngineSettings  # for the ui

SPEC_CHOICES = SPEC_NAMES  # speculative decoding the app offers for the local engine

if TYPE_CHECKING:
    from client.backends.engine.local_engine import LocalEngine
    from client.services.servers.engine_idle import ManagedEngine

LOCAL_ENGINE_LABEL = "Local model (SmolLM2-135M)"
# The local engine's address before it has started (its port is chosen at start).
NOT_STARTED_URL = "http://127.0.0.1:0"

BackendFactory = Callable[[str, str, "str | None"], Awaitable[Backend]]
KeyLookup = Callable[[str], "str | None"]


@dataclass(frozen=True, slots=True)
class ServerChoice:
    name: str  # what the picker shows, e.g. "Ollama on this computer"
    url: str
    api: str  # "ollama" or "openai"
    api_key_name: str | None = None  # the keyring entry holding its key, if any
    is_local: bool = False  # the embedded local engine

    @property
    def key(self) -> tuple[str, str]:
        """What makes two choices the same server: its address and protocol."""
        return (normalize_url(self.url), self.api)


def local_engine_choice(url: str = NOT_STARTED_URL) -> ServerChoice:
    """The local engine as the pickers list it: at its address, or not started yet."""
    return ServerChoice(LOCAL_ENGINE_LABEL, url, "openai", is_local=True)


def is_started(choice: ServerChoice) -> bool:
    """False for the local engine listed before its start (choosing it starts it)."""
    return not choice.is_local or normalize_url(choice.url) != NOT_STARTED_URL


def with_local_engine(choices: Iterable[ServerChoice], local: ServerChoice) -> list[ServerChoice]:
    """The choices with the local engine listed once, last: it is always offered."""
    return [*(choice for choice in choices if not choice.is_local), local]


def local_model_name() -> str:
    """The local engine's model as its server names it (before it has started)."""
    from client.backends.engine.local_engine import LOCAL_MODEL_NAME

    return LOCAL_MODEL_NAME


def server_choices(
    saved: Iterable[ServerChoice], detected: Iterable[ServerChoice]
) -> list[ServerChoice]:
    """What the picker lists: saved endpoints first (the user chose them), then
    detected servers not already saved. The same server never appears twice."""
    seen: set[tuple[str, str]] = set()
    choices: list[ServerChoice] = []
    for choice in [*saved, *detected]:
        if choice.key not in seen:
            seen.add(choice.key)
            choices.append(choice)
    return choices


def default_choice(
    choices: Iterable[ServerChoice], last_used: tuple[str, str] | None = None
) -> ServerChoice | None:
    """The server to open with: the last one used if still listed, else the first
    listed. None means nothing is saved or detected: start the local engine."""
    listed = list(choices)
    for choice in listed:
        if last_used is not None and choice.key == (normalize_url(last_used[0]), last_used[1]):
            return choice
    return listed[0] if listed else None


async def detected_choices() -> list[ServerChoice]:
    """The LLM servers running on this computer, as the picker names them."""
    from client.backends import discover_local_servers

    return [
        ServerChoice(_detected_name(s.api, s.url, s.name), s.url, s.api)
        for s in await discover_local_servers()
    ]


def _detected_name(api: str, url: str, name: str = "") -> str:
    """A router by its own name ("vLLM router · 2 workers"), others by their API."""
    kind = name or ("Ollama" if api == "ollama" else "OpenAI-compatible server")
    return f"{kind} on this computer ({url.rsplit(':', 1)[-1]})"


def make_local_engine(spec: str = "") -> LocalEngine:
    """The embedded local engine, not started (loading it takes a few seconds); `spec`:
    its speculative decoding (one of SPEC_CHOICES, "" for none)."""
    from client.backends.engine.engine_settings import EngineSettings
    from client.backends.engine.local_engine import LocalEngine

    return LocalEngine(settings=EngineSettings.default().with_changes(spec=spec))


def with_spec(engine: ManagedEngine, spec: str) -> None:
    """Set an engine's speculative decoding for its next start."""
    engine.settings = engine.settings.with_changes(spec=spec)


def sleep_idle_for(keep_alive: str | int | None) -> int:
    """The keep-alive menu's choice as the engine's sleep_idle_seconds: "30m" -> 1800;
    None ("let the server decide") and forever -> -1, the engine's own default (never)."""
    from client.backends.engine.engine_settings import NO_SLEEP
    from client.services.servers.model_status import parse_duration

    seconds = parse_duration(keep_alive) if keep_alive is not None else math.inf
    return NO_SLEEP if math.isinf(seconds) else max(int(seconds), 1)


def with_sleep_idle(engine: object, keep_alive: str | int | None) -> bool:
    """Set the local engine's unload-after-idle for its next start from the keep-alive
    choice; True when the running process has another one (a restart applies it).
    Anything but a LocalEngine (a test's stand-in) is left alone."""
    from client.backends.engine.local_engine import LocalEngine

    if not isinstance(engine, LocalEngine):
        return False
    seconds = sleep_idle_for(keep_alive)
    engine.settings = engine.settings.with_changes(sleep_idle_s=seconds)
    return engine.running and engine.sleep_idle_s != seconds


# Keys the user chose to use for this run only because the keyring refused them: in
# this process's memory, never written anywhere (not SQLite, settings, logs or files).
_session_keys: dict[str, str] = {}


async def save_api_key(account: str, api_key: str) -> None:
    """Keep a server's API key in the system keyring, off the loop (it may block).

    Raises SecretsUnavailable (a sentence) when the keyring is missing, locked or
    refuses: the caller may then offer use_key_for_session."""
    await asyncio.to_thread(_set_hidden_key, account, _HiddenKey(api_key))
    _session_keys.pop(account, None)


class _HiddenKey:
    """A key passed to a worker thread: executors log their calls' arguments (qasync
    at DEBUG), and the key must never reach a log."""

    __slots__ = ("value",)

    def __init__(self, value: str) -> None:
        self.value = value

    def __repr__(self) -> str:
        return "<API key>"


def _hidden_lookup(lookup: KeyLookup, account: str) -> _HiddenKey | None:
    key = lookup(account)
    return _HiddenKey(key) if key else None


def _set_hidden_key(account: str, key: _HiddenKey) -> None:
    from client.store.secrets import set_api_key

    set_api_key(account, key.value)


async def delete_api_key(account: str) -> bool:
    """Delete a server's API key from the keyring (and this session's memory), off the
    loop. True when the keyring had one. Raises SecretsUnavailable when it refuses."""
    from client.store.secrets import delete_api_key as delete_stored_key

    _session_keys.pop(account, None)
    return await asyncio.to_thread(delete_stored_key, account)


async def move_api_key(old: str, new: str) -> None:
    """A renamed server keeps its key: stored under the new name, gone from the old."""
    if old in _session_keys:
        _session_keys[new] = _session_keys.pop(old)
        return
    found = await asyncio.to_thread(_hidden_lookup, _keyring_lookup, old)
    if found is not None:
        await asyncio.to_thread(_set_hidden_key, new, found)
        await delete_api_key(old)


def use_key_for_session(account: str, api_key: str) -> None:
    """Use this key until Tachy quits, without keeping it anywhere."""
    _session_keys[account] = api_key


def session_key_accounts() -> list[str]:
    return sorted(_session_keys)


async def _make_backend(url: str, api: str, api_key: str | None) -> Backend:
    # Imported here so the pool can be built (and tested) with any factory.
    from client.backends import make_backend

    return await make_backend(url, api, api_key)


def _keyring_lookup(account: str) -> str | None:
    from client.store.secrets import get_api_key

    if account in _session_keys:
        return _session_keys[account]
    return get_api_key(account)


class BackendPool:
    """One backend per server, created on first use and kept until aclose().

    Asking twice for the same server, even at the same time, gives the same backend:
    one httpx.AsyncClient per server, so its connections are reused and a warm-up
    and a user request share them.
    """

    def __init__(
        self,
        key_lookup: KeyLookup | None = _keyring_lookup,
        factory: BackendFactory = _make_backend,
    ) -> None:
        self._key_lookup = key_lookup
        self._factory = factory
        # The keyring could not be read (none on this machine, locked, refusing): the
        # first refusal, kept so the window says it once. Servers are made without a key
        # then: one that needs none works; one that needs its key answers "unauthorized".
        self.keyring_refused: Exception | None = None
        self.keyring_listeners: list[Callable[[Exception], None]] = []
        self._backends: dict[tuple[str, str], asyncio.Task[Backend]] = {}
        self._key_names: dict[tuple[str, str], str | None] = {}
        # Backends replaced while a request may still use them; closed on aclose().
        self._retired: list[asyncio.Task[Backend]] = []

    async def backend(self, choice: ServerChoice) -> Backend:
        """The server's backend; the same object every time for the same server.

        api "auto" asks the server once which API it speaks. A failure (unreachable
        while detecting, no keyring) is raised and not remembered, so a retry tries again.
        """
        key = choice.key
        task = self._backends.get(key)
        if task is not None and self._key_names[key] != choice.api_key_name:
            # The key changed: the old client sends the old Authorization header.
            self._retired.append(self._backends.pop(key))
            task = None
        if task is None:
            task = asyncio.ensure_future(self._create(choice))
            self._backends[key] = task
            self._key_names[key] = choice.api_key_name
        try:
            return await asyncio.shield(task)
        except asyncio.CancelledError:
            raise
        except Exception:
            if self._backends.get(key) is task:
                del self._backends[key]
                self._key_names.pop(key, None)
            raise

    async def _create(self, choice: ServerChoice) -> Backend:
        api_key = None
        if choice.api_key_name and self._key_lookup is not None:
            # Keyring calls may block (D-Bus, an unlock prompt): keep them off the loop.
            # Wrapped: qasync's executor logs each call's result at DEBUG.
            found = await self._look_up(choice.api_key_name)
            api_key = found.value if found is not None else None
        return await self._factory(normalize_url(choice.url), choice.api, api_key)

    async def _look_up(self, account: str) -> _HiddenKey | None:
        from client.store.secrets import SecretsUnavailable

        assert self._key_lookup is not None
        try:
            return await asyncio.to_thread(_hidden_lookup, self._key_lookup, account)
        except SecretsUnavailable as error:
            # A server with no key needs no keyring: go on without one, and say it once.
            if self.keyring_refused is None:
                self.keyring_refused = error
                for listener in self.keyring_listeners:
                    listener(error)
            return None

    def __contains__(self, choice: object) -> bool:
        return isinstance(choice, ServerChoice) and choice.key in self._backends

    def __len__(self) -> int:
        return len(self._backends)

    async def forget(self, choice: ServerChoice) -> None:
        """Close one server's backend (its key changed, or it was deleted)."""
        task = self._backends.pop(choice.key, None)
        self._key_names.pop(choice.key, None)
        if task is not None:
            await _close(task)

    async def aclose(self) -> None:
        """Close every backend (their HTTP clients and connections). Call on quit."""
        tasks = [*self._backends.values(), *self._retired]
        self._backends.clear()
        self._key_names.clear()
        self._retired.clear()
        errors: list[BaseException] = []
        for task in tasks:
            try:
                await _close(task)
            except Exception as error:  # close the rest before reporting
                errors.append(error)
        if errors:
            raise errors[0]


async def _close(task: asyncio.Task[Backend]) -> None:
    if not task.done():
        task.cancel()
        await asyncio.wait({task})
    if task.cancelled() or task.exception() is not None:
        return  # never made, nothing to close
    await task.result().aclose()
