"""The real window on the real local engine, reading a long question: the stage line
climbs in percent, and Esc during it frees the engine's CPU one to two batches later."""

from __future__ import annotations

import re
import time
from typing import Any

import pytest
from PySide6.QtCore import Qt

from tests.engine_cpu import LastTick
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
    qtbot.keyClick(w.composer, Qt.Key.Key_Return)
    seen: list[int] = []

    def climbed() -> bool:
        found = PERCENT.search(w.stage_label.text())
        if found and (not seen or int(found.group(1)) > seen[-1]):
            seen.append(int(found.group(1)))
        return len(seen) >= 2

    run(until(climbed, timeout_s=120), timeout_s=150)
    last_tick = LastTick(local_engine.pid)
    last_tick.start()
    last_tick.stopped()
    qtbot.keyClick(w.composer, Qt.Key.Key_Escape)
    run(until(lambda: not app.page.busy, timeout_s=10))
    idle_ms = last_tick.idle_ms()
    progress = app.page.runner.generation.timeline.prefill
    assert progress is not None and 0 < progress.fraction < 1
    batch_ms = progress.time_ms / progress.computed * local_engine.settings.n_batch
    print(f"\nseen {seen} %; engine idle {idle_ms:.0f} ms after Esc (batches {batch_ms:.0f} ms)")
    assert idle_ms <= max(500.0, 2.5 * batch_ms)
    assert "retry" in w.outcome_bar.buttons and w.send_button.isEnabled()
