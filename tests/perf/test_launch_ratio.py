"""The window's first paint against a bare PySide6 QApplication + QMainWindow started
the same way (a fresh `python`, the same display platform and environment), measured
in the same run, launches alternating so load hits both alike.

Issue 20's goal is 1.5x; this run's figures were 1.91x (0.445 s vs 0.232 s) after the
lazy imports, 2.17x before the last of them. The assertion guards against a slide back
(BOUND) and the report says where the goal stands."""

from __future__ import annotations

import statistics
import sys
from pathlib import Path

from tests.perf.test_ui_perf import (  # noqa: F401  (lab_url is a fixture)
    BARE_WINDOW,
    child_env,
    lab_url,
    report,
    seconds_to,
)

PAIRS = 7
GOAL = 1.5
BOUND = 2.3  # a regression guard above today's 1.9x, with room for a busy 2-core machine


def test_window_painted_close_to_a_bare_qt_window(lab_url: str, tmp_path: Path) -> None:  # noqa: F811
    env = child_env(tmp_path / "data")
    app_args = [sys.executable, "-m", "client", "--url", lab_url]
    bare_args = [sys.executable, "-c", BARE_WINDOW]
    seconds_to(app_args, env, "window first painted at")  # first start: creates the data folder
    tachy, bare = [], []
    for _ in range(PAIRS):
        bare += seconds_to(bare_args, env, "first painted at")
        tachy += seconds_to(app_args, env, "window first painted at")
    ratio = statistics.median(tachy) / statistics.median(bare)
    report(
        "launch vs bare window",
        f"tachy median {statistics.median(tachy):.3f} s, bare QMainWindow median "
        f"{statistics.median(bare):.3f} s (n={PAIRS} each, alternating); ratio {ratio:.2f} "
        f"(goal {GOAL}, bound {BOUND})",
    )
    assert ratio < BOUND
