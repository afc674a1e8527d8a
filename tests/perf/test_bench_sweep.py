"""`tachy bench --sweep` finds the lab's capacity: where its knee falls is a speed (a
busy machine's lateness at one level over another moves it), so it is a benchmark;
tests/services/bench/test_bench_modes.py checks what a sweep measures and how the knee
is read from it."""

from __future__ import annotations

from client.backends import make_backend
from client.lab import LabServer, scenario_from_dict
from client.services.bench.runner import BenchSettings
from client.services.bench.sweep import KNEE_MIN_N, knee, run_sweep, tier_crossings

# A first token at 150 ms and replies of 270 ms: a server of two slots, so from three
# at once a request queues behind whole replies.
DIALS = {"seed": 1, "ttft": 150, "tpot_ms": 8, "output_tokens": 15, "capacity": 2}


async def test_a_sweep_finds_the_lab_capacity_as_its_knee() -> None:
    lab = LabServer(scenario_from_dict(DIALS))
    backend = await make_backend(await lab.start(), "openai")
    try:
        settings = BenchSettings(model="tachy-lab", n=KNEE_MIN_N, warmup=1)
        points = await run_sweep(backend, settings, [1, 2, 4, 8])
    finally:
        await backend.aclose()
        await lab.stop()
    p95 = [p.ttft_p95_ms or 0.0 for p in points]
    print(f"\nsweep TTFT P95 at 1, 2, 4, 8: {', '.join(f'{ms:.0f}' for ms in p95)} ms;")
    print(f"knee {knee(points)} (goal 2, the lab's capacity: at 2 under 1.5x the first)")
    assert knee(points) == 2
    crossings = tier_crossings(points)
    # 100 ms from the first level (the lab's 150 ms); 300 ms by 8 at the latest
    assert crossings[0] == (100.0, 1, None)
    assert crossings[1][0] == 300.0 and crossings[1][2] in (1, 2, 4)
