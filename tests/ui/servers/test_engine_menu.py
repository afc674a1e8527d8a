"""The Engine menu: speculative decoding for the local engine, kept in QSettings."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QLabel, QMenuBar

from client.services.storage.stores import Stores
from client.services.tachy import Tachy
from client.ui.servers.engine_menu import SPEC_KEY, EngineMenu


class FakeEngine:
    def __init__(self) -> None:
        self.running = True
        self.restarts = 0
        from client.backends.engine.engine_settings import EngineSettings

        self.settings = EngineSettings(threads=1)

    async def restart(self) -> None:
        self.restarts += 1


class FakeServers:
    """The server controller's part the menu uses: the app's Tachy and its tasks."""

    def __init__(self, engine: Any = None) -> None:
        self.tachy = Tachy(Stores(), warm_models=False)
        self.tachy.engine = engine  # (None: the real engine is made on first use)
        self.spawned: list[str] = []

    @property
    def tasks(self) -> FakeServers:
        return self

    def spawn(self, coro: Any, name: str = "") -> None:
        coro.close()  # not run: the test only checks that a restart was asked for
        self.spawned.append(name)


def _menu(tmp_path: Path, servers: FakeServers, busy: bool = False) -> tuple[EngineMenu, QLabel]:
    settings = QSettings(str(tmp_path / "window.ini"), QSettings.Format.IniFormat)
    status = QLabel()
    bar = QMenuBar()
    menu = EngineMenu(bar, settings, status, servers, lambda: busy)
    menu.bar = bar  # type: ignore[attr-defined]  # keep the menu bar alive with the test
    return menu, status


def test_off_by_default_and_a_choice_is_kept_for_the_next_engine(qapp: Any, tmp_path: Path) -> None:
    servers = FakeServers()
    menu, status = _menu(tmp_path, servers)
    assert menu.actions[""].isChecked() and set(menu.actions) >= {"", "ngram-simple", "ngram-mod"}
    assert servers.tachy.local_engine().settings.spec == ""
    menu.actions["ngram-mod"].trigger()
    assert menu.settings.value(SPEC_KEY) == "ngram-mod"
    assert servers.tachy.local_engine().settings.spec == "ngram-mod"  # made, never started
    assert Tachy(Stores()).local_engine().settings.spec == ""  # (a new app asks the menu)
    assert "next start" in status.text()
    again, _ = _menu(tmp_path, FakeServers())  # the next run of the app
    assert again.actions["ngram-mod"].isChecked() and again.spec == "ngram-mod"


def test_a_running_idle_engine_restarts_with_it_a_busy_one_waits(qapp: Any, tmp_path: Path) -> None:
    engine = FakeEngine()
    servers = FakeServers(engine)
    menu, status = _menu(tmp_path, servers)
    menu.choose("ngram-simple")
    assert engine.settings.spec == "ngram-simple" and servers.spawned
    assert "Restarting" in status.text()
    busy_engine = FakeEngine()
    busy_servers = FakeServers(busy_engine)
    busy, busy_status = _menu(tmp_path / "b", busy_servers, busy=True)
    busy.choose("ngram-cache")
    assert busy_engine.settings.spec == "ngram-cache" and not busy_servers.spawned
    assert "next start" in busy_status.text()
