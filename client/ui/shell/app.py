"""Starting the desktop app: one QApplication, one qasync loop, one main window.

The loop runs until an asyncio.Event set on aboutToQuit (qasync's recommended shape),
then cleanup closes every backend's HTTP client and stops the local engine.

Launch paints the window first and only then imports and wires the controllers (the
backends, the session, the HUD: about a second of imports); input that arrives
meanwhile waits in the queue, since no event is handled until the loop runs.
"""

from __future__ import annotations

import gc
import logging
import sys
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QDir, QEvent, QLocale, QObject, QSettings
from PySide6.QtWidgets import QApplication, QWidget

from client import __version__
from client.ui.common.resources import APP_ID, icon_svg, resource
from client.ui.common.shortcuts import key_of
from client.ui.common.theme import SchemeFollower, chosen_theme
from client.ui.shell.gui_thread_gc import GuiThreadCollector
from client.ui.shell.main_window import MainWindow
from client.ui.shell.translations import chosen_language, install_translations

if TYPE_CHECKING:  # client.store loads after the first paint (about 0.1 s of imports)
    import asyncio  # (and asyncio, ~35 ms: imported where used, after the paint)

    from PySide6.QtGui import QIcon

    from client.services.storage.stores import Stores
    from client.services.tachy import EngineFactory, Tachy
    from client.ui.hud import LatencyHud
    from client.ui.shell.single_instance import SingleInstance

log = logging.getLogger("tachy.ui")
SAVE_AT_QUIT_S = 5.0  # the longest quitting waits for a stopped answer to be saved


def qt_settings() -> QSettings:
    """Window geometry and dock state: next to the data when $TACHY_DATA_DIR moves it
    (tests, a portable install), else where the platform keeps settings."""
    from client.services.storage.data_folder import window_state_file

    path = window_state_file()
    if path is not None:
        settings = QSettings(str(path), QSettings.Format.IniFormat)
    else:
        settings = QSettings("Tachy", "Tachy")
    settings.allKeys()  # read now, so a damaged file is noted at start
    if settings.status() is not QSettings.Status.NoError:
        # Qt keeps what it could parse; the rest falls back to the default layout.
        log.warning(
            "the window layout at %s cannot be read (%s): using the defaults",
            settings.fileName(),
            settings.status().name,
        )
    return settings


class FirstPaintLog(QObject):
    """Logs "window first painted at <unix time>" once: benchmarks read it from stderr."""

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Paint:
            watched.removeEventFilter(self)
            log.info("window first painted at %.6f", time.time())
        return False


