"""Fixtures the services tests share."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from client.store.db import Database


@pytest.fixture
def db(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Database]:
    """A fresh history database in this test's own data folder."""
    monkeypatch.setenv("TACHY_DATA_DIR", str(tmp_path))
    database = Database()
    yield database
    database.close()
