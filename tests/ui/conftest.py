"""ui fixtures: a qasync loop for the test, a scripted server, the real app window.

pytest-qt gives the QApplication; each test gets its own qasync.QEventLoop as the
asyncio loop and drives it with `run(coro)` (loop.run_until_complete with a timeout).
Inside, `until(condition)` polls with a deadline, like qtbot.waitUntil, while the
loop keeps serving the server, the session and Qt alike.
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Callable, Coroutine, Iterator
from pathlib import Path
from typing import Any

import pytest
import qasync
from PySide6.QtCore import QEvent, QLocale, QSettings
from PySide6.QtWidgets import QApplication

from client.backends.engine.engine_settings import EngineSettings
from client.services.storage.stores import open_stores
from client.ui.shell.app import TachyApp, track_async_generators
from client.ui.shell.gui_thread_gc import GuiThreadCollector
from tests.ui.scripted_server import ScriptedOllama

# Safety nets, not speeds: a wait ends the moment its event comes, and fails only after
# this long, enough for a machine 5x slower than a quiet one (tests assert no speed).
WAIT_S = 60.0
TEST_TIMEOUT_S = 180.0
ENGLISH = QLocale(QLocale.Language.English, QLocale.Country.UnitedStates)


async def until(condition: Callable[[], object], timeout_s: float = WAIT_S) -> None:
    """Wait until condition() is true, serving the loop; fail after timeout_s."""
    deadline = asyncio.get_running_loop().time() + timeout_s
    while not condition():
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError(f"timed out waiting for {condition}")
        await asyncio.sleep(0.005)


def last_answer_text(view: Any) -> str:
    """The text of the chat view's last answer, "" before the first."""
    shown = [view.message(k) for k in view.keys() if view.message(k).role == "assistant"]
    return shown[-1].text if shown else ""


class LoopRunner:
    def __init__(self, loop: qasync.QEventLoop) -> None:
        self.loop = loop

    def __call__(self, coro: Coroutine[Any, Any, Any], timeout_s: float = TEST_TIMEOUT_S) -> Any:
        return self.loop.run_until_complete(asyncio.wait_for(coro, timeout_s))


@pytest.fixture(autouse=True)
def same_look_after(qapp: QApplication) -> Iterator[None]:
    """Each test leaves the app's look as it found it: a test that chose a theme (View >
    Theme sets Qt's colour scheme) or installed a dark palette would darken the next."""
    palette, sheet = qapp.palette(), qapp.styleSheet()
    yield
    qapp.styleHints().unsetColorScheme()
    QApplication.setPalette(palette)
    qapp.setStyleSheet(sheet)


@pytest.fixture(autouse=True)
def english_figures() -> Iterator[None]:
    """Each window test starts in US English (1,340.0), whatever the machine's locale
    or an earlier test's QLocale.setDefault: figures are written by QLocale."""
    QLocale.setDefault(ENGLISH)
    yield
    QLocale.setDefault(ENGLISH)


@pytest.fixture(autouse=True)
def no_servers_on_this_computer(monkeypatch: pytest.MonkeyPatch) -> None:
    """The window finds no LLM server on this computer's usual ports (11434, 8080 ...):
    on a machine shared with other jobs, one may be running there, and the window would
    choose it or list it. A test that wants detection sets its own."""

    async def nothing() -> list[Any]:
        return []

    monkeypatch.setattr("client.ui.servers.server_controller.detected_choices", nothing)


class HarnessLoop(qasync.QEventLoop):
    """qasync's loop, whose run_until_complete runs one last round of Qt events after
    its loop has stopped, with no running loop set: asyncio.current_task() fails there,
    and httpcore's anyio locks taken in that round stay held (an idle connection reused
    then hung its next request). Here that round runs with the loop set, as every other
    round does."""

    def run_forever(self) -> Any:
        try:
            return super().run_forever()
        finally:
            asyncio.events._set_running_loop(self)

    def run_until_complete(self, future: Any) -> Any:
        try:
            return super().run_until_complete(future)
        finally:
            asyncio.events._set_running_loop(None)


