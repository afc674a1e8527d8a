"""The chat's paint cost does not grow with the answer (issue 29, item 6).

One-token chunks at 5,000 a second go into the chat view on the app's event loop, the
way the generation runner hands them over (the first painted in its own turn, the rest
buffered and rendered once a frame), while a 5 ms asyncio timer measures how late the
loop wakes (tests/perf/test_ui_perf.py's LoopProbe). Twice per round: into a fresh
answer, and into one already 300,000 characters long. The answer is Markdown as models
write it (paragraphs, a numbered list, a code block), since what grew with the answer
was the re-render of a long code block or list on every frame.

Goal: loop lag p99 under one frame (16.7 ms) for both, the long answer's within
LONG_ALLOWANCE_MS of the same round's fresh one. Judged only in a round where the
machine was quiet (tests/machine.py's LoadMeter), repeated otherwise, and an xfail
naming the figures when no round was quiet. On a machine slower at Python
(tests/machine.py's python_speed) the rate is that share of 5,000 a second.
"""

from __future__ import annotations

import asyncio
import os
import time
from dataclasses import dataclass
from typing import Any

import pytest

from client.lab.text.corpus import ENGLISH, tokenize
from client.ui.chat.render.chat_view import ChatView, ShownMessage
from tests.machine import LoadMeter, python_speed
from tests.perf.test_ui_perf import FRAME_MS, LoopProbe, report
from tests.ui.conftest import run  # noqa: F401

pytestmark = pytest.mark.perf

RATE = 5_000  # tokens a second on the reference machine (tests/machine.py)
SPAN_S = 2.0  # each measured stream lasts this long
LONG_CHARS = 300_000  # the long answer's length before it is measured
LONG_ALLOWANCE_MS = 4.0  # the long answer's p99 may exceed the fresh one's by this
ROUNDS = 5
MIN_SPEED = 0.75  # judged at the full goal on machines at least this fast at Python


