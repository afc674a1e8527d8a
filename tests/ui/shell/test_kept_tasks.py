"""Every long-lived task the window starts is kept and cancelled on close: none runs
on after quit against closed backends, and a lab starting at quit is stopped."""

from __future__ import annotations

import ast
import asyncio
import threading
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QSettings

import client
import client.lab
from client.services.storage.stores import open_stores
from client.ui.common.async_errors import KeptTasks
from client.ui.shell.app import TachyApp
from tests.ui.conftest import NoEngine, until


def test_kept_tasks_are_cancelled_and_awaited_on_close(run: Any) -> None:
    tasks = KeptTasks()
    stopped: list[str] = []

    async def forever(name: str) -> None:
        try:
            await asyncio.Event().wait()
        finally:
            stopped.append(name)

    async def scenario() -> None:
        first, second = tasks.spawn(forever("a")), tasks.spawn(forever("b"))
        done = tasks.spawn(asyncio.sleep(0))
        await done
        assert len(tasks) == 2  # a finished task is not kept
        await tasks.aclose()
        assert first.cancelled() and second.cancelled() and len(tasks) == 0

    run(scenario())
    assert sorted(stopped) == ["a", "b"]


@pytest.fixture
def app(qtbot: Any, run: Any, data_dir: Path) -> Any:
    stores = open_stores(data_dir / "tachy.sqlite3")
    settings = QSettings(str(data_dir / "w.ini"), QSettings.Format.IniFormat)
    tachy = TachyApp(stores, settings, engine_factory=NoEngine, warm_models=False)
    yield tachy
    stores.close()
    tachy.window.close()


def test_quit_cancels_detection_and_the_engine_start(
    app: Any, server: Any, run: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    detecting = asyncio.Event()

    async def slow_detection() -> list[Any]:
        detecting.set()
        await asyncio.Event().wait()  # a detection that never ends
        return []

    monkeypatch.setattr("client.ui.servers.server_controller.detected_choices", slow_detection)
    run(app.start(server.url, "ollama", "scripted:1b"))  # detection goes on after start
    run(until(detecting.is_set))
    app.servers.use_local()  # NoEngine: "starting" until cancelled
    engine_task = app.servers._engine_task
    assert len(app.servers.tasks) == 2
    run(app.aclose())
    assert engine_task.cancelled() and len(app.servers.tasks) == 0


def test_quit_while_the_lab_starts_leaves_no_lab_running(
    app: Any, server: Any, run: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    started: list[Any] = []
    release = threading.Event()
    real_start = client.lab.run_in_thread

    def slow_lab_start(*args: Any) -> Any:
        release.wait(10)  # the lab is still starting when the window closes
        lab = real_start(*args)
        started.append(lab)
        return lab

    monkeypatch.setattr(client.lab, "run_in_thread", slow_lab_start)
    run(app.start(server.url, "ollama", "scripted:1b"))
    app.demo.start()
    starting = app.demo.task
    closing = asyncio.ensure_future(app.aclose(), loop=asyncio.get_event_loop())
    run(until(starting.done))
    release.set()
    run(until(lambda: started and not started[0].thread.is_alive()))
    run(until(closing.done))
    assert starting.cancelled() and app.demo.lab is None


def test_no_task_is_started_and_forgotten() -> None:
    """A `spawn(...)`, `create_task(...)` or `ensure_future(...)` whose result is
    dropped can be neither cancelled on close nor awaited: none in client/ (an owner's
    `self.tasks.spawn(...)` is kept by its KeptTasks)."""
    starters = {"spawn", "create_task", "ensure_future"}
    dropped = []
    for path in sorted(Path(client.__file__).parent.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Expr) and isinstance(node.value, ast.Call):
                called = node.value.func
                if isinstance(called, ast.Attribute):  # KeptTasks.spawn keeps what it starts
                    name = "" if called.attr == "spawn" else called.attr
                else:
                    name = getattr(called, "id", "")
                if name in starters:
                    dropped.append(f"{path.name}:{node.lineno}")
    assert not dropped, dropped
