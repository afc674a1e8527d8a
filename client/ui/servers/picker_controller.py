"""Fills the model picker beyond the server in use: the other servers' models, each
model's state ("cold", "loading…", "warm · 28 min left") and its last measured time
to first token, and the saved cascade's entry; choosing that entry turns the cascade on
as the Cascade menu's "Use the cascade" does.

Nothing is asked before the user opens the picker (no server is probed at every
start): opening it lists the other servers' models (again after a minute), reads which
models are loaded (Ollama's /api/ps) and, the first time, the last TTFTs from the
metrics store (client.services.servers.model_overview); groups appear as their servers answer.
Meanwhile the warmer's state of the model in use and each answer's own TTFT update the
rows without asking anyone, and "N min left" counts down every 30 s.
"""

from __future__ import annotations

import logging
import time
from typing import TYPE_CHECKING

from PySide6.QtCore import QCoreApplication, QObject, QTimer

from client.core.printable import visible
from client.services.cascade.saved_cascade import CascadeProfile
from client.services.planning.planner import is_cascade
from client.services.servers.model_overview import last_ttfts, loaded_models, model_names
from client.services.servers.model_status import ModelStatus
from client.services.servers.servers import is_started
from client.ui.common.async_errors import KeptTasks
from client.ui.common.status_text import duration_text, model_state_text

if TYPE_CHECKING:
    import asyncio

    from client.services.chat.generation import Generation
    from client.services.servers.servers import ServerChoice
    from client.ui.servers.server_controller import ServerController

log = logging.getLogger(__name__)
LIST_AGAIN_S = 60.0  # another server's models are listed again after this long
COUNTDOWN_MS = 30_000


def cascade_label(profile: CascadeProfile) -> str | None:
    """ "Cascade · fast SmolLM2-135M · strong qwen2.5:7b"; None until both are chosen."""
    if profile.fast is None or profile.strong is None:
        return None
    text = QCoreApplication.translate("ModelPicker", "Cascade · fast {fast} · strong {strong}")
    return text.format(fast=visible(profile.fast.model), strong=visible(profile.strong.model))


def ttft_text(ms: float) -> str:
    return QCoreApplication.translate("ModelPicker", "TTFT {time}").format(time=duration_text(ms))


