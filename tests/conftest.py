"""Shared fixtures. Qt runs offscreen; fixtures start real things."""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile
from collections.abc import Iterator
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from client.backends.local_engine import LocalEngine

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
# Keep tests (and the app processes they start) away from the user's real history and
# window settings: one temporary data folder for the run, unless a test sets its own.
os.environ["TACHY_DATA_DIR"] = tempfile.mkdtemp(prefix="tachy-test-data-")
atexit.register(shutil.rmtree, os.environ["TACHY_DATA_DIR"], True)


@pytest.fixture(scope="session")
def local_engine() -> Iterator[LocalEngine]:
    """The real local engine (llama-server from xllamacpp + SmolLM2), started once per test run.

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
