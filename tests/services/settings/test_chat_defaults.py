"""The chat defaults are kept in the settings store and put on the session."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from client.core.conversation import GenerationOptions
from client.services.chat.session import ChatSession
from client.services.settings.chat_defaults import DEFAULTS_KEY, ChatDefaults, SavedChatDefaults
from client.services.storage.stores import open_stores


def _session() -> ChatSession:
    return ChatSession(None, "m", None, None, "server")  # type: ignore[arg-type]


def test_saved_defaults_survive_a_restart_and_reach_the_session(tmp_path: Path) -> None:
    stores = open_stores(tmp_path / "t.sqlite3")
    try:
        saved = SavedChatDefaults(stores.settings)
        assert saved.load() == ChatDefaults()  # the slow-start offer after 15 s
        session = _session()
        session.configure(options=GenerationOptions(seed=7))
        chosen = replace(
            saved.load(), system_prompt="Be brief.", temperature=0.3, slow_start_after_s=20.0
        )
        saved.save(chosen, session)
        assert session.settings.system_prompt == "Be brief."
        assert session.settings.options == GenerationOptions(temperature=0.3, seed=7)
        assert session.settings.slow_start_after_s == 20.0
        again = SavedChatDefaults(stores.settings)  # the next start
        assert again.load() == chosen
        fresh = _session()
        again.apply(fresh)
        assert fresh.settings.slow_start_after_s == 20.0
    finally:
        stores.close()


def test_a_damaged_row_falls_back_to_the_defaults(tmp_path: Path) -> None:
    stores = open_stores(tmp_path / "t.sqlite3")
    try:
        assert stores.settings is not None
        stores.settings.set(DEFAULTS_KEY, {"slow_start_after_s": "soon", "stall_timeout_s": 9})
        loaded = SavedChatDefaults(stores.settings).load()
        assert loaded == ChatDefaults(stall_timeout_s=9)  # the readable key is kept
        stores.settings.set(DEFAULTS_KEY, [1, 2])
        assert SavedChatDefaults(stores.settings).load() == ChatDefaults()
    finally:
        stores.close()