def markdown_answer(chars: int) -> str:
    """Prose, a numbered list and a code block, repeated to about `chars` characters."""
    prose = ENGLISH.strip()
    steps = "".join(f"{i}. Step {i}: scatter the light, then look again.\n" for i in range(1, 31))
    code = "".join(f"    total = add(total, {i})  # keep a running sum\n" for i in range(60))
    part = f"{prose}\n\n{steps}\n```python\ndef running_sum():\n{code}```\n\n"
    return (part * (chars // len(part) + 1))[:chars]


@dataclass
class Stream:
    late_ms: list[float]
    tokens: int
    seconds: float
    first_painted_now: bool
    steal: float
    others: float
    cpu_ms_per_frame: float  # the loop's thread, per coalesced render (ChatView.flush)

    def lag(self, share: float) -> float:
        ordered = sorted(self.late_ms)
        return ordered[round(share * (len(ordered) - 1))]

    @property
    def rate(self) -> float:
        return (self.tokens - 1) / self.seconds

    @property
    def quiet(self) -> bool:
        return self.steal < 0.10 and self.others < 0.25

    def describe(self) -> str:
        return (
            f"{self.tokens} tokens at {self.rate:,.0f}/s; loop lag p50 {self.lag(0.5):.2f} ms, "
            f"p95 {self.lag(0.95):.2f} ms, p99 {self.lag(0.99):.2f} ms (goal < {FRAME_MS:.1f}), "
            f"max {max(self.late_ms):.1f} ms (n={len(self.late_ms)}); loop thread CPU "
            f"{self.cpu_ms_per_frame:.2f} ms a frame; first token painted in "
            f"its turn: {self.first_painted_now}; steal {self.steal:.0%}, other processes "
            f"{self.others:.0%} of the machine"
        )


def fill(view: ChatView, key: int, text: str) -> None:
    """An answer already `len(text)` long, streamed in a hurry (not measured)."""
    tokens = tokenize(text)
    view.append_token(key, tokens[0])
    for start in range(1, len(tokens), 400):
        for token in tokens[start : start + 400]:
            view.append_token(key, token)
        view.flush()


async def stream_at(view: ChatView, key: int, tokens: list[str], rate: float) -> Stream:
    stop = asyncio.Event()
    load = LoadMeter(os.getpid())
    probing = asyncio.ensure_future(LoopProbe().run(stop))
    await asyncio.sleep(0.1)  # the probe runs before the first token
    cpu, flushes = time.thread_time(), view.flush_count
    first_painted_now = view.append_token(key, tokens[0])
    start, sent = time.perf_counter(), 1
    while sent < len(tokens):
        await asyncio.sleep(0.001)
        due = min(len(tokens), 1 + int((time.perf_counter() - start) * rate))
        for token in tokens[sent:due]:
            view.append_token(key, token)
        sent = due
    seconds = time.perf_counter() - start
    await asyncio.sleep(0.1)  # the last frame's render and paint
    cpu_ms = (time.thread_time() - cpu) * 1000 / max(1, view.flush_count - flushes)
    stop.set()
    probe = await probing
    steal, others = load.steal(), load.others()
    return Stream(probe.late_ms, len(tokens), seconds, first_painted_now, steal, others, cpu_ms)


def one_round(view: ChatView, runner: Any, tokens: list[str], rate: float) -> tuple[Stream, Stream]:
    view.clear_messages()
    view.add_message(ShownMessage(1, "user", "Explain, with steps and code."))
    view.begin_stream(2)
    fresh = runner(stream_at(view, 2, tokens, rate), timeout_s=60)
    view.clear_messages()
    view.add_message(ShownMessage(1, "user", "Explain, with steps and code."))
    view.begin_stream(2)
    fill(view, 2, markdown_answer(LONG_CHARS))
    runner(asyncio.sleep(0.3), timeout_s=10)  # its layout and paint settle first
    long = runner(stream_at(view, 2, tokens, rate), timeout_s=60)
    return fresh, long


def meets_the_goal(fresh: Stream, long: Stream, rate: float) -> bool:
    return (
        fresh.quiet
        and long.quiet
        and min(fresh.rate, long.rate) > 0.8 * rate
        and max(fresh.lag(0.99), long.lag(0.99)) < FRAME_MS
        and long.lag(0.99) - fresh.lag(0.99) < LONG_ALLOWANCE_MS
    )


def test_5000_tokens_per_second_into_a_300k_answer_costs_what_a_fresh_one_does(
    run,  # noqa: F811
    qtbot: Any,
) -> None:
    speed = python_speed()
    rate = RATE * speed
    tokens = tokenize(markdown_answer(int(rate * SPAN_S * 4.5)))[: round(rate * SPAN_S)]
    view = ChatView()
    qtbot.addWidget(view)
    view.resize(1000, 700)
    view.show()
    one_round(view, run, tokens[:500], rate)  # warm up fonts, Pygments-free paths, caches
    rounds: list[tuple[Stream, Stream]] = []
    for attempt in range(1, ROUNDS + 1):
        fresh, long = one_round(view, run, tokens, rate)
        rounds.append((fresh, long))
        report(f"{rate:,.0f} tokens/s into a fresh answer (round {attempt})", fresh.describe())
        report(
            f"{rate:,.0f} tokens/s into a {LONG_CHARS:,}-character answer (round {attempt})",
            f"{long.describe()}; p99 {long.lag(0.99) - fresh.lag(0.99):+.2f} ms against the "
            f"fresh answer's (goal < +{LONG_ALLOWANCE_MS:.1f}), CPU a frame "
            f"{long.cpu_ms_per_frame / fresh.cpu_ms_per_frame:.2f}x the fresh answer's",
        )
        if meets_the_goal(fresh, long, rate):
            break
    for fresh, long in rounds:
        assert fresh.first_painted_now  # the first token is painted in its own turn
        assert fresh.tokens == long.tokens == len(tokens)
    judged = [(fresh, long) for fresh, long in rounds if fresh.quiet and long.quiet]
    best = min(rounds, key=lambda pair: max(pair[0].lag(0.99), pair[1].lag(0.99)))
    report(
        "paint cost against the answer's length",
        f"Python at {speed:.2f}x the reference machine, so judged at {rate:,.0f} tokens/s; "
        f"{len(judged)} of {len(rounds)} rounds on a quiet machine; best round p99 fresh "
        f"{best[0].lag(0.99):.2f} ms, {LONG_CHARS:,} characters {best[1].lag(0.99):.2f} ms "
        f"(goal < {FRAME_MS:.1f} ms both, the long within +{LONG_ALLOWANCE_MS:.1f} ms)",
    )
    if not judged:
        pytest.xfail(
            f"no quiet round to judge; best p99 fresh {best[0].lag(0.99):.1f} ms, "
            f"long {best[1].lag(0.99):.1f} ms"
        )
    if speed < MIN_SPEED and not any(meets_the_goal(f, lo, rate) for f, lo in judged):
        pytest.xfail(
            f"Python at {speed:.2f}x the reference machine (judged from {MIN_SPEED}x); best "
            f"p99 fresh {best[0].lag(0.99):.1f} ms, long {best[1].lag(0.99):.1f} ms"
        )
    assert any(meets_the_goal(fresh, long, rate) for fresh, long in judged), (
        f"p99 fresh {best[0].lag(0.99):.1f} ms, long {best[1].lag(0.99):.1f} ms at {rate:,.0f}/s"
    )
