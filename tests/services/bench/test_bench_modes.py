"""Bench modes against the lab: request rate, goodput, throughput, export, sweep knee."""

from __future__ import annotations

import csv
import itertools
import json
import statistics
from collections.abc import AsyncIterator
from dataclasses import replace
from pathlib import Path

import pytest

from client.backends import make_backend
from client.backends.base import Backend
from client.core.metrics import RequestMetrics
from client.lab import LabServer, scenario_from_dict
from client.services.bench.export import ExportError, write_export
from client.services.bench.figures import SloError, meets, parse_slo
from client.services.bench.load import poisson_offsets, send_all
from client.services.bench.runner import BenchReport, BenchSettings, run_bench
from client.services.bench.sweep import (
    KNEE_MIN_N,
    SweepPoint,
    knee,
    run_sweep,
    tier_crossings,
    too_few,
)


async def _backend(dials: dict[str, object]) -> tuple[LabServer, Backend]:
    lab = LabServer(scenario_from_dict({"seed": 1, **dials}))
    url = await lab.start()
    return lab, await make_backend(url, "openai")


@pytest.fixture
async def quick() -> AsyncIterator[Backend]:
    lab, backend = await _backend({"ttft": 20, "tpot_ms": 2, "output_tokens": 10})
    yield backend
    await backend.aclose()
    await lab.stop()


def test_parse_slo_reads_names_and_says_what_is_wrong() -> None:
    assert parse_slo("ttft=300, tpot=50") == {"ttft": 300.0, "tpot": 50.0}
    for bad, words in (("ttft", "name=milliseconds"), ("speed=3", "ttft"), ("ttft=x", "number")):
        with pytest.raises(SloError, match=words):
            parse_slo(bad)


def test_meets_checks_every_slo_and_each_gap() -> None:
    good = RequestMetrics(ttft_ms=100, tpot_ms=20, e2el_ms=900, itl_ms=[20, 30])
    assert meets(good, {"ttft": 300, "tpot": 50, "itl": 40})
    assert not meets(good, {"itl": 25})  # one gap over is enough
    assert not meets(RequestMetrics(ttft_ms=None), {"ttft": 300})


def test_poisson_offsets_have_the_rate_and_replay_with_the_seed() -> None:
    offsets = poisson_offsets(20.0, 2001, seed=4)
    assert offsets[0] == 0.0 and offsets == sorted(offsets)
    gaps = [b - a for a, b in itertools.pairwise(offsets)]
    assert 0.045 < statistics.fmean(gaps) < 0.055  # 1/20 s
    assert poisson_offsets(20.0, 50, seed=4) == offsets[:50]
    assert poisson_offsets(20.0, 50, seed=5) != offsets[:50]


async def test_send_all_caps_what_is_in_flight() -> None:
    import asyncio

    in_flight = peak = 0

    async def measure(index: int) -> int:
        nonlocal in_flight, peak
        in_flight += 1
        peak = max(peak, in_flight)
        await asyncio.sleep(0.01)
        in_flight -= 1
        return index

    assert await send_all(measure, 12, 3) == list(range(12))
    assert peak == 3


async def test_rate_mode_goodput_throughput_in_json(quick: Backend) -> None:
    settings = BenchSettings(
        model="tachy-lab", n=12, warmup=0, request_rate=40.0, slo={"ttft": 10.0, "tpot": 50.0}
    )
    report = await run_bench(quick, settings)
    data = report.as_dict()
    starts = sorted(r.started_at for r in report.results)
    assert starts[-1] - starts[0] > 0.1  # spread out by the arrivals, not all at once
    assert data["request_rate"] == 40.0 and data["completed"] == 12
    assert data["output_throughput"] == pytest.approx(
        data["total_output_tokens"] / data["duration_s"]
    )
    assert data["request_throughput"] == pytest.approx(12 / data["duration_s"])
    # No first token comes before the lab's 20 ms (a reply's tokens can: the in-process
    # lab, late on a busy loop, sends the rest of a reply at once), so none meets both.
    assert data["goodput"]["requests"] == 0
    assert data["goodput"]["slo_ms"] == {"ttft": 10.0, "tpot": 50.0}
    report.settings.slo = {"ttft": 1000.0}
    assert report.goodput()["fraction"] == 1.0  # type: ignore[index]
    assert data["itl_ms"]["n"] == 12 * 9 and data["e2el_ms"]["p99"] > 0


