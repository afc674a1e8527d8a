"""View > Smooth streaming (client/core/pacing.py, client/ui/chat/paced_text.py):
what it does to QoE as displayed, and what it costs a frame.

1. QoE as displayed, bursty answer: the lab's `bursty` preset (73 tokens at 6 a second,
   held back and sent in bursts every 3 s) played on a virtual clock at 60 frames a
   second, each frame's shown text stamped, QoE (client/core/qoe.py) of what was shown
   against QoE of what arrived (the baseline, same run). Displaying can only be later
   than arriving, so pacing can only cost QoE; goal: it costs at most QOE_COST, while
   the most text shown in one frame falls to at most LUMP_SHARE of the unpaced one's.
2. Cost per frame at 5,000 tokens/s: one-token chunks into a real ChatView (offscreen)
   frame by frame in real time, each frame's work timed (the chunks handed over, the
   pacing tick, the view's flush), paced against unpaced rounds alternated in the same
   run. Goal: pacing adds at most ADDED_MS_GOAL to the median frame (always judged),
   and the paced frame's p95 stays within the paint budget (one frame, 16.7 ms), judged
   on the rounds where the machine was quiet (tests/machine.py's LoadMeter); an xfail
   naming the figure when none was.
"""

from __future__ import annotations

import os
import random
import statistics
import time
from typing import Any

import pytest

from client.core.pacing import Pacer
from client.core.qoe import Arrival, qoe
from client.lab import PRESETS
from client.lab.timing.plan import make_plan
from client.ui.chat.render.chat_view import ChatView
from tests.machine import LoadMeter
from tests.perf.test_ui_perf import FRAME_MS, report

FRAME_S = FRAME_MS / 1000
QOE_COST = 0.03  # QoE as displayed may be this much under QoE as arrived
LUMP_SHARE = 0.25  # the most text in one frame, paced, against unpaced
RATE = 5_000  # tokens a second
SPAN_S = 2.0
ROUNDS = 3
ADDED_MS_GOAL = 1.0


def _arrivals(name: str) -> list[tuple[float, str]]:
    """The preset's reply as it reaches the client: (seconds after the request, text)."""
    plan = make_plan(PRESETS[name], random.Random(3), False, None)
    timed = zip(plan.offsets, plan.pieces, strict=True)
    return [(plan.ttft_s + at, piece.text) for at, piece in timed]


def _shown(arrivals: list[tuple[float, str]], paced: bool) -> list[tuple[float, str]]:
    """What a 60-frame display shows and when: arrivals in a frame go on screen at the
    frame (the first at once, as the window paints it), paced or not."""
    pacer, shown, index, now = Pacer(), [], 0, 0.0
    end = arrivals[-1][0] + 2.0
    while now < end:
        while index < len(arrivals) and arrivals[index][0] <= now:
            at, text = arrivals[index]
            out = pacer.arrive(text, at) if paced else text
            if out:
                shown.append((at if index == 0 else now, out))
            index += 1
        out = pacer.tick(now) if paced else ""
        if out:
            shown.append((now, out))
        now += FRAME_S
    rest = pacer.flush()
    if rest:
        shown.append((now, rest))
    return shown


def _qoe(shown: list[tuple[float, str]], chars_per_token: float) -> float:
    result = qoe([Arrival(at, len(text) / chars_per_token) for at, text in shown])
    assert result is not None
    return result


def _most_in_a_frame(shown: list[tuple[float, str]]) -> int:
    """The most text a frame shows, the first token's frame left out."""
    by_frame: dict[float, int] = {}
    for at, text in shown[1:]:
        by_frame[at] = by_frame.get(at, 0) + len(text)
    return max(by_frame.values())


def test_smooth_streaming_keeps_qoe_and_spreads_bursts() -> None:
    arrivals = _arrivals("bursty")
    chars_per_token = sum(len(t) for _, t in arrivals) / len(arrivals)
    arrived = _qoe(_shown(arrivals, paced=False), chars_per_token)
    paced_shown = _shown(arrivals, paced=True)
    displayed = _qoe(paced_shown, chars_per_token)
    lump = _most_in_a_frame(_shown(arrivals, paced=False))
    paced_lump = _most_in_a_frame(paced_shown)
    steady = _qoe(_shown(_arrivals("steady"), paced=True), chars_per_token)
    report(
        "smooth streaming, bursty answer",
        f"QoE as displayed {displayed:.3f} against {arrived:.3f} as arrived (cost "
        f"{arrived - displayed:.3f}, goal <= {QOE_COST}); most text in one frame {paced_lump} "
        f"characters against {lump} unpaced ({paced_lump / lump:.2f}x, goal <= {LUMP_SHARE}); "
        f"steady answer paced: QoE {steady:.3f}",
    )
    assert arrived - displayed <= QOE_COST
    assert paced_lump <= LUMP_SHARE * lump


def _round(qtbot: Any, paced: bool) -> list[float]:
    """One 2-second stream at RATE into a fresh view; each frame's work in ms."""
    view = ChatView()
    qtbot.addWidget(view)
    view.resize(640, 480)
    view.show()
    view.pacing.enabled = paced
    view.begin_stream(1)
    view.append_token(1, "First ")
    per_frame = round(RATE * FRAME_S)
    costs, start = [], time.perf_counter()
    for frame in range(round(SPAN_S / FRAME_S)):
        began = time.perf_counter()
        for _ in range(per_frame):
            view.append_token(1, "tok ")
        view.pacing.tick()
        view.flush()
        costs.append((time.perf_counter() - began) * 1000)
        wait = start + (frame + 1) * FRAME_S - time.perf_counter()
        if wait > 0:
            time.sleep(wait)  # the next frame at its time: the pace sees the real rate
    view.end_stream(1, "complete")
    view.close()
    return costs


def test_smooth_streaming_costs_little_a_frame_at_5000_tokens_a_second(qtbot: Any) -> None:
    paced: list[float] = []
    plain: list[float] = []
    quiet_paced: list[float] = []
    for _ in range(ROUNDS):
        meter = LoadMeter(os.getpid())
        plain += _round(qtbot, paced=False)
        paced_round = _round(qtbot, paced=True)
        paced += paced_round
        if meter.quiet():
            quiet_paced += paced_round
    p95 = statistics.quantiles(paced, n=20)[-1]
    added = statistics.median(paced) - statistics.median(plain)
    quiet_p95 = statistics.quantiles(quiet_paced, n=20)[-1] if quiet_paced else None
    report(
        "smooth streaming at 5,000 tokens/s",
        f"frame work p50 {statistics.median(paced):.2f} ms, p95 {p95:.2f} ms paced (goal p95 "
        f"< {FRAME_MS:.1f} in quiet rounds: "
        f"{'none quiet' if quiet_p95 is None else f'{quiet_p95:.2f} ms'}); unpaced p50 "
        f"{statistics.median(plain):.2f} ms, p95 {statistics.quantiles(plain, n=20)[-1]:.2f} ms;"
        f" added {added:+.2f} ms at the median (goal <= {ADDED_MS_GOAL}); n={len(paced)} frames",
    )
    assert added <= ADDED_MS_GOAL  # against the same run's unpaced frames: judged always
    if quiet_p95 is None:
        pytest.xfail(f"no quiet round to judge the p95 (paced p95 {p95:.2f} ms on a busy machine)")
    assert quiet_p95 < FRAME_MS
