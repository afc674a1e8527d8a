"""`tachy bench --pool URL,URL,... --policy P`: the pool's answers beside its first
server's alone, at each concurrency, with how many requests were sent twice.

For every concurrency: the first server alone (the baseline), then each policy asked
for, each with a pool of its own (so one policy's figures never steer another's hedge);
warm-up requests teach a hedged pool its servers' P95 waits before it is measured.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from client.backends.base import Backend
from client.core.stats import Summary
from client.services.bench.runner import BenchReport, BenchSettings, Progress, run_bench
from client.services.fleet.book import MemberFigures
from client.services.fleet.loads import LoadReader
from client.services.fleet.pool import Policy, ServerPool
from client.services.fleet.pool_backend import PoolBackend

SINGLE = "single server"
# How a pool reads its servers' load (client/services/hud/server_load.py's ServerLoads;
# given, as the HUD is a sibling of this area).
LoadsOf = Callable[[ServerPool], LoadReader]
# A hedged pool's warm-up, at the concurrency it is measured at: enough first tokens for
# each server's P95 wait to settle under that load (the app's pool keeps learning for
# the app's life; a benchmark starts from nothing, and a P95 learnt one at a time is
# too short for 16 at once).
HEDGE_WARMUP = 50


@dataclass(slots=True)
class FleetRun:
    label: str  # SINGLE or a policy's name
    concurrency: int
    report: BenchReport
    servers: list[MemberFigures]  # the pool's per-server figures ([] for SINGLE)
    cut_at_ns: list[list[int]]  # per server: when each of its losing requests was cut
    # A router's run (services/bench/router_run.py): Tachy sent one request per answer,
    # and what the router sent beyond that its metrics say (None: they were not found).
    via_router: bool = False
    routed_extra: float | None = None

    @property
    def ttft(self) -> Summary | None:
        return self.report.summaries()["ttft_ms"]

    @property
    def sent_twice(self) -> float:
        """The share of answers sent to more than one server (a hedge or a failover)."""
        results = self.report.warm_results
        return sum(r.sent > 1 for r in results) / len(results) if results else 0.0

    @property
    def extra_requests(self) -> float:
        """Requests sent beyond one per answer, as a share of the answers (a router's:
        0 when its metrics were not found; `extra_known` says which)."""
        results = self.report.warm_results
        if self.via_router:
            return (self.routed_extra or 0.0) / len(results) if results else 0.0
        return sum(r.sent - 1 for r in results) / len(results) if results else 0.0

    @property
    def extra_known(self) -> bool:
        return not self.via_router or self.routed_extra is not None

    def as_dict(self) -> dict[str, Any]:
        ttft = self.ttft
        return {
            "policy": self.label,
            "concurrency": self.concurrency,
            "n": len(self.report.warm_results),
            "errors": self.report.errors,
            "ttft_ms": ttft.as_dict() if ttft else None,
            "sent_twice": None if self.via_router else self.sent_twice,
            "extra_requests": self.extra_requests if self.extra_known else None,
            "via_router": self.via_router,
            "servers": [
                {"name": s.name, "wins": s.wins, "p50_ms": s.p50_ms, "p95_ms": s.p95_ms}
                for s in self.servers
            ],
        }


async def run_fleet(
    backends: list[Backend],
    pool: ServerPool,
    settings: BenchSettings,
    policies: Sequence[Policy],
    concurrencies: Sequence[int],
    loads_of: LoadsOf | None = None,
    progress: Progress | None = None,
) -> list[FleetRun]:
    runs: list[FleetRun] = []
    for concurrency in concurrencies:
        at = replace(settings, concurrency=concurrency)
        runs.append(await run_single(backends[0], at, progress))
        for policy in policies:
            chosen = replace(pool, policy=policy)
            runs.append(await run_policy(backends, chosen, at, loads_of, progress))
    return runs


async def run_single(
    backend: Backend, settings: BenchSettings, progress: Progress | None = None
) -> FleetRun:
    """The baseline: the pool's first server alone."""
    report = await run_bench(backend, settings, progress=progress)
    return FleetRun(SINGLE, settings.concurrency, report, [], [])


async def run_policy(
    backends: list[Backend],
    pool: ServerPool,
    settings: BenchSettings,
    loads_of: LoadsOf | None = None,
    progress: Progress | None = None,
) -> FleetRun:
    reads = loads_of is not None and pool.policy is not Policy.FAILOVER
    loads = loads_of(pool) if reads and loads_of is not None else None
    fleet = PoolBackend(pool, backends, loads)
    try:
        if pool.policy is Policy.HEDGED:  # it learns its servers at the load it is measured at
            warm = max(settings.warmup, HEDGE_WARMUP)
            await run_bench(fleet, replace(settings, n=warm, warmup=0))
            settings = replace(settings, warmup=0)
        report = await run_bench(fleet, settings, progress=progress)
    finally:
        await fleet.aclose()
    cuts = [list(record.cut_at_ns) for record in fleet.book.records]
    return FleetRun(pool.policy.value, settings.concurrency, report, fleet.book.figures(), cuts)


def p99_cut(runs: list[FleetRun], concurrency: int, policy: str) -> float | None:
    """The single server's TTFT P99 over the policy's, at one concurrency."""
    by_label = {r.label: r for r in runs if r.concurrency == concurrency}
    single, pool = by_label.get(SINGLE), by_label.get(policy)
    if single is None or pool is None or single.ttft is None or pool.ttft is None:
        return None
    return single.ttft.p99 / pool.ttft.p99 if pool.ttft.p99 > 0 else None