async def test_export_csv_and_json(quick: Backend, tmp_path: Path) -> None:
    report = await run_bench(quick, BenchSettings(model="tachy-lab", n=3, warmup=0))
    write_export(report, tmp_path / "r.csv")
    rows = list(csv.DictReader((tmp_path / "r.csv").open(encoding="utf-8")))
    assert len(rows) == 3 and float(rows[0]["ttft_ms"]) > 15 and rows[0]["outcome"] == "stop"
    write_export(report, tmp_path / "r.json")
    requests = json.loads((tmp_path / "r.json").read_text())["requests"]
    assert len(requests[0]["itl_ms"]) == 9 and requests[0]["start_s"] == 0.0
    with pytest.raises(ExportError, match=r"\.csv or \.json"):
        write_export(report, tmp_path / "r.txt")


async def test_a_sweep_measures_each_level_with_enough_requests_to_bound_its_p95(
    quick: Backend,
) -> None:
    """What a sweep's levels stand on; where the lab's knee falls is a speed, so it is
    tests/perf/test_bench_sweep.py's."""
    settings = BenchSettings(model="tachy-lab", n=KNEE_MIN_N, warmup=1)
    points = await run_sweep(quick, settings, [1, 2, 4])
    assert [p.concurrency for p in points] == [1, 2, 4] and not too_few(points)
    for point in points:  # 30 bound a P95 from below only; its upper bound needs 73
        assert point.ttft_n == KNEE_MIN_N and point.ttft_p95_high_ms is None
        assert point.ttft_p95_low_ms is not None and point.ttft_p95_ms is not None
        assert point.ttft_p95_low_ms <= point.ttft_p95_ms
    assert knee(points) in (1, 2, 4)


def _points(p95_ms: list[float], levels: tuple[int, ...] = (1, 2, 4, 8)) -> list[SweepPoint]:
    report = BenchReport("http://lab", "openai", BenchSettings(model="tachy-lab"))
    return [
        SweepPoint(level, ms / 2, ms, 0.0, 0, report, ttft_n=KNEE_MIN_N)
        for level, ms in zip(levels, p95_ms, strict=True)
    ]


def test_the_knee_is_the_last_level_under_one_and_a_half_times_the_first() -> None:
    assert knee(_points([150, 220, 450, 900])) == 2
    assert knee(_points([150, 200, 240, 140])) == 2  # the first level past it decides
    assert knee(_points([150, 160, 170, 180])) == 8  # no queueing within the sweep
    assert knee(_points([150, 226, 300, 400])) == 1
    first, second, third = _points([150, 160, 170], (1, 2, 4))
    assert knee([first, second, replace(third, ttft_n=KNEE_MIN_N - 1)]) is None


def test_tier_crossings_name_the_first_level_past_each_bound_and_the_one_before() -> None:
    crossings = tier_crossings(_points([150, 220, 450, 900]))
    assert crossings == [(100.0, 1, None), (300.0, 4, 2)]  # 1,000 ms never reached


async def test_a_sweep_of_few_requests_a_level_names_no_knee(quick: Backend) -> None:
    """10 a level, as `tachy bench --sweep 1,2,4` once ran: the knee is left undecided."""
    points = await run_sweep(quick, BenchSettings(model="tachy-lab", n=10, warmup=1), [1, 2])
    assert [p.ttft_n for p in points] == [10, 10] and all(p.ttft_p95_ms for p in points)
    assert knee(points) is None and too_few(points) == points


async def test_static_batching_multiplies_the_ttft_p95_at_the_same_load() -> None:
    # Replies of up to 0.8 s: a static group's waiting dwarfs a busy machine's lateness.
    dials = {"ttft": 20, "tpot_ms": 20, "output_tokens": 40, "output_tokens_min": 4}
    p95 = {}
    for batching in ("continuous", "static"):
        lab, backend = await _backend({**dials, "capacity": 4, "batching": batching})
        try:
            settings = BenchSettings(model="tachy-lab", n=24, warmup=1, max_tokens=40)
            (point,) = await run_sweep(backend, settings, [4])
        finally:
            await backend.aclose()
            await lab.stop()
        p95[batching] = point.ttft_p95_ms or 0.0
    print(f"\nTTFT P95 at concurrency 4: {p95}")
    assert p95["static"] > 3 * p95["continuous"]  # waits for the group's longest reply
