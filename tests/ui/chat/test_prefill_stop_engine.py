"""The real window on the real local engine, reading a long question: the stage line
climbs in percent, and Esc during it stops the engine's reading (one to two batches
later; counted in CPU work, timed in tests/perf/test_engine_stop.py)."""

from __future__ import annotations

import re
import time
from typing import Any

import pytest
from PySide6.QtCore import Qt

from tests.engine_work import cpu_ticks, wait_until_idle, work_after_stop
from tests.ui.conftest import until

pytestmark = pytest.mark.engine
WORDS = "river stone light green window paper music garden silver morning table winter".split()
# The counts are QLocale numbers: "1,213" once a test has set an English default locale.
PERCENT = re.compile(r"Reading your question… (\d+) % \(([\d,]+) / ([\d,]+) tokens\)")


def test_escape_while_the_engine_reads_frees_it(
    local_engine: Any, make_app: Any, run: Any, qtbot: Any
) -> None:
    app = make_app(local_engine.url, model=local_engine.model, api="openai")
    w = app.window
    stamp = str(time.time_ns())  # nothing of this question is in any prompt cache
    w.composer.setPlainText(stamp + " " + " ".join(WORDS[(i * 5) % 12] for i in range(1200)))
    wait_until_idle(local_engine.url)
    before = cpu_ticks(local_engine.pid)
    qtbot.keyClick(w.composer, Qt.Key.Key_Return)
    seen: list[int] = []

    def climbed() -> bool:
        found = PERCENT.search(w.stage_label.text())
        if found and (not seen or int(found.group(1)) > seen[-1]):
            seen.append(int(found.group(1)))
        return len(seen) >= 2

    run(until(climbed, timeout_s=120), timeout_s=150)
    stopped_at = cpu_ticks(local_engine.pid)
    read = app.page.runner.generation.timeline.prefill  # the progress the Esc came after
    qtbot.keyClick(w.composer, Qt.Key.Key_Escape)
    run(until(lambda: not app.page.busy, timeout_s=60), timeout_s=90)
    after = work_after_stop(local_engine.pid, local_engine.url, stopped_at)
    assert read is not None and 0 < read.fraction < 1
    # Ticks a prompt token costs, over-counted (the engine read on while the label changed).
    rest = (stopped_at - before) / read.computed * (read.total - read.processed)
    print(f"\nseen {seen} %; engine: {after} ticks after Esc, the rest ~{rest:.0f} ticks")
    assert after < rest / 2, "the engine read on after Esc"
    assert "retry" in w.outcome_bar.buttons and w.send_button.isEnabled()
