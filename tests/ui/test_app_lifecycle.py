"""`tachy` as a process: the window opens, closes, cleans up and exits 0."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

SCRIPT = """
import sys
from PySide6.QtCore import QTimer
import client.ui.app as app_module

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

original_close = app_module.Stores.close

def close(self):
    original_close(self)
    print("DATABASE CLOSED")

app_module.TachyApp.start = start
app_module.TachyApp.aclose = aclose
app_module.Stores.close = close
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
        cwd=Path(__file__).resolve().parents[2],
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert "CLEANED UP" in done.stdout
    assert "Traceback" not in done.stderr
    assert (tmp_path / "window.ini").exists()  # the layout was remembered
    assert (tmp_path / "tachy.sqlite3").exists()
    assert "DATABASE CLOSED" in done.stdout  # queued writes finished, then closed