@pytest.fixture(autouse=True, scope="session")
def english_plurals(qapp: QApplication) -> Iterator[None]:
    """As the app does in English: the plural forms' file ("1 stall", "2 stalls")."""
    from client.ui.shell.translations import install_english_plurals

    translators = install_english_plurals(qapp)
    assert len(translators) == 1
    yield
    qapp.removeTranslator(translators[0])


@pytest.fixture
def chinese(qapp: QApplication) -> Iterator[None]:
    """The window in zh_CN: Tachy's catalogue, pyqtgraph's menus and Qt's qtbase."""
    from client.ui.shell.translations import install_translations

    translators = install_translations(qapp, "zh_CN")
    assert len(translators) == 3
    yield
    for translator in translators:
        qapp.removeTranslator(translator)
    QLocale.setDefault(ENGLISH)


@pytest.fixture(params=["en", "zh_CN"])
def language(request: Any, qapp: QApplication) -> Iterator[str]:
    """Each test twice: in English, then in zh_CN (the language's name is its value)."""
    from client.ui.shell.translations import install_translations

    translators = install_translations(qapp, request.param) if request.param != "en" else []
    yield request.param
    for translator in translators:
        qapp.removeTranslator(translator)
    QLocale.setDefault(ENGLISH)


@pytest.fixture
def run(qapp: Any) -> Iterator[LoopRunner]:
    loop = HarnessLoop(qapp)
    asyncio.set_event_loop(loop)
    hooks = sys.get_asyncgen_hooks()
    track_async_generators(loop)
    runner = LoopRunner(loop)
    collector = GuiThreadCollector()  # as the app collects: on this thread, on a timer
    collector.start()
    try:
        yield runner
    finally:
        collector.stop()
        pending = [t for t in asyncio.all_tasks(loop) if not t.done()]
        for task in pending:
            task.cancel()
        if pending:
            loop.run_until_complete(asyncio.gather(*pending, return_exceptions=True))
        loop.run_until_complete(loop.shutdown_asyncgens())
        sys.set_asyncgen_hooks(*hooks)
        asyncio.set_event_loop(None)
        loop.close()


@pytest.fixture
def server(run: LoopRunner) -> Iterator[ScriptedOllama]:
    scripted = ScriptedOllama()
    run(scripted.start())
    yield scripted
    run(scripted.stop())


@pytest.fixture
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("TACHY_DATA_DIR", str(tmp_path / "data"))
    return tmp_path / "data"


class NoEngine:
    """Stands in for the local engine in tests that must not start it (the
    ManagedEngine protocol of client/services/servers/engine_idle.py)."""

    started = 0

    def __init__(self) -> None:
        self.url = "http://127.0.0.1:9"
        self.model = "none"
        self.running = False
        self.sleep_idle_s = -1  # never unloads its model
        self.settings = EngineSettings.default()

    async def start(self) -> None:
        NoEngine.started += 1
        await asyncio.Event().wait()  # "starting" for as long as the test looks

    async def is_sleeping(self) -> bool | None:
        return None

    async def restart(self) -> None:
        return None

    async def stop(self) -> None:
        return None


@pytest.fixture
def make_app(qtbot: Any, run: LoopRunner, data_dir: Path) -> Iterator[Callable[..., TachyApp]]:
    apps: list[TachyApp] = []

    def make(url: str | None = None, model: str | None = "scripted:1b", **kw: Any) -> TachyApp:
        stores = open_stores(data_dir / "tachy.sqlite3")
        settings = QSettings(str(data_dir / "window.ini"), QSettings.Format.IniFormat)
        app = TachyApp(
            stores,
            settings,
            engine_factory=kw.get("engine_factory", NoEngine),
            warm_models=kw.get("warm_models", False),  # warm-ups would take scripted replies
        )
        app.window.show()
        app.window.activateWindow()
        run(app.start(url, kw.get("api", "ollama" if url else "auto"), model))
        apps.append(app)
        return app

    yield make
    for app in apps:  # (not qtbot.addWidget: pytest-qt would close it before this runs)
        run(app.aclose())
        app.stores.close()  # its database thread and connection end with the test
        app.window.close()
        app.window.deleteLater()
    # Delete them now, so no window, HUD or timer of this test outlives it.
    QApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
