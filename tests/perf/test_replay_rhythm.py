"""Issue 19 item 3's goal: a recording of the real engine replays in its rhythm, within
2 ms a chunk (median; P95 10 ms), each reply starting at most 20 ms late. The recording
is the baseline, made in the same run; tests/lab/test_record_replay.py checks the replay
is whole."""

from __future__ import annotations

import statistics

import pytest

from client.lab import load_scenario
from tests.lab.replay_timing import replay_errors_ms, summary
from tests.lab.test_record_replay import OPENAI, record_the_engine

pytestmark = [pytest.mark.perf, pytest.mark.engine]


async def test_a_local_engine_session_replays_with_the_same_rhythm(local_engine, tmp_path):
    path = tmp_path / "engine.json"
    body = await record_the_engine(local_engine, path)
    assert load_scenario(path).recording is not None
    starts, errors = replay_errors_ms(path, OPENAI, body, rounds=3)
    median, p95, worst = summary(errors)
    start = statistics.median(starts)
    print(f"\nreplay of the local engine: {len(errors)} chunks after the first, |error| median"
          f" {median:.2f} ms (goal 2), P95 {p95:.2f} ms (goal 10), max {worst:.2f} ms; first"
          f" chunks {start:.2f} ms late (goal 20; median of {len(starts)})")  # fmt: skip
    # The median holds the goal; single chunks the machine holds up are only kept from
    # running away. How late the lab's process starts a reply (its HTTP parsing; 0.5-3.8
    # ms seen) is the first chunk's, kept apart.
    assert median <= 2.0 and p95 <= 10.0
    assert -2.0 <= start <= 20.0  # never early (asyncio may fire a timer ~1 ms soon)