class TachyApp:
    """The main window wired to its controllers, which adapt one Tachy (the Qt-free
    composition root, client/services/tachy.py). Tests build this with their own parts."""

    def __init__(
        self,
        stores: Stores | None = None,
        settings: QSettings | None = None,
        engine_factory: EngineFactory | None = None,
        window: MainWindow | None = None,
        warm_models: bool = True,
        *,
        tachy: Tachy | None = None,
    ) -> None:
        from client.services.chat.shown_history import ShownHistory
        from client.services.storage import full_disk as saving
        from client.services.tachy import Tachy
        from client.ui.chat.chat_page import ChatPage
        from client.ui.common.async_errors import add_error_sink
        from client.ui.demo.demo_menu import DemoMenu
        from client.ui.servers.server_controller import ServerController
        from client.ui.shell.storage_banner import attach_storage_banner

        # warm_models: off in tests whose scripted server counts requests.
        self.tachy = tachy or Tachy(stores, engine_factory=engine_factory, warm_models=warm_models)
        self.window = window or MainWindow(settings or qt_settings())
        stored = ShownHistory(self.stores.history, self.stores.metrics)
        self.page = ChatPage(self.window, stored)
        self.servers = ServerController(self.window, self.page, self.tachy)
        self.demo = DemoMenu(self.servers, self.window.demo_menu, self.servers)
        self.storage_banner = attach_storage_banner(self.window.server_bar, self.stores.problem)
        saving.add_listener(self.storage_banner.saving_changed)
        self._wire()
        add_error_sink(self._show_error)

    @property
    def stores(self) -> Stores:
        return self.tachy.stores

    def _wire(self) -> None:
        from client.ui.conversations.conversation_controller import ConversationController
        from client.ui.shell.doctor_dialog import HelpMenu

        w, page = self.window, self.page
        self.conversations = ConversationController(w, w.conversations, page, self.stores)
        w.add_shortcut("stop", key_of("stop"), page.stop)
        w.add_shortcut("regenerate", key_of("regenerate"), page.regenerate)
        w.add_shortcut("focus", key_of("focus"), lambda: w.composer.setFocus())
        w.add_shortcut("new", key_of("new"), self.conversations.new)
        w.add_shortcut("search", key_of("search"), w.conversations.focus_search)
        w.add_shortcut("quit", key_of("quit"), w.close)  # Cmd+Q on macOS (Qt maps Ctrl)
        self._attach_hud()
        self._attach_warming()
        self._attach_language_menu()
        self._attach_knowledge()
        self._attach_images()
        self._attach_cascade()
        self._attach_engine_menu()
        self._attach_welcome()
        self._attach_server_editor()
        self._attach_models()
        self._attach_model_picker()
        self._attach_race()
        self._attach_view()
        self.help_menu = HelpMenu(self.window, answers=self.tachy.last_answer)

    def _attach_race(self) -> None:
        from client.ui.race.race_menu import RaceMenu

        self.race = RaceMenu(self.servers, self.window.demo_menu, self.hud)
        self.demo.races.attach(self.race)

    def _attach_view(self) -> None:
        from client.ui.settings.settings_window import SettingsSources
        from client.ui.shell.view_wiring import attach_view

        languages = list(self.language_menu.actions.values())
        sources = SettingsSources(
            self.tachy, self.warming, self.knowledge, self.cascade_menu, languages
        )
        self.view = attach_view(self.window, self.page, self.hud, sources)

    def _attach_models(self) -> None:
        from client.ui.servers.models_dialog import ModelsController

        self.models = ModelsController(self.servers)

    def _attach_model_picker(self) -> None:
        from client.ui.servers.picker_controller import ModelPickerController

        picker = self.model_picker = ModelPickerController(self.servers)
        # The picker's Cascade entry is the Cascade menu's "Use the cascade".
        self.window.server_bar.cascadeChosen.connect(self.cascade_menu.use_cascade)
        self.cascade_menu.changed.connect(picker.show_cascade)

    def _attach_server_editor(self) -> None:
        from client.ui.servers.pools.pools_controller import PoolsController
        from client.ui.servers.server_editor import ServerEditor

        self.server_editor = ServerEditor(self.servers)
        self.pools = PoolsController(self.servers)

    def _attach_welcome(self) -> None:
        from client.ui.servers.welcome import WelcomeController

        self.welcome = WelcomeController(self.servers)

    def _attach_knowledge(self) -> None:
        from client.ui.knowledge.knowledge_controller import KnowledgeController

        self.knowledge = KnowledgeController(self.page, self.tachy)

    def _attach_images(self) -> None:
        from client.ui.chat.attachments_controller import AttachmentsController

        self.attachments = AttachmentsController(self.page, self.tachy)
        self.attachments.picker = self.window.server_bar  # offering a model that can see
        if self.warming is not None:  # the images' tokens are part of the predicted wait
            self.attachments.waitingChanged.connect(self.warming.show_prediction)

    def _attach_cascade(self) -> None:
        from client.ui.cascade.cascade_controller import CascadeController

        self.cascade = CascadeController(self.page)
        from client.ui.cascade.cascade_menu import CascadeMenu

        self.cascade_menu = CascadeMenu(self.window.menuBar(), self.servers, self.cascade)

    def _attach_language_menu(self) -> None:
        from client.ui.shell.language_menu import LanguageMenu

        w = self.window
        self.language_menu = LanguageMenu(w.menuBar(), w.settings, w.stage_label)

    def _attach_engine_menu(self) -> None:
        from client.ui.servers.engine_menu import EngineMenu

        w = self.window
        self.engine_menu = EngineMenu(
            w.menuBar(), w.settings, w.stage_label, self.servers, lambda: self.page.runner.busy
        )

    def _attach_warming(self) -> None:
        # After the HUD: warming's prediction note goes into the HUD's tooltip.
        from client.ui.shell.area_wiring import attach_warming

        self.warming = attach_warming(self.servers, self.window.conversations, self.hud)

    def _attach_hud(self) -> None:
        from client.ui.shell.area_wiring import attach_hud

        self.hud: LatencyHud | None = attach_hud(self.window, self.servers)

    def _show_error(self, sentence: str) -> None:
        self.window.stage_label.setText(sentence)

    async def start(
        self, url: str | None = None, api: str = "auto", model: str | None = None
    ) -> None:
        self.conversations.refresh()
        self.knowledge.start_watching()
        self.welcome.start()
        await self.servers.start(url, api, model)

    async def aclose(self) -> None:
        import asyncio

        from client.services.storage import full_disk as saving
        from client.ui.common.async_errors import remove_error_sink

        remove_error_sink(self._show_error)
        saving.remove_listener(self.storage_banner.saving_changed)
        answering = self.page.runner.task
        self.page.stop()
        if answering is not None and not answering.done():
            # Quitting mid-answer is a Stop: the words so far are saved as stopped, with
            # the request's metrics, before the database closes (bounded: never hangs).
            await asyncio.wait({answering}, timeout=SAVE_AT_QUIT_S)
        try:
            await self.race.aclose()  # a race under way stops, its answers saved
            await self.model_picker.aclose()
            await self.knowledge.aclose()
            await self.attachments.aclose()
            await self.welcome.aclose()
            await self.cascade_menu.aclose()
            await self.cascade.aclose()
            await self.models.aclose()
            if self.warming is not None:
                await self.warming.aclose()
            if self.hud is not None:
                await self.hud.aclose()
        finally:
            try:
                await self.demo.aclose()  # the lab's thread stops, its sockets with it
            finally:
                await self.servers.aclose()
                await self.tachy.aclose()  # backends' HTTP clients, the local engine


