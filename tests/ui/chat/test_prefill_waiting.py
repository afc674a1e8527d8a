"""The stage line shows a llama.cpp server's prompt progress while it reads."""

from __future__ import annotations

import re
from typing import Any

from PySide6.QtCore import QLocale, Qt

from client.core.events import Prefill
from client.core.timeline import RequestTimeline
from client.lab import run_in_thread, scenario_from_dict
from client.services.chat.loading_stage import EXPECTED_MS
from client.ui.chat.stage_line import seconds_left, waiting_text
from tests.ui.conftest import until


def test_the_share_read_replaces_the_time_waited(qapp: Any) -> None:
    QLocale.setDefault(QLocale(QLocale.Language.English, QLocale.Country.UnitedStates))
    try:
        reading = Prefill(processed=630, total=1493, cached=0, time_ms=2000.0)
        assert waiting_text(1500, "understanding", reading) == (
            "Reading your question… 42 % (630 / 1,493 tokens)"
        )
        assert waiting_text(1500, "understanding", reading, seconds_left=2.7) == (
            "Reading your question… 42 % (630 / 1,493 tokens), about 3 s left"
        )
        # Cached tokens are not waited for: 46 of the 93 left to compute.
        cached = Prefill(processed=1446, total=1493, cached=1400, time_ms=500.0)
        assert waiting_text(1500, None, cached).endswith("49 % (46 / 93 tokens)")
        # The waiting rules come first; other stages and a fully cached prompt keep theirs.
        assert waiting_text(500, "understanding", reading) == "Typing…"
        assert waiting_text(2500, "loading", reading) == "Loading the model… 2.5 s"
        done = Prefill(10, 10, 10, 0.0)
        assert waiting_text(1000, "understanding", done) == "Reading your question… 1.0 s"
    finally:
        QLocale.setDefault(QLocale.c())


def test_a_loading_model_says_how_long_its_loads_took_before(qapp: Any) -> None:
    QLocale.setDefault(QLocale(QLocale.Language.English, QLocale.Country.UnitedStates))
    try:
        assert waiting_text(1200, "loading", seconds_left=0.8) == (
            "Loading the model… 1.2 s, about 1 s left"
        )
        # Past the learned time, or none learned: the time waited only.
        assert waiting_text(2500, "loading") == "Loading the model… 2.5 s"
        timeline = RequestTimeline()
        timeline.enter_stage("loading", 1_000_000_000)
        assert seconds_left(timeline, 2_000_000_000) is None  # nothing learned yet
        timeline.stages[-1].counts = {EXPECTED_MS: 2500.0}
        assert seconds_left(timeline, 2_000_000_000) == 1.5
        assert seconds_left(timeline, 4_000_000_000) is None  # longer than before
        timeline.enter_stage("understanding", 4_000_000_000)
        timeline.mark_prefill(Prefill(100, 400, 0, 100.0), 4_000_000_000)
        assert seconds_left(timeline, 4_000_000_000) == 0.3  # the prefill's, at its rate
    finally:
        QLocale.setDefault(QLocale.c())


def test_the_window_shows_the_percentage_climb(make_app, run, qtbot) -> None:
    dials = {"ttft": 5, "tpot_ms": 5, "output_tokens": 6, "seed": 1, "server": "llamacpp"}
    lab = run_in_thread(scenario_from_dict({**dials, "n_batch": 64, "prefill_tokens_per_s": 300}))
    try:
        app = make_app(lab.url, api="openai", model="tachy-lab")
        window = app.window
        window.composer.setPlainText(" ".join(["hello world"] * 200))  # ~2 s to read
        qtbot.keyClick(window.composer, Qt.Key.Key_Return)
        label = window.stage_label
        seen: set[int] = set()

        def percent_seen() -> bool:
            found = re.search(r"Reading your question… (\d+) % \(\d+ / \d+ tokens\)", label.text())
            if found:
                seen.add(int(found.group(1)))
            return len(seen) >= 2

        run(until(percent_seen))
        assert sorted(seen)[0] < sorted(seen)[-1]
        run(until(lambda: not app.page.runner.busy))
    finally:
        lab.stop()


def test_a_question_with_an_image_says_the_image_is_read(qapp: Any) -> None:
    QLocale.setDefault(QLocale(QLocale.Language.English, QLocale.Country.UnitedStates))
    try:
        assert waiting_text(1200, "understanding", with_image=True) == (
            "Reading your question and image… 1.2 s"
        )
        assert waiting_text(2500, "loading", with_image=True) == "Loading the model… 2.5 s"
    finally:
        QLocale.setDefault(QLocale.c())
