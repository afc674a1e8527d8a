"""A hedged Tachy pool against the real vLLM router (power_of_two, cache_aware) in front of
the same three lab workers, each stalling 5 % of its replies for 2 s before the first
token (a GC pause, another user's long prefill: any worker, now and then), with the same
requests at concurrency 1, 4 and 16, through `tachy bench --pool ... --router ...` as a
user runs it. The time to first token P50 / P95 / P99 of each, and the extra requests
(the pool's hedges; the router's retries, from its metrics).

Goal (issue 38, after Dean and Barroso's "The Tail at Scale"): a router picks a worker
before the stall shows, so no policy avoids it; the hedged pool's P99 is at most a fifth
of each router's at every level. Its price, extra requests, is at least the stalls' 5 %
(each stall is hedged) plus about 5 % (a hedge goes out past a server's P95 wait), and
more where the shared machine's own delays pass that P95 at 16 at once: at most 20 % over
the three levels. Each worker is its own process: in this process's threads, at 16 at
once their queueing for its interpreter made the pool's P99 (479-628 ms, 18-22 % extra,
in three runs); as processes, 160-177 ms at 7-9 %. Figures in docs/pools.md.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from client.cli import main
from tests.backends.kinds.routers import running_router

pytestmark = pytest.mark.perf

TIMING: dict[str, Any] = {
    "ttft": {"kind": "normal", "p50_ms": 60, "p95_ms": 75, "min_ms": 45, "max_ms": 110},
    "tpot_ms": 5,
    "output_tokens": 8,
}
STALLING = {"random_faults": {"rate": 0.05, "pool": [{"kind": "stall", "seconds": 2.0}]}}
LEVELS = "1,4,16"
N = 100
POLICIES = ("power_of_two", "cache_aware")
GOAL_CUT, GOAL_EXTRA = 5.0, 0.20


@pytest.fixture(scope="module")
def workers(tmp_path_factory: pytest.TempPathFactory) -> Iterator[list[str]]:
    """Three labs, each its own process as a worker is its own machine: labs in this
    process's threads would share its interpreter with the client and the routers'
    health checks, and at 16 at once that queueing, not the stalls, made the P99."""
    folder = tmp_path_factory.mktemp("workers")
    labs: list[subprocess.Popen[str]] = []
    try:
        for seed in (1, 2, 3):
            path = folder / f"worker{seed}.json"
            path.write_text(json.dumps({**TIMING, **STALLING, "seed": seed}), encoding="utf-8")
            labs.append(_lab_process(path))
        yield [_lab_url(lab) for lab in labs]
    finally:
        for lab in labs:
            lab.terminate()
            lab.wait(10)


def _lab_process(scenario: Path) -> subprocess.Popen[str]:
    command = [sys.executable, "-m", "client", "lab", "--port", "0", "--scenario", str(scenario)]
    return subprocess.Popen(
        command, stdout=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True
    )  # fmt: skip


def _lab_url(lab: subprocess.Popen[str]) -> str:
    """Its base URL, from the lines it prints once it listens."""
    assert lab.stdout is not None
    for line in lab.stdout:
        if "OpenAI API: " in line:
            return line.split("OpenAI API: ")[1].split("/v1/")[0].strip()
    raise AssertionError(f"the lab exited with {lab.wait()} before it listened")


def test_hedged_pool_against_the_router(workers: list[str], tmp_path: Path) -> None:
    urls = workers
    result = tmp_path / "runs.json"
    with (
        running_router(urls, POLICIES[0]) as first,
        running_router(urls, POLICIES[1]) as second,
    ):
        code = main(
            ["bench", "--api", "openai", "--pool", ",".join(urls), "--policy", "hedged",
             "-m", "tachy-lab", "-n", str(N), "--sweep", LEVELS, "--max-tokens", "8",
             "--router", f"{first.url},{second.url}",
             "--router-metrics", f"{first.metrics_url},{second.metrics_url}",
             "--json", str(result)]
        )  # fmt: skip
    assert code == 0
    runs = json.loads(result.read_text(encoding="utf-8"))
    hedged_runs = [run for run in runs if run["policy"] == "hedged"]
    extra = sum(run["extra_requests"] * run["n"] for run in hedged_runs)
    assert extra / sum(run["n"] for run in hedged_runs) <= GOAL_EXTRA
    for level in (int(text) for text in LEVELS.split(",")):
        at = {run["policy"]: run for run in runs if run["concurrency"] == level}
        hedged = at["hedged"]
        for policy in POLICIES:
            router = at[f"router ({policy})"]
            assert router["errors"] == 0 and router["extra_requests"] is not None
            cut = router["ttft_ms"]["p99"] / hedged["ttft_ms"]["p99"]
            assert cut >= GOAL_CUT, f"concurrency {level}, {policy}: {cut:.1f}x"