class ModelPickerController(QObject):
    """The shell connects the picker's Cascade entry to the Cascade menu and the menu's
    changes to show_cascade (client/ui/cascade is over this area)."""

    def __init__(self, servers: ServerController) -> None:
        super().__init__(servers.window)
        self.servers, self.page, self.tachy = servers, servers.page, servers.tachy
        self.bar = servers.window.server_bar
        self.tasks = KeptTasks()
        self._listed_at: dict[object, float] = {}  # server key -> time.monotonic()
        self._states: dict[tuple[object, str], ModelStatus] = {}
        self._ttfts: dict[tuple[str, str], float] | None = None  # (server, model) -> ms
        self._refreshing: asyncio.Task[None] | None = None
        self._again = False
        self._closed = False
        self._countdown = QTimer(self)
        self._countdown.setInterval(COUNTDOWN_MS)
        self._countdown.timeout.connect(self.show_details)
        self._countdown.start()
        self._connect()
        self.show_cascade()

    def _connect(self) -> None:
        self.bar.model_picker.popupOpened.connect(self.refresh)
        self.bar.choicesChanged.connect(self._on_choices_changed)
        self.page.runner.ended.connect(self._on_answer_ended)
        self.servers.waitingChanged.connect(lambda _waiting: self.show_details())
        warming = self.tachy.warming
        if warming is not None:
            warming.warmer.add_listener(lambda _status: self.show_details())

    # --- reading -------------------------------------------------------------------
    def refresh(self) -> None:
        """Read the lists, states and TTFTs again (once more after a read under way)."""
        if self._closed:
            return  # (the app is closing: its backends are, or soon will be)
        if self._refreshing is not None and not self._refreshing.done():
            self._again = True
            return
        self._refreshing = self.tasks.spawn(self._refresh(), "listing models")

    async def _refresh(self) -> None:
        import asyncio

        self._again = False
        try:
            due = [choice for choice in self.bar.choices if self._list_due(choice)]
            await asyncio.gather(*(self._list(choice) for choice in due))
            await self._read_states()
            if self._ttfts is None:  # once (a few ms); then each answer's own figure
                self._ttfts = last_ttfts(self.tachy.stores)
        except Exception as error:  # only figures beside the names: the picker works on
            log.info("the models' states or TTFTs cannot be read: %s", error)
        self.show_details()
        if self._again and not self._closed:
            self._refreshing = self.tasks.spawn(self._refresh(), "listing models")

    def _list_due(self, choice: ServerChoice) -> bool:
        if not is_started(choice):
            return False  # the local engine before its start: its model is known
        for in_use in (self.bar.server_in_use, self.bar.current_choice()):
            if in_use is not None and in_use.key == choice.key:
                return False  # listed when it was chosen
        listed = self._listed_at.get(choice.key)
        return listed is None or time.monotonic() - listed > LIST_AGAIN_S

    async def _list(self, choice: ServerChoice) -> None:
        names: list[str] | None = None
        try:
            names = await model_names(await self.servers.tachy.backend(choice))
            self._listed_at[choice.key] = time.monotonic()  # (a failure: tried again)
        except Exception as error:  # refused, timed out, not an LLM server: "not reachable"
            log.info("listing the models of %s failed: %r", choice.name, error)
        self.bar.set_server_models(choice, names)

    async def _read_states(self) -> None:
        states: dict[tuple[object, str], ModelStatus] = {}
        for choice in self.bar.model_groups():
            names = self.bar.models_of(choice) if is_started(choice) else []
            try:
                backend = await self.servers.tachy.backend(choice) if names else None
            except Exception:
                backend = None
            loaded = await loaded_models(backend, names) if backend is not None else {}
            if loaded is None:  # no answer this time: what was known stays
                kept = {k: v for k, v in self._states.items() if k[0] == choice.key}
                states.update(kept)
                continue
            states.update({(choice.key, name): status for name, status in loaded.items()})
        self._states = states

    def _on_choices_changed(self) -> None:
        popup = self.bar.model_picker.popup
        if popup is not None and popup.isVisible():
            self.refresh()

    def _on_answer_ended(self, generation: Generation, _key: int) -> None:
        route, finished = generation.route, generation.finished
        ttft = finished.metrics.ttft_ms if finished is not None else None
        if route is not None and ttft is not None and self._ttfts is not None:
            self._ttfts[(route.server_name, route.model)] = ttft
            self.show_details()

    # --- showing -------------------------------------------------------------------
    def show_details(self) -> None:
        texts = {key: model_state_text(status) for key, status in self._states.items()}
        in_use, session = self.bar.server_in_use, self.page.session
        warming = self.tachy.warming
        if in_use is not None and self.servers.waiting is not None:
            # It does not answer now: no state it had before (warm, N min left) holds.
            texts = {key: text for key, text in texts.items() if key[0] != in_use.key}
        elif in_use is not None and session is not None and warming is not None:
            if warming.warmer.status.state is not None:  # the warmer knows best
                texts[(in_use.key, session.model)] = model_state_text(warming.warmer.status)
        keys = {choice.name: choice.key for choice in self.bar.model_groups()}
        for (server, model), ms in (self._ttfts or {}).items():
            key = keys.get(server)
            if key is not None:
                state = texts.get((key, model), "")
                texts[(key, model)] = " · ".join(t for t in (state, ttft_text(ms)) if t)
        self.bar.set_details({key: text for key, text in texts.items() if text})

    def show_cascade(self) -> None:
        session = self.page.session
        active = session is not None and is_cascade(session.routes)
        self.bar.set_cascade(cascade_label(self.tachy.cascade.load()), active)

    async def aclose(self) -> None:
        self._closed = True
        self._countdown.stop()
        await self.tasks.aclose()
