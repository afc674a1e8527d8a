from __future__ import annotations

from pathlib import Path

import keyring
import pytest
from keyring.backends import fail

from client.core.metrics import RequestMetrics
from client.core.tiers import DEFAULT_THRESHOLDS, TierThresholds
from client.store import secrets
from client.store.conversations.export import export_json, export_markdown
from client.store.conversations.history import HistoryStore
from client.store.db import Database
from client.store.endpoints import EndpointStore
from client.store.metrics_store import MetricsStore
from client.store.settings import Settings, set_tier_thresholds, tier_thresholds
from tests.memory_keyring import MemoryKeyring

API_KEY = "sk-test-7f3a9c1e5b2d4a6f8e0c"


def test_endpoints_save_update_list_delete(db: Database) -> None:
    endpoints = EndpointStore(db)
    saved = endpoints.save("work", "http://10.0.0.5:11434", "ollama")
    endpoints.save("home", "http://127.0.0.1:8080", "openai")
    changed = endpoints.save("work", "https://llm.example:8000/v1", "auto")
    assert changed.id == saved.id and changed.url == "https://llm.example:8000/v1"
    assert [(e.name, e.api) for e in endpoints.list()] == [("home", "openai"), ("work", "auto")]
    assert endpoints.delete("home") and not endpoints.delete("home")
    assert endpoints.get("home") is None


@pytest.mark.parametrize(
    ("name", "url", "api", "match"),
    [
        ("x", "http://h", "grpc", "api must be"),
        ("", "http://h", "auto", "needs a name"),
    ],
)
def test_endpoints_reject_bad_input(
    db: Database, name: str, url: str, api: str, match: str
) -> None:
    with pytest.raises(ValueError, match=match):
        EndpointStore(db).save(name, url, api)


def test_api_keys_live_in_the_keyring(memory_keyring: MemoryKeyring) -> None:
    assert secrets.get_api_key("work") is None
    secrets.set_api_key("work", API_KEY)
    assert memory_keyring.passwords == {("tachy", "work"): API_KEY}
    assert secrets.get_api_key("work") == API_KEY
    assert secrets.delete_api_key("work") is True
    assert secrets.delete_api_key("work") is False
    with pytest.raises(ValueError):
        secrets.set_api_key("work", "")


def test_no_keyring_backend_gives_a_clear_error() -> None:
    previous = keyring.get_keyring()
    keyring.set_keyring(fail.Keyring())
    try:
        for call in (
            lambda: secrets.set_api_key("w", "k"),
            lambda: secrets.get_api_key("w"),
            lambda: secrets.delete_api_key("w"),
        ):
            with pytest.raises(secrets.SecretsUnavailable, match="No system keyring"):
                call()
    finally:
        keyring.set_keyring(previous)


def test_settings_hold_json_values_but_refuse_secrets(db: Database) -> None:
    settings = Settings(db)
    settings.set("keep_alive", "30m")
    settings.set("tier_thresholds", {"instant_below_ms": 100, "fast_below_ms": 300})
    settings.set("keep_alive", "1h")
    assert settings.get("keep_alive") == "1h"
    assert settings.get("missing", 5) == 5
    assert settings.all()["tier_thresholds"] == {"instant_below_ms": 100, "fast_below_ms": 300}
    settings.delete("keep_alive")
    assert settings.get("keep_alive") is None
    for key in ("api_key", "openai-apikey", "password", "client_secret"):
        with pytest.raises(ValueError, match="keyring"):
            settings.set(key, "x")


def test_the_api_key_never_reaches_the_database_or_exports(
    db: Database, memory_keyring: MemoryKeyring, data_dir: Path
) -> None:
    endpoints = EndpointStore(db)
    endpoint = endpoints.save("remote", "https://llm.example:8000", "openai")
    secrets.set_api_key(endpoint.name, API_KEY)
    Settings(db).set("default_endpoint", endpoint.name)
    history = HistoryStore(db)
    metrics = MetricsStore(db)
    chat = history.create_conversation("with a key", server=endpoint.url, model="m")
    question = history.add_message(chat.id, "user", "hello")
    answer = history.add_message(
        chat.id, "assistant", "hi", parent_id=question.id, server=endpoint.url, model="m"
    )
    metrics.record(
        RequestMetrics(ttft_ms=50.0),
        server=endpoint.url,
        model="m",
        outcome="complete",
        message_id=answer.id,
    )
    assert secrets.get_api_key("remote") == API_KEY
    exports = export_markdown(history, metrics, chat.id) + export_json(history, metrics, chat.id)
    assert API_KEY not in exports
    assert_key_absent_from_files(data_dir)  # the main file, -wal and -shm while open
    db.close()  # checkpoints the WAL into the main file
    assert_key_absent_from_files(data_dir)


def assert_key_absent_from_files(folder: Path) -> None:
    files = list(folder.iterdir())
    assert "tachy.sqlite3" in {f.name for f in files}
    for file in files:
        data = file.read_bytes()
        assert API_KEY.encode() not in data, file.name
        assert API_KEY.encode("utf-16-le") not in data, file.name


def test_tier_thresholds_are_kept_and_checked(db: Database) -> None:
    settings = Settings(db)
    assert tier_thresholds(settings) == DEFAULT_THRESHOLDS
    mine = TierThresholds(instant_below_ms=50, fast_below_ms=200, typing_below_ms=800)
    set_tier_thresholds(settings, mine)
    assert tier_thresholds(Settings(db)) == mine
    with pytest.raises(ValueError, match="rise"):
        set_tier_thresholds(settings, TierThresholds(300, 100, 1000))
    settings.set("tier_thresholds", {"instant_below_ms": "x", "bogus": 1})
    assert tier_thresholds(settings) == DEFAULT_THRESHOLDS
