"""Which server and model the chat uses: pickers, saved endpoints, the local engine.

At start: --url if given; else the detected local servers and saved endpoints (the
last one used first); when there is none, the embedded local engine starts by itself
in the background ("Starting local model…") and the window stays usable meanwhile.
The local engine is always listed, started or not (choosing it starts it).

A chosen server that cannot be reached, or still loads its model, is asked again
(Tachy.reach: the policy) while the reach bar says so and offers "Try now" and "Use
the local model"; when it answers, the chat goes on: a question kept meanwhile goes out.
API keys go to the keyring only (services.servers.save_api_key), looked up when a
backend is made.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Signal

from client.services.errors import InvalidServerAddress, SecretsUnavailable, user_message
from client.services.fleet.pool import pool_name
from client.services.servers.reachability import WAITS, Waiting, WaitKind
from client.services.servers.readiness import listed_when_ready
from client.services.servers.servers import (
    NOT_STARTED_URL,
    ServerChoice,
    default_choice,
    detected_choices,
    is_started,
    local_engine_choice,
    local_model_name,
    normalize_url,
    save_api_key,
    server_choices,
    server_url,
    use_key_for_session,
    with_local_engine,
)
from client.services.tachy import ManagedEngine, Tachy
from client.ui.chat.chat_page import ChatPage
from client.ui.common.async_errors import KeptTasks
from client.ui.common.error_text import error_text
from client.ui.common.noop_tr import QT_TRANSLATE_NOOP
from client.ui.common.server_names import shown_name
from client.ui.servers.keyring_notice import KeyringNotice
from client.ui.servers.reach_bar import ReachBar
from client.ui.servers.server_dialog import AddServerDialog

if TYPE_CHECKING:
    from client.services.planning.planner import Backend
    from client.ui.servers.server_bar import ServersWindow

STARTING_LOCAL = QT_TRANSLATE_NOOP("ServerController", "Starting local model…")
KEPT_FOR_LOCAL = QT_TRANSLATE_NOOP(
    "ServerController",
    "Starting local model… your question is kept and goes out when it is ready.",
)


class ServerController(QObject):
    serverChanged = Signal(str, str, str)  # url, api, model (the HUD polls that server)
    waitingChanged = Signal(object)  # Waiting, or None once the chosen server answers

    def __init__(
        self,
        window: ServersWindow,
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
        self._reaching: asyncio.Task[None] | None = None
        self.waiting: Waiting | None = None  # the chosen server does not answer yet
        self.reach_bar = ReachBar(window)
        window.centre_layout.insertWidget(0, self.reach_bar)
        self.keyring_notice = KeyringNotice(window)
        window.centre_layout.insertWidget(0, self.keyring_notice)
        tachy.backends.keyring_listeners.append(self.keyring_notice.show_refusal)
        self.reach_bar.tryNowRequested.connect(tachy.try_now)
        self.reach_bar.useLocalRequested.connect(self.use_local)
        page.questionKept.connect(self.say_question_kept)
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

    @property
    def starting_local(self) -> bool:
        """The local engine is starting (asked for, not yet answering)."""
        return self._engine_task is not None and not self._engine_task.done()

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
            self._list([choice], choice)
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
        saved = [*self.saved.choices(), *self.tachy.pool_choices()]
        extra = [self.current] if self.current is not None else []
        choices = server_choices([*saved, *extra], detected)
        return self._list(choices, self.current)

    def _list(
        self, choices: list[ServerChoice], current: ServerChoice | None
    ) -> list[ServerChoice]:
        """Show these servers and the local engine, started or not, and its model."""
        engine = self.tachy.engine
        started = engine is not None and engine.running
        local = local_engine_choice(engine.url if started else NOT_STARTED_URL)  # type: ignore[union-attr]
        listed = with_local_engine(choices, local)
        bar = self.window.server_bar
        bar.set_choices(listed, current)
        if not started:
            bar.set_server_models(local, [engine.model if engine else local_model_name()])
        return listed

    # --- choosing ------------------------------------------------------------------
    def choose(self, choice: ServerChoice, model: str | None = None) -> None:
        """The user picked a server (and maybe one of its models) in the window."""
        self._user_chose()
        self.page.hold_questions(True)  # now: a question asked next waits for this server
        self.tasks.spawn(self.select(choice, model), "choose server")

    def _user_chose(self) -> None:
        for hook in self.choice_hooks:
            hook()

    async def select(self, choice: ServerChoice, model: str | None = None) -> None:
        self._stop_waiting()
        if not is_started(choice):  # the local engine, listed before its start
            self.use_local()
            return
        previous, self.current = self.current, choice
        self.page.hold_questions(True)  # until it answers: never to the one picked before
        try:
            backend = await self.tachy.backend(choice)
            names = await self._model_names(backend)
        except WAITS as error:  # not answering now, or loading its model: wait for it
            await self._wait_for(choice, model, error)
            return
        except Exception as error:  # (a pool's server unknown ...): the chat stays where it was
            if self.current is choice:
                self._not_switched(choice, previous, error)
                self.page.hold_questions(False)
            return
        if self.current is not choice:
            return  # another server was chosen while this one listed its models
        self._chosen(choice, backend, names, model)
        self.page.hold_questions(False)  # it answers: a question kept meanwhile goes out

    async def _model_names(self, backend: Backend) -> list[str]:
        try:
            return [info.name for info in await listed_when_ready(backend)]
        except WAITS:
            raise
        except Exception as error:
            self.window.stage_label.setText(error_text(user_message(error)))
            return []

    def _chosen(
        self, choice: ServerChoice, backend: Backend, names: list[str], model: str | None
    ) -> None:
        chosen = model or (names[0] if names else "")
        self.window.server_bar.set_models(names, chosen, choice)
        self._use(backend, chosen, choice)
        pool = pool_name(choice) is not None  # its HUD server view: its first server's
        url, api = (backend.base_url, backend.api) if pool else (choice.url, choice.api)
        self.serverChanged.emit(normalize_url(url), api, chosen)
        self.saved.remember(choice)

    def _not_switched(
        self, choice: ServerChoice, previous: ServerChoice | None, error: Exception
    ) -> None:
        """The picker goes back to the server that answers, and the window says why."""
        self.current = previous
        bar = self.window.server_bar
        bar.set_choices(bar.choices, bar.server_in_use or previous)
        why = error_text(user_message(error))
        in_use = bar.server_in_use
        if in_use is None:
            text = self.tr("{name} cannot be used: {why}")
        else:
            text = self.tr("{name} cannot be used: {why} Answers still come from {current}.")
        name = shown_name(choice)
        current = shown_name(in_use) if in_use is not None else ""
        self.window.stage_label.setText(text.format(name=name, why=why, current=current))

    # --- a chosen server that does not answer yet ---------------------------------
    async def _wait_for(self, choice: ServerChoice, model: str | None, error: Exception) -> None:
        self.page.hold_questions(True)  # asked meanwhile: kept for it, sent when it answers
        if choice in self.tachy.backends:  # its API is known: as before, the chat goes
            self._chosen(choice, await self.tachy.backend(choice), [], model)  # there
        self._reaching = self.tasks.spawn(self._reach(choice, model, error), "reach the server")

    async def _reach(self, choice: ServerChoice, model: str | None, error: Exception) -> None:
        backend, names = await self.tachy.reach(
            choice, lambda waiting: self._show_waiting(choice, waiting), error
        )
        kept = self._kept_text()
        self._show_waiting(choice, None)
        if self.window.stage_label.text() == kept:
            self.window.stage_label.setText("")  # (before the kept question goes out)
        if self.current is choice:
            self._chosen(choice, backend, names, model)
            self.page.hold_questions(False)

    def _show_waiting(self, choice: ServerChoice, waiting: Waiting | None) -> None:
        self.waiting = waiting
        self.reach_bar.show_waiting(shown_name(choice), waiting)
        self.waitingChanged.emit(waiting)
        self.say_question_kept()

    def _stop_waiting(self) -> None:
        task, self._reaching = self._reaching, None
        if task is not None and not task.done():
            task.cancel()
        if self.waiting is not None:
            self.waiting = None
            self.reach_bar.show_waiting("", None)
            self.waitingChanged.emit(None)

    def say_question_kept(self) -> None:
        """A question asked while no server answers is kept: say until when, from what
        this controller knows (a server's wait, the local engine starting)."""
        page = self.page
        if page.kept_question is not None and not page.busy:  # not taken back with Stop
            self.window.stage_label.setText(self._kept_text())

    def _kept_text(self) -> str:
        if self.waiting is not None and self.waiting.kind is WaitKind.LOADING:
            return self.tr("Your question is kept and goes out when the model is loaded.")
        if self.waiting is None and self.starting_local:
            return self.tr(KEPT_FOR_LOCAL)
        return self.tr("Your question is kept and goes out when the server answers.")

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
        self._stop_waiting()
        if self._engine_task is not None and not self._engine_task.done():
            return
        self.window.stage_label.setText(self.tr(STARTING_LOCAL))
        engine = self.tachy.engine
        if engine is None or not engine.running:  # the picker shows what is starting
            self._list(self.window.server_bar.choices, local_engine_choice(NOT_STARTED_URL))
        self._engine_task = self.tasks.spawn(self._start_local(), "start local engine")

    async def _start_local(self) -> None:
        engine = self.tachy.local_engine()
        try:
            await engine.start()
        except Exception:
            self.window.stage_label.setText("")
            raise
        choice = local_engine_choice(engine.url)
        self._list(self.window.server_bar.choices, choice)
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
        if self._dialog is not None:  # a router's metrics address, for the Server tab
            self.saved.set_metrics_url(choice.url, self._dialog.metrics_address)
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
