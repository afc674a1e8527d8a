"""Shared fixtures. Qt runs offscreen; fixtures start real things."""

from __future__ import annotations

import atexit
import gc
import os
import shutil
import signal
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from hypothesis import settings

from tests.memory_keyring import memory_keyring  # noqa: F401  (a fixture for every test)

# Here, not in each test module: a fixture imported into two modules is two fixtures,
# and each started its own server for the session.
from tests.vision_server import vision_server  # noqa: F401
from tests.xdist_recovery import install as mend_xdist_crash_recovery

if TYPE_CHECKING:
    from PySide6.QtCore import QObject

    from client.backends.engine.local_engine import LocalEngine

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
# A worker that crashes must end the run with its test named, not hang it (see there).
mend_xdist_crash_recovery()
# Cycles are freed on this (the main) thread only, after each test and, in a window
# test, on the loop's timer as in the app (client/ui/shell/gui_thread_gc.py): a lab or
# executor thread's collection freed earlier tests' Qt objects off the GUI thread.
gc.disable()
# With PYTHONDONTWRITEBYTECODE set (as in many containers), pytest rewrote the asserts of
# every test module again in each worker and each in-process collection (25 of a whole
# collection's 40 s of CPU). This process (each xdist worker loads this file too) writes
# its bytecode to .pytest_cache/pycache, never beside the sources (what the variable asks).
# The processes tests start keep the variable: a cache of the installed packages' bytecode
# of their own cost more in a first run (3 s a start until written) than it saved.
if sys.dont_write_bytecode:
    sys.pycache_prefix = str(Path(__file__).resolve().parents[1] / ".pytest_cache" / "pycache")
    sys.dont_write_bytecode = False
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


CORRECTNESS_TIER = "not perf and not vllm"


@pytest.hookimpl(tryfirst=True)
def pytest_cmdline_main(config: pytest.Config) -> None:
    """Four worker processes (addopts' `-n 4`) only for the whole correctness tier, plain
    `pytest`: the benchmarks measure speeds with nothing of theirs beside them, the vLLM
    tier shares one vLLM, and a file named on the command line is quicker in one process.
    An `-n` typed on the command line is kept. (Runs before xdist's own hook.)"""
    typed = config.invocation_params.args
    if any(arg.startswith(("-n", "--numprocesses")) for arg in typed):
        return
    whole_tier = config.args_source is pytest.Config.ArgsSource.TESTPATHS
    if config.option.markexpr != CORRECTNESS_TIER or not whole_tier:
        config.option.numprocesses = 0


@pytest.hookimpl(trylast=True)
def pytest_runtest_teardown(item: pytest.Item) -> None:
    from client.ui.shell.gui_thread_gc import collect_if_due

    collect_if_due()


def _qt_app() -> object | None:
    """The QApplication, when a test made one (a test that never imports Qt gets none)."""
    widgets = sys.modules.get("PySide6.QtWidgets")
    return widgets.QApplication.instance() if widgets else None


@pytest.fixture(autouse=True)
def no_widget_outlives_its_test() -> Iterator[None]:
    """Deletes the windows without a parent a test left (menus made without one,
    pyqtgraph's plot menus, a window's side windows; their children go with them) and
    the app's objects it parented to the QApplication (a SchemeFollower). Left alive they
    added up over the run (53 top-level widgets a window), and each app.setStyleSheet
    re-polishes every live widget: the dark-scheme test near the end took 328-780 s, as
    every earlier follower re-applied the stylesheet too."""
    # Held for the test: a live wrapper is the one PySide gives back for its object, so
    # id() names the object (and no new one can take its id).
    before = _qt_objects() if _qt_app() else []
    known = {id(thing) for thing in before}
    yield
    if _qt_app() is None:
        return
    from PySide6.QtCore import QEvent
    from PySide6.QtWidgets import QApplication, QMainWindow

    left = [thing for thing in _qt_objects() if id(thing) not in known]
    # Main windows first, then the rest, as make_app does: a main window deleted in the
    # same round as the menus it holds crashed.
    for first in (True, False):
        for thing in left:
            try:
                if isinstance(thing, QMainWindow) is first:
                    thing.deleteLater()
            except RuntimeError:  # one the window owned went with it
                pass
        QApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)


def _qt_objects() -> list[QObject]:
    """The windows without a parent and Tachy's objects parented to the app."""
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance()
    assert app is not None
    windows = [w for w in QApplication.topLevelWidgets() if w.parentWidget() is None]
    return [*windows, *(o for o in app.children() if type(o).__module__.startswith("client."))]


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