def close_on_signals(loop: asyncio.AbstractEventLoop, window: QWidget) -> None:
    """SIGTERM (logging out, `kill`) and SIGINT (Ctrl+C in the terminal that started
    it) close the window like its close button: the answer under way is saved as
    stopped, the layout remembered, the local engine stopped. Python's default was to
    die at once (SIGTERM) or not before the next Python callback (SIGINT)."""
    import signal  # (its enums: 0.7 ms, after the paint)

    for number in (signal.SIGTERM, signal.SIGINT):
        try:
            loop.add_signal_handler(number, window.close)
        except (NotImplementedError, RuntimeError, ValueError):  # not the main thread
            log.info("quitting on signal %s is not handled here", number)


def track_async_generators(loop: asyncio.AbstractEventLoop) -> None:
    """Let the loop finalise async generators (httpx response iterators ...) itself.

    asyncio's own run_forever installs these hooks; qasync's does not, so without this
    an abandoned generator is finalised by the garbage collector with no loop running.
    """
    import asyncio

    base = asyncio.BaseEventLoop
    sys.set_asyncgen_hooks(
        firstiter=partial(base._asyncgen_firstiter_hook, loop),  # type: ignore[attr-defined]
        finalizer=partial(base._asyncgen_finalizer_hook, loop),  # type: ignore[attr-defined]
    )


def identify_app(app: QApplication) -> None:
    """The name and desktop id the taskbar groups the window by: the same id as the
    desktop entry and AppStream file in resources/ (io.github.tachy.Tachy). The icon
    (app_icon) is set after the first paint: QIcon and its files take ~4 ms."""
    app.setApplicationName("Tachy")
    app.setApplicationVersion(__version__)
    app.setDesktopFileName(APP_ID)


def app_icon() -> QIcon:
    """The hicolor PNGs for small sizes (crisp, no SVG plugin needed), the SVG above."""
    from PySide6.QtGui import QIcon

    icon = QIcon()
    hicolor = resource("icons", "hicolor")
    for png in sorted(hicolor.glob(f"*/apps/{APP_ID}.png")):
        icon.addFile(str(png))
    if icon_svg().exists():
        icon.addFile(str(icon_svg()))
    return icon


def claim_single_instance(name: str) -> SingleInstance | None:
    """This process's SingleInstance, or None when another window is open on the same
    history (it was asked to come to the front)."""
    from client.ui.shell.single_instance import SingleInstance

    instance = SingleInstance(name)
    if instance.claim():
        return instance
    log.info("Tachy is already open on this history: its window was brought to the front")
    return None


def nobody_listening(name: str) -> bool:
    """True when no window can be open on this history: on Unix a listening
    QLocalServer has its socket file in QDir.tempPath(). (Windows' pipes: unknown.)"""
    return sys.platform != "win32" and not (Path(QDir.tempPath()) / name).exists()


