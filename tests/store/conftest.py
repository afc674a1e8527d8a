"""Fixtures for the store: SQLite in a temp dir (the in-memory keyring: tests/memory_keyring.py)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from client.store.conversations.history import HistoryStore
from client.store.db import Database
from client.store.metrics_store import MetricsStore


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
