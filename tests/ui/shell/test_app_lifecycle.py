"""`tachy` as a process: the window opens, closes, cleans up and exits 0."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = """
import sys
from PySide6.QtCore import QTimer
import client.services.storage.stores as stores_module
import client.ui.shell.app as app_module

closed = []
original_start = app_module.TachyApp.start
original_aclose = app_module.TachyApp.aclose

async def start(self, *args, **kwargs):
    await original_start(self, *args, **kwargs)
    assert self.window.isVisible()
    QTimer.singleShot(50, self.window.close)

async def aclose(self):
    await original_aclose(self)
    closed.append(True)

original_close = stores_module.Stores.close

def close(self):
    original_close(self)
    print("DATABASE CLOSED")

app_module.TachyApp.start = start
app_module.TachyApp.aclose = aclose
stores_module.Stores.close = close
code = app_module.run_app(url="http://127.0.0.1:9", api="ollama", model="m")
print("CLEANED UP" if closed else "NO CLEANUP")
sys.exit(code)
"""


def test_window_closes_cleans_up_and_exits_zero(tmp_path: Path) -> None:
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "TACHY_DATA_DIR": str(tmp_path)}
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        cwd=Path(__file__).resolve().parents[3],
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert "CLEANED UP" in done.stdout
    assert "Traceback" not in done.stderr
    assert (tmp_path / "window.ini").exists()  # the layout was remembered
    assert (tmp_path / "tachy.sqlite3").exists()
    assert "DATABASE CLOSED" in done.stdout  # queued writes finished, then closed


SIGNAL_SCRIPT = """
import client.services.storage.stores as stores_module
import client.ui.shell.app as app_module

original_close = stores_module.Stores.close

def close(self):
    original_close(self)
    print("DATABASE CLOSED", flush=True)

stores_module.Stores.close = close
raise SystemExit(app_module.run_app(url="http://127.0.0.1:9", api="ollama", model="m"))
"""


@pytest.mark.parametrize("number", [signal.SIGTERM, signal.SIGINT])
def test_terminate_or_ctrl_c_closes_like_the_close_button(tmp_path: Path, number: int) -> None:
    """Logging out sends SIGTERM; Ctrl+C in the terminal, SIGINT: both close the window
    and clean up (the database is closed, the layout saved), then exit 0."""
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "TACHY_DATA_DIR": str(tmp_path)}
    child = subprocess.Popen(
        [sys.executable, "-c", SIGNAL_SCRIPT],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=Path(__file__).resolve().parents[3],
    )
    try:
        assert child.stderr is not None
        for line in child.stderr:  # the app logs to stderr
            if "window ready" in line:
                break
        child.send_signal(number)
        out, err = child.communicate(timeout=60)
    finally:
        child.kill()
    assert child.returncode == 0, err[-2000:]
    assert "DATABASE CLOSED" in out
    assert "Traceback" not in err
    assert (tmp_path / "window.ini").exists()  # the layout was saved on the way out