def first_window(
    app: QApplication, settings: QSettings
) -> tuple[MainWindow, SingleInstance] | None:
    """The window, painted, and this process's claim on the history; None when a
    window is open on it already (it was asked to come to the front). With nobody
    listening the claim waits until after the paint (QtNetwork: ~6 ms of imports);
    a start that lost the race in between hides its window again."""
    from client.services.storage.data_folder import instance_name

    name = instance_name()
    later = nobody_listening(name)
    instance = None if later else claim_single_instance(name)
    if instance is None and not later:
        return None
    window = MainWindow(settings, chat_view_later=True)
    window.installEventFilter(FirstPaintLog(window))
    window.show()
    app.processEvents()
    if instance is None:
        instance = claim_single_instance(name)
        if instance is None:
            window.hide()
            return None
    instance.bring_forward(window)
    window.finish_chat_view()
    app.setWindowIcon(app_icon())
    return window, instance


def run_app(
    url: str | None = None,
    api: str = "auto",
    model: str | None = None,
    lang: str | None = None,
    on_ready: Callable[[TachyApp], None] | None = None,
) -> int:
    """The app until its window closes; on_ready(app) runs once it is wired, before
    the loop (tests/app_process.py drives the real process through it)."""
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s")
    # httpx logs every request at INFO: warm-ups and polls would flood the terminal.
    logging.getLogger("httpx").setLevel(logging.WARNING)
    app = QApplication.instance() or QApplication(sys.argv)
    assert isinstance(app, QApplication)
    identify_app(app)
    settings = qt_settings()
    translators = install_translations(app, chosen_language(lang, settings))
    log.info("language %s (%d translation files)", QLocale().name(), len(translators))
    # The stylesheet for the system's light or dark scheme, kept in step; or the theme
    # chosen in View > Theme, before the first paint.
    SchemeFollower(app).choose(chosen_theme(settings))
    # Paint the window before the slow imports and wiring below.
    opened = first_window(app, settings)
    if opened is None:
        return 0  # the window already open came to the front
    window, instance = opened
    import asyncio

    import qasync

    from client.ui.common.async_errors import loop_exception_handler, report, spawn

    loop = qasync.QEventLoop(app)
    asyncio.set_event_loop(loop)
    loop.set_exception_handler(loop_exception_handler)
    track_async_generators(loop)
    # Exceptions in plain (sync) Qt slots: logged with their traceback, one sentence shown.
    sys.excepthook = lambda kind, error, tb: report(error.with_traceback(tb), "a Qt slot")
    # The window's close ends main(): cleanup runs while the loop still runs, then the
    # loop stops. aboutToQuit covers other ways of quitting.
    app.setQuitOnLastWindowClosed(False)
    quit_event = asyncio.Event()
    app.aboutToQuit.connect(quit_event.set)
    from client.services.storage.stores import open_stores

    tachy = TachyApp(open_stores(), window=window)
    tachy.window.closed.connect(quit_event.set)
    if not window.isVisible():  # closed while it was being wired
        quit_event.set()
    close_on_signals(loop, window)
    log.info("window ready at %.6f", time.time())
    if on_ready is not None:
        on_ready(tachy)
    freeze_start_up_heap()
    # Cycles are freed on this thread only: a Qt object freed off it crashes Qt.
    GuiThreadCollector(app).start()

    async def main() -> None:
        starting = spawn(tachy.start(url, api, model), "start")
        await quit_event.wait()
        starting.cancel()  # (quitting before the first server answered)
        await asyncio.wait({starting})
        await tachy.aclose()
        tachy.stores.close()
        instance.close()  # a start from now on opens a window of its own
        await loop.shutdown_asyncgens()

    with loop:
        loop.run_until_complete(main())
    return 0


def freeze_start_up_heap() -> None:
    """Move what start-up made (Qt wrappers, modules, the wired window: about 120,000
    objects) out of the cyclic collector's sight. Each full collection walks every
    tracked object: 60-116 ms on the GUI thread with them in (tests/perf/test_stream_lag.py
    saw them between answers), enough to stall a fast stream for several frames; with them
    frozen it walks only what the session made since. They are never freed either way."""
    gc.collect()
    gc.freeze()
