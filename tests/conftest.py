"""Shared fixtures. Qt runs offscreen; fixtures start real things."""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from client.backends.local_engine import LocalEngine

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
# Keep tests away from the user's real settings, history and keyring.
os.environ.setdefault("TACHY_TEST", "1")


@pytest.fixture(scope="session")
def local_engine() -> Iterator[LocalEngine]:
    """The real local engine (llama-cpp-python + SmolLM2), started once per test run.

    A test that needs it must not pass without it: if it can't start, this fails.
    """
    from client.backends.local_engine import LocalEngine

    engine = LocalEngine()
    try:
        engine.start_sync()
    except Exception as error:
        pytest.fail(f"The local engine could not start: {error}", pytrace=False)
    yield engine
    engine.stop_sync()
