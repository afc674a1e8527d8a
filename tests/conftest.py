"""Shared fixtures. Qt runs offscreen; fixtures start real things."""

from __future__ import annotations

import atexit
import os
import shutil
import signal
import sys
import tempfile
from collections.abc import Iterator
from typing import TYPE_CHECKING

import pytest
from hypothesis import settings

from tests.memory_keyring import memory_keyring  # noqa: F401  (a fixture for every test)

if TYPE_CHECKING:
    from client.backends.local_engine import LocalEngine

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


def _qt_app() -> object | None:
    """The QApplication, when a test made one (a test that never imports Qt gets none)."""
    widgets = sys.modules.get("PySide6.QtWidgets")
    return widgets.QApplication.instance() if widgets else None


@pytest.fixture(autouse=True)
def no_widget_outlives_its_test() -> Iterator[None]:
    """Deletes the top-level widgets a test left (menus made without a parent, pyqtgraph's
    plot menus, a window's side windows) and the app's objects it parented to the
    QApplication (a SchemeFollower). Left alive they add up over the run, and each
    app.setStyleSheet re-polishes every live widget: a theme test near the end of the
    suite took 328 s, and every earlier follower re-applied the stylesheet too."""
    app = _qt_app()
    before = _qt_objects(app) if app else set()
    yield
    app = _qt_app()
    if app is None:
        return
    from PySide6.QtCore import QEvent, QObject
    from PySide6.QtWidgets import QApplication

    left: list[QObject] = [w for w in QApplication.topLevelWidgets() if id(w) not in before]
    left += [o for o in app.children() if id(o) not in before and _is_tachy(o)]
    for thing in left:
        thing.deleteLater()
    QApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)


def _qt_objects(app: object) -> set[int]:
    from PySide6.QtWidgets import QApplication

    assert isinstance(app, QApplication)
    return {id(o) for o in [*QApplication.topLevelWidgets(), *app.children()]}


def _is_tachy(thing: object) -> bool:
    return type(thing).__module__.startswith("client.")


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
