"""Shared fixtures. Qt runs offscreen; fixtures start real things."""

from __future__ import annotations

import atexit
import os
import shutil
import signal
import tempfile
from collections.abc import Iterator
from typing import TYPE_CHECKING

import pytest
from hypothesis import settings

from tests.memory_keyring import memory_keyring  # noqa: F401  (a fixture for every test)

if TYPE_CHECKING:
    from client.backends.engine.local_engine import LocalEngine

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
# Tests press Ctrl-C (SIGINT) in the commands they start. A shell that starts pytest in the
# background (`pytest &` in a script, nohup) makes it ignore SIGINT, and every command it
# starts would inherit that and never stop: the default comes back for them.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)
# Keep tests (and the app processes they start) away from the user's real history and
# window settings: one temporary data folder for the run, unless a test sets its own.
os.environ["TACHY_DATA_DIR"] = tempfile.mkdtemp(prefix="tachy-test-data-")
atexit.register(shutil.rmtree, os.environ["TACHY_DATA_DIR"], True)
# Property tests check behaviour, not speed: hypothesis's default 200 ms per example
# failed a statistics test on a slow CI machine while the rest of the suite ran.
settings.register_profile("tachy", deadline=None)
settings.load_profile("tachy")


@pytest.fixture(scope="session")
def local_engine() -> Iterator[LocalEngine]:
    """The real local engine (llama-server from xllamacpp + SmolLM2), started once per test run.

    A test that needs it must not pass without it: if it can't start, this fails.
    """
    from client.backends.engine.local_engine import LocalEngine

    engine = LocalEngine()
    try:
        engine.start_sync()
    except Exception as error:
        pytest.fail(f"The local engine could not start: {error}", pytrace=False)
    yield engine
    engine.stop_sync()
