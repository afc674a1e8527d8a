"""Which server and model the chat uses: pickers, saved endpoints, the local engine.

At start: --url if given; else the detected local servers and saved endpoints (the
last one used first); when there is none, the embedded local engine starts by itself
in the background ("Starting local model…") and the window stays usable meanwhile.
API keys go to the keyring only (services.servers.save_api_key), looked up when a
backend is made.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import QCoreApplication, QObject, Signal

from client.services.errors import InvalidServerAddress, SecretsUnavailable, user_message
from client.services.servers.servers import (
    LOCAL_ENGINE_LABEL,
    ServerChoice,
    default_choice,
    detected_choices,
    local_engine_choice,
    normalize_url,
    save_api_key,
    server_choices,
    server_url,
    use_key_for_session,
)
from client.services.tachy import ManagedEngine, Tachy
from client.ui.chat.chat_page import ChatPage
from client.ui.common.async_errors import KeptTasks
from client.ui.common.error_text import error_text
from client.ui.common.noop_tr import QT_TRANSLATE_NOOP
from client.ui.servers.server_dialog import AddServerDialog

if TYPE_CHECKING:
    from client.services.planning.planner import Backend
    from client.ui.shell.main_window import MainWindow

STARTING_LOCAL = QT_TRANSLATE_NOOP("ServerController", "Starting local model…")


class ServerController(QObject):
    serverChanged = Signal(str, str, str)  # url, api, model (the HUD polls that server)

    def __init__(
        self,
        window: MainWindow,
        page: ChatPage,
        tachy: Tachy,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self.window = window
        self.page = page
        self.tachy = tachy
        self.saved = tachy.saved_servers
        self.current: ServerChoice | None = None
        self._engine_task: asyncio.Task[None] | None = None
        self._dialog: AddServerDialog | None = None
        bar = window.server_bar
        self.tasks = KeptTasks()  # choosing, detecting, starting the engine, saving
        # Called before a server or model the user picked goes on the session (the
        # Cascade menu turns the cascade off: one model now answers every question).
        self.choice_hooks: list[Callable[[], None]] = []
        bar.serverChosen.connect(lambda c: self.choose(c))
        bar.modelOnServerChosen.connect(self.choose)
        bar.modelChosen.connect(self._on_model)
        bar.addServerRequested.connect(self.open_add_server)
        page.chooseServerRequested.connect(self.show_server_list)
        page.useLocalRequested.connect(self.use_local)

    @property
    def engine(self) -> ManagedEngine | None:
        """The local engine, once made."""
        return self.tachy.engine

    # --- start ---------------------------------------------------------------------
    async def start(
        self, url: str | None = None, api: str = "auto", model: str | None = None
    ) -> None:
        if url:
            try:
                address = server_url(url)
            except InvalidServerAddress as error:
                # One sentence in the window; the picker still lists what was found.
                self.window.stage_label.setText(error_text(error.user_message))
                await self.refresh_choices()
                return
            where = address.split("://", 1)[-1]
            choice = ServerChoice(self.tr("Server at {where}").format(where=where), address, api)
            self.window.server_bar.set_choices([choice], choice)
            await self.select(choice, model)
            self.tasks.spawn(self.refresh_choices(), "detect servers")
            return
        choices = await self.refresh_choices()
        first = default_choice(choices, self.saved.last_used())
        if first is None:
            self.use_local()
        else:
            await self.select(first, model)

    async def refresh_choices(self) -> list[ServerChoice]:
        detected = await detected_choices()
        saved = self.saved.choices()
        extra = [self.current] if self.current is not None else []
        choices = server_choices([*saved, *extra], detected)
        self.window.server_bar.set_choices(choices, self.current)
        return choices

    # --- choosing ------------------------------------------------------------------
    def choose(self, choice: ServerChoice, model: str | None = None) -> None:
        """The user picked a server (and maybe one of its models) in the window."""
        self._user_chose()
        self.tasks.spawn(self.select(choice, model), "choose server")

    def _user_chose(self) -> None:
        for hook in self.choice_hooks:
            hook()

    async def select(self, choice: ServerChoice, model: str | None = None) -> None:
        backend = await self.tachy.backend(choice)
        self.current = choice
        names: list[str] = []
        try:
            names = [info.name for info in await backend.list_models()]
        except Exception as error:
            self.window.stage_label.setText(error_text(user_message(error)))
        if self.current is not choice:
            return  # another server was chosen while this one listed its models
        chosen = model or (names[0] if names else "")
        self.window.server_bar.set_models(names, chosen, choice)
        self._use(backend, chosen, choice)
        self.serverChanged.emit(normalize_url(choice.url), choice.api, chosen)
        self.saved.remember(choice)

    def _use(self, backend: Backend, model: str, choice: ServerChoice) -> None:
        made = self.tachy.session is None
        session = self.tachy.use(backend, model, choice)
        if made:
            self.page.set_session(session)

    def _on_model(self, name: str) -> None:
        self._user_chose()
        self.tachy.use_model(name)

    def show_server_list(self) -> None:
        self.window.server_bar.server_picker.setFocus()
        self.window.server_bar.server_picker.showPopup()

    # --- the local engine ----------------------------------------------------------
    def use_local(self) -> None:
        if self._engine_task is not None and not self._engine_task.done():
            return
        self.window.stage_label.setText(self.tr(STARTING_LOCAL))
        picker = self.window.server_bar.server_picker
        if picker.currentIndex() < 0:
            name = QCoreApplication.translate("ServerBar", LOCAL_ENGINE_LABEL)
            picker.setPlaceholderText(self.tr("{name} — starting…").format(name=name))
        self._engine_task = self.tasks.spawn(self._start_local(), "start local engine")

    async def _start_local(self) -> None:
        engine = self.tachy.local_engine()
        try:
            await engine.start()
        except Exception:
            self.window.stage_label.setText("")
            raise
        choice = local_engine_choice(engine.url)
        choices = [*self.window.server_bar.choices, choice]
        self.window.server_bar.set_choices(server_choices(choices, []), choice)
        await self.select(choice, engine.model)
        if self.window.stage_label.text() == self.tr(STARTING_LOCAL):
            self.window.stage_label.setText("")

    # --- saved endpoints -----------------------------------------------------------
    def open_add_server(self) -> None:
        if self._dialog is None:
            self._dialog = AddServerDialog(self.window)
            self._dialog.saved.connect(
                lambda *a: self.tasks.spawn(self._save_server(*a), "save server")
            )
            self._dialog.session_only.connect(self._use_key_for_session)
        self._dialog.show()  # non-modal: no nested exec(), and the chat stays usable
        self._dialog.raise_()
        self._dialog.activateWindow()

    def _use_key_for_session(self, name: str, url: str, api: str, api_key: str) -> None:
        saving = self._save_server(name, url, api, api_key, session_only=True)
        self.tasks.spawn(saving, "use a key for the session")

    async def _save_server(
        self, name: str, url: str, api: str, api_key: str, session_only: bool = False
    ) -> None:
        try:
            choice = self.saved.save(name, url, api)
        except (InvalidServerAddress, ValueError) as error:
            if self._dialog is not None:
                self._dialog.show_error(error_text(str(error)))
            return
        if choice is None:
            return
        if api_key and session_only:
            use_key_for_session(name, api_key)
        elif api_key:
            try:
                await save_api_key(name, api_key)
            except SecretsUnavailable as error:
                if self._dialog is not None:
                    self._dialog.offer_session_key(error_text(str(error)))
                return
        if self._dialog is not None:
            self._dialog.accept()
        await self.forget(choice)
        await self.refresh_choices()
        await self.select(choice)
        self.window.server_bar.set_choices(self.window.server_bar.choices, choice)

    async def forget(self, choice: ServerChoice) -> None:
        await self.tachy.backends.forget(choice)

    # --- quit ----------------------------------------------------------------------
    async def aclose(self) -> None:
        """Stop what is under way (choosing, starting the engine, saving)."""
        await self.tasks.aclose()
