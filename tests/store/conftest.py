"""Fixtures for the store: SQLite in a temp dir, an in-memory keyring."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import keyring
import pytest
from keyring.backend import KeyringBackend
from keyring.errors import PasswordDeleteError

from client.store.db import Database
from client.store.history import HistoryStore
from client.store.metrics_store import MetricsStore


class MemoryKeyring(KeyringBackend):
    """A keyring that keeps passwords in a dict (tests only)."""

    priority = 1

    def __init__(self) -> None:
        super().__init__()
        self.passwords: dict[tuple[str, str], str] = {}

    def get_password(self, service: str, username: str) -> str | None:
        return self.passwords.get((service, username))

    def set_password(self, service: str, username: str, password: str) -> None:
        self.passwords[(service, username)] = password

    def delete_password(self, service: str, username: str) -> None:
        if self.passwords.pop((service, username), None) is None:
            raise PasswordDeleteError("no such password")


@pytest.fixture
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("TACHY_DATA_DIR", str(tmp_path / "data"))
    return tmp_path / "data"


class FakeClock:
    def __init__(self, now: float = 1_800_000_000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        self.now += 0.001  # every reading is later than the last
        return self.now


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def db(data_dir: Path, clock: FakeClock) -> Iterator[Database]:
    database = Database(clock=clock)
    yield database
    database.close()


@pytest.fixture
def history(db: Database) -> HistoryStore:
    return HistoryStore(db)


@pytest.fixture
def metrics_store(db: Database) -> MetricsStore:
    return MetricsStore(db)


@pytest.fixture
def memory_keyring() -> Iterator[MemoryKeyring]:
    previous = keyring.get_keyring()
    backend = MemoryKeyring()
    keyring.set_keyring(backend)
    yield backend
    keyring.set_keyring(previous)
