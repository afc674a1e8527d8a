"""The Engine menu: speculative decoding for the local engine, remembered in QSettings.

A choice applies to the engine's next start; when the local engine is running and no
answer is under way it restarts at once (about a second: SmolLM2 loads in ~0.6 s), so
the choice is felt on the next message. Off by default: on free chat it gains nothing
measurable on a small CPU machine (tests/perf/test_engine_spec.py); it pays when the
answer copies the question (code to repeat with a change).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, QSettings
from PySide6.QtGui import QAction, QActionGroup
from PySide6.QtWidgets import QLabel, QMenuBar

from client.services.servers.servers import SPEC_CHOICES
from client.ui.common.noop_tr import QT_TRANSLATE_NOOP

if TYPE_CHECKING:
    from client.ui.servers.server_controller import ServerController

SPEC_KEY = "engine/spec"
# What each kind guesses from, as the menu says it; the `--spec` name is its tooltip.
SPEC_LABELS = {
    "": QT_TRANSLATE_NOOP("EngineMenu", "Off"),
    "ngram-simple": QT_TRANSLATE_NOOP("EngineMenu", "Repeats in the text (simple)"),
    "ngram-map-k": QT_TRANSLATE_NOOP("EngineMenu", "Repeats in the text (map)"),
    "ngram-mod": QT_TRANSLATE_NOOP("EngineMenu", "Repeats in the text (long runs)"),
    "ngram-cache": QT_TRANSLATE_NOOP("EngineMenu", "Repeats seen before (cache)"),
}


class EngineMenu(QObject):
    def __init__(
        self,
        menu_bar: QMenuBar,
        settings: QSettings,
        status: QLabel,
        servers: ServerController,
        busy: Callable[[], bool],
    ) -> None:
        super().__init__(menu_bar)
        self.settings, self.status, self.servers = settings, status, servers
        self.busy = busy  # an answer is under way: a restart would cut it
        self.menu = menu_bar.addMenu(self.tr("&Engine"))
        self.menu.setObjectName("engineMenu")
        spec_menu = self.menu.addMenu(self.tr("Speculative decoding"))
        self.group = QActionGroup(spec_menu)
        self.actions: dict[str, QAction] = {}
        for spec in ("", *SPEC_CHOICES):
            label = self.tr(SPEC_LABELS.get(spec, spec))
            action = QAction(label, spec_menu, checkable=True)
            action.setObjectName(f"spec-{spec or 'off'}")
            action.setToolTip(f"tachy serve-local --spec {spec or 'off'}")
            action.setChecked(spec == self.spec)
            action.triggered.connect(lambda _=False, s=spec: self.choose(s))
            self.group.addAction(action)
            spec_menu.addAction(action)
            self.actions[spec] = action
        self.servers.tachy.use_engine_spec(self.spec)

    @property
    def spec(self) -> str:
        stored = self.settings.value(SPEC_KEY)
        return stored if isinstance(stored, str) and stored in SPEC_CHOICES else ""

    def choose(self, spec: str) -> None:
        self.settings.setValue(SPEC_KEY, spec)
        self.settings.sync()
        restart = self.servers.tachy.use_engine_spec(spec)
        engine = self.servers.tachy.engine
        if restart and engine is not None and not self.busy():
            self.servers.tasks.spawn(engine.restart(), "restart the local engine")
            self.status.setText(self.tr("Restarting the local model with the new setting…"))
        else:
            self.status.setText(self.tr("The local model uses it from its next start."))
