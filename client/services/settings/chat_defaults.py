"""What every request starts from, whatever the server: the system prompt, the
temperature, the longest answer, and the waits (the slow-start offer, a stalled
stream, a cascade's first token). Kept in the settings store, put on the session:

    saved = SavedChatDefaults(stores.settings)
    saved.apply(session)                   # when the session is made
    saved.save(replace(saved.load(), slow_start_after_s=20.0), session)

The Settings window (client/ui/settings) reads and writes them only through here.
"""

from __future__ import annotations

import logging
from dataclasses import asdict, dataclass, fields, replace

from client.services.chat.session import ChatSession
from client.store.settings import Settings

log = logging.getLogger(__name__)
DEFAULTS_KEY = "chat_defaults"


@dataclass(frozen=True, slots=True)
class ChatDefaults:
    system_prompt: str = ""  # "": none
    temperature: float | None = None  # None: the server's own
    max_tokens: int | None = None  # None: the server's own limit
    slow_start_after_s: float = 15.0  # no first token by then: Keep waiting / Cancel
    stall_timeout_s: float = 15.0  # silence in the middle of an answer
    first_token_timeout_s: float = 60.0  # a cascade's chosen model, at most

    @classmethod
    def from_saved(cls, saved: object) -> ChatDefaults:
        """A stored row; a key unknown or of the wrong kind keeps its default."""
        if not isinstance(saved, dict):
            return cls()
        kept = {key: value for key, value in saved.items() if _fits(key, value)}
        dropped = set(saved) - set(kept)
        if dropped:
            log.warning("chat defaults: %s cannot be read, using the defaults", sorted(dropped))
        return cls(**kept)


_OPTIONAL = {"temperature", "max_tokens"}  # None: the server's own


def _fits(key: str, value: object) -> bool:
    names = {f.name for f in fields(ChatDefaults)}
    if key not in names:
        return False
    if value is None:
        return key in _OPTIONAL
    if isinstance(value, bool):
        return False
    if key == "system_prompt":
        return isinstance(value, str)
    if key == "max_tokens":
        return isinstance(value, int) and value > 0
    return isinstance(value, int | float) and value >= 0


class SavedChatDefaults:
    def __init__(self, store: Settings | None) -> None:
        self.store = store
        self._memory = ChatDefaults()  # without a store (tests, a broken database)

    def load(self) -> ChatDefaults:
        if self.store is None:
            return self._memory
        return ChatDefaults.from_saved(self.store.get(DEFAULTS_KEY))

    def save(self, defaults: ChatDefaults, session: ChatSession | None = None) -> None:
        """Kept for the next start, and on the session from its next request."""
        self._memory = defaults
        if self.store is not None:
            self.store.set(DEFAULTS_KEY, asdict(defaults))
        if session is not None:
            self.apply(session, defaults)

    def apply(self, session: ChatSession, defaults: ChatDefaults | None = None) -> None:
        chosen = defaults or self.load()
        options = replace(
            session.settings.options,
            temperature=chosen.temperature,
            max_tokens=chosen.max_tokens,
        )
        session.configure(
            system_prompt=chosen.system_prompt or None,
            options=options,
            slow_start_after_s=chosen.slow_start_after_s,
            stall_timeout_s=chosen.stall_timeout_s,
            first_token_timeout_s=chosen.first_token_timeout_s,
        )
