"""Two real `tachy` processes on one history: the second brings the first to the front
and exits; `tachy metrics` reads the history while the window writes to it. In one
process: the claim that waits for the first paint, and the start that lost the race."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtWidgets import QApplication, QWidget

from client.core.metrics import RequestMetrics
from client.services.storage.data_folder import instance_name
from client.store.db import Database
from client.store.metrics_store import MetricsStore
from client.ui.shell import app as app_module
from client.ui.shell.app import claim_single_instance, first_window, nobody_listening, qt_settings
from client.ui.shell.main_window import MainWindow

ROOT = Path(__file__).resolve().parents[3]
APP = [sys.executable, "-m", "client", "--url", "http://127.0.0.1:9", "--api", "ollama"]


class Running:
    """A `tachy` process whose log lines (stderr) are collected as they come."""

    def __init__(self, env: dict[str, str]) -> None:
        self.process = subprocess.Popen(
            APP, env=env, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True
        )
        self.lines: list[str] = []
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.process.stderr is not None
        for line in self.process.stderr:
            self.lines.append(line)

    def wait_for(self, text: str, timeout_s: float = 60.0) -> str:
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            for line in list(self.lines):
                if text in line:
                    return line
            if self.process.poll() is not None and not self._reader.is_alive():
                break
            time.sleep(0.05)
        raise AssertionError(f"no {text!r} in the log:\n{''.join(self.lines)[-3000:]}")

    def stop(self) -> int:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
        code = self.process.wait(timeout=60)
        self._reader.join(timeout=60)
        return code


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    return {
        **os.environ,
        "QT_QPA_PLATFORM": "offscreen",
        "TACHY_DATA_DIR": str(tmp_path / "data"),
        "PYTHONPATH": str(ROOT),
    }


@pytest.fixture
def first(env: dict[str, str]) -> Iterator[Running]:
    running = Running(env)
    try:
        running.wait_for("window ready")
        yield running
    finally:
        if running.process.poll() is None:
            running.process.kill()
            running.process.wait(timeout=60)


def test_a_second_tachy_brings_the_first_window_forward(
    first: Running, env: dict[str, str]
) -> None:
    second = subprocess.run(APP, env=env, cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert second.returncode == 0, second.stderr[-2000:]
    assert "already open on this history" in second.stderr
    assert "window ready" not in second.stderr  # it never made a window of its own
    first.wait_for("a second start brought the window to the front")
    assert first.stop() == 0
    # Closed: the next start opens a window of its own.
    again = Running(env)
    try:
        again.wait_for("window ready")
    finally:
        assert again.stop() == 0


def test_a_killed_window_leaves_no_lock_behind(first: Running, env: dict[str, str]) -> None:
    first.process.kill()  # SIGKILL: its socket is left on disk
    first.process.wait(timeout=60)
    after = Running(env)
    try:
        after.wait_for("window ready")
    finally:
        assert after.stop() == 0


def test_tachy_metrics_reads_while_the_window_writes(
    first: Running, env: dict[str, str], tmp_path: Path
) -> None:
    """The window holds the database open; another connection writes request metrics
    as a second program would, and `tachy metrics` reads them: never 'locked'."""
    metrics = RequestMetrics(ttft_ms=42.0, e2el_ms=120.0, output_tokens=10)
    written = 0
    with Database(tmp_path / "data" / "tachy.sqlite3") as db:
        store = MetricsStore(db)
        for round_number in range(3):
            for _ in range(20):
                store.record(metrics, server="http://x", model="m", outcome="complete")
                written += 1
            done = subprocess.run(
                [sys.executable, "-m", "client", "metrics", "--format", "json"],
                env=env,
                cwd=ROOT,
                capture_output=True,
                text=True,
                timeout=60,
            )
            assert done.returncode == 0, done.stderr
            assert "locked" not in done.stderr
            assert json.loads(done.stdout)["n"] == written, round_number
    assert first.process.poll() is None  # the window is still open
    assert first.stop() == 0


def shown_windows() -> list[QWidget]:
    shown = QApplication.topLevelWidgets()
    return [w for w in shown if isinstance(w, MainWindow) and w.isVisible()]


def test_with_nobody_listening_the_window_is_painted_then_claims(qapp, data_dir: Path) -> None:
    name = instance_name()
    assert nobody_listening(name)  # no socket file: the claim (QtNetwork) waits
    opened = first_window(qapp, qt_settings())
    assert opened is not None
    window, instance = opened
    try:
        assert not nobody_listening(name)  # claimed after the paint: a second start sees it
        assert window.findChild(QWidget, "chatView") is window.chat_view  # not the stand-in
    finally:
        instance.close()
        window.close()
    assert nobody_listening(name)


def test_a_start_that_lost_the_race_hides_its_window(
    qapp, qtbot, data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two starts at once: both found no socket; the one that claims second brings the
    other forward and hides its own window again."""
    running = claim_single_instance(instance_name())
    assert running is not None
    monkeypatch.setattr(app_module, "nobody_listening", lambda name: True)  # looked before
    try:
        with qtbot.waitSignal(running.raised, timeout=60_000):
            assert first_window(qapp, qt_settings()) is None
        assert shown_windows() == []
    finally:
        running.close()
