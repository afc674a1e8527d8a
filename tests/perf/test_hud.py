"""HUD benchmarks (medians within one run; run with `pytest tests/perf/test_hud.py -s`).

1. HUD work per frame at 1,000 tokens/s incoming: the median time of the frame flush
   (new stamps into series + setData on the curves) over 300 frames (10 s of stream),
   each frame getting the FRAME_INTERVAL_MS stamps that arrive between two frames. Goal: < 2 ms
   on the reference machine; on one slower at Python, 2 ms over its share of that speed
   (tests/machine.py's python_speed, measured in the same run).
2. The first token's paint is not delayed by the HUD: replies run as the window runs
   them (request_started, a first token at a random moment of the HUD's frame cycle, 100
   more tokens at 1,000 tokens/s, request_finished), painted by the real chat view
   (client.ui.chat.render.chat_view: append_token paints the first chunk synchronously) and fed to
   the HUD. paint_ms = the first token's arrival (its timer's due time) -> painted.
   Replies with the HUD open (visible, drawing) and closed (hidden) alternate in one run;
   goal: medians within 1 ms.
"""

from __future__ import annotations

import random
import statistics
import time
from typing import Any

import pytest
from PySide6.QtCore import Qt, QTimer

from client.core.events import TokenKind
from client.core.metrics import compute_metrics
from client.core.timeline import RequestTimeline, now_ns
from client.ui.chat.render.chat_view import ChatView
from client.ui.hud import LatencyHud
from client.ui.hud.hud import FRAME_INTERVAL_MS
from tests.machine import python_speed

pytestmark = pytest.mark.perf

MS = 1_000_000
FRAMES = 300
TRIALS = 50  # replies per side: the machine's timer jitter is about as large as the goal
REPLY_TOKENS = 20
SETTLE_MS = 80


def _hud(qtbot: Any) -> LatencyHud:
    hud = LatencyHud()
    qtbot.addWidget(hud)
    hud.resize(700, 600)
    hud.show()
    qtbot.waitExposed(hud)
    return hud


def test_frame_work_at_a_thousand_tokens_per_second(qtbot: Any) -> None:
    hud = _hud(qtbot)
    hud.frame_timer.timeout.disconnect()  # frames driven by hand, one per frame interval
    timeline = RequestTimeline()
    timeline.mark_written(0)
    hud.request_started(timeline, "fast", "local")
    samples = []
    stamp = 100 * MS
    for _ in range(FRAMES):
        for _ in range(FRAME_INTERVAL_MS):  # 1 ms apart: 1,000 tokens/s
            stamp += MS
            hud.token(TokenKind.ANSWER, 4, stamp)
        start = time.perf_counter_ns()
        hud.flush_frame()
        samples.append(time.perf_counter_ns() - start)
    assert hud.stream.tokens == FRAMES * FRAME_INTERVAL_MS and hud.frames == FRAMES
    median_ms = statistics.median(samples) / 1e6
    p95_ms = statistics.quantiles(samples, n=20)[-1] / 1e6
    print(
        f"\nHUD frame flush at 1,000 tokens/s: median {median_ms:.3f} ms, P95 {p95_ms:.3f} ms "
        f"over {FRAMES} frames of {FRAME_INTERVAL_MS} stamps"
    )
    speed = python_speed()
    print(f"this machine runs Python at {speed:.2f}x the reference one: bound {2.0 / speed:.2f} ms")
    assert median_ms < 2.0 / speed


def test_first_token_paint_is_not_delayed_by_the_hud(qtbot: Any) -> None:
    hud = _hud(qtbot)
    view = ChatView()
    qtbot.addWidget(view)
    view.resize(700, 500)
    view.show()
    qtbot.waitExposed(view)
    rng = random.Random(4)
    paint_ms: dict[bool, list[float]] = {True: [], False: []}
    for trial, hud_open in enumerate([True, False] * TRIALS):
        hud.setVisible(hud_open)
        # Showing the HUD repaints all of it, and the last reply's end refreshed its
        # graphs: a person sends the next message later than this, so let it settle.
        qtbot.wait(SETTLE_MS)
        paint_ms[hud_open].append(_one_reply(qtbot, hud, view, 1000 + trial, rng))
    assert hud.frames > TRIALS  # the HUD really drew the replies while it was open
    assert len(hud.book.records) == 2 * TRIALS
    opened, closed = (statistics.median(paint_ms[side]) for side in (True, False))
    print(
        f"\nfirst-token paint_ms median: HUD open {opened:.3f} ms, closed {closed:.3f} ms, "
        f"difference {opened - closed:+.3f} ms ({TRIALS} replies each)"
    )
    assert opened - closed < 1.0


def _one_reply(qtbot: Any, hud: LatencyHud, view: ChatView, key: int, rng: random.Random) -> float:
    """A reply as the window runs it: started, a first token at a random moment (painted
    at once by the chat view), REPLY_TOKENS more at 1,000 tokens/s, finished. Returns ms
    from the first token's arrival to its paint."""
    timeline = RequestTimeline()
    timeline.mark_written(now_ns())
    hud.request_started(timeline, "fast", "local")
    view.begin_stream(key)
    paint: list[float] = []
    more = QTimer()
    more.setTimerType(Qt.TimerType.PreciseTimer)

    def token() -> None:
        timeline.mark_token(TokenKind.ANSWER, 5)
        hud.token(TokenKind.ANSWER, 5, timeline.tokens[-1].at_ns)

    def first_token(arrival: int) -> None:
        token()
        view.append_token(key, "Hello")  # painted synchronously
        paint.append((time.perf_counter_ns() - arrival) / MS)
        more.start(5)

    def next_tokens() -> None:  # 5 every 5 ms: 1,000 tokens/s
        for _ in range(5):
            token()
            view.append_token(key, " word")
        if len(timeline.tokens) > REPLY_TOKENS:
            more.stop()
            timeline.mark_done()
            hud.request_finished(compute_metrics(timeline), timeline, "complete")

    more.timeout.connect(next_tokens)
    delay_ms = rng.randint(20, 20 + FRAME_INTERVAL_MS)  # any phase of the HUD's frame timer
    arrival = time.perf_counter_ns() + delay_ms * MS
    QTimer.singleShot(delay_ms, lambda: first_token(arrival))  # precise below 2 s (Qt docs)
    qtbot.waitUntil(lambda: not hud.streaming and bool(paint), timeout=5000)
    return paint[0]
