"""`tachy bench --pool URL,URL --router URL`: a router in front of the pool's servers, timed
at the same concurrency and with the same requests as the pool, so that a hedged Tachy
pool and the router's policy stand side by side.

What the router did is read from its own metrics (vllm-router's --prometheus-port,
given or found as the server view finds it) before and after the run: its policy (the
decisions it counted), the requests each worker served, and the requests it sent beyond
one per request of ours (its retries). Without its metrics those are not known and are
left out, never guessed.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, replace
from urllib.parse import urlsplit

from client.backends.base import Backend
from client.backends.figures.fetch import ServerFigures
from client.backends.figures.snapshot import ServerSnapshot
from client.backends.kinds.vllm_router.figures import RouterFigures
from client.services.bench.fleet import FleetRun
from client.services.bench.runner import BenchSettings, Progress, run_bench
from client.services.fleet.book import MemberFigures

ROUTER = "router"  # a router run's label, with its policy when its metrics name it


@dataclass(frozen=True, slots=True)
class RouterTarget:
    backend: Backend  # the router's address, as a server
    metrics_url: str | None = None  # its own metrics; None: looked for on its default port


@dataclass(frozen=True, slots=True)
class RouterCounts:
    """What the router's metrics say at one moment."""

    workers: list[str]  # the router's workers' addresses
    processed: dict[str, float]  # by worker; {} without its metrics
    policies: list[str]  # the policies it counted decisions of
    metrics_found: bool


async def read_router(target: RouterTarget) -> RouterCounts:
    """Its workers (GET /workers) and, where its metrics are found, their counters."""
    figures = ServerFigures()
    try:
        reader = RouterFigures(figures, target.backend.base_url, None, time.monotonic)
        if target.metrics_url:
            reader.use_metrics(target.metrics_url)
        snap = await reader.read(await figures.get(target.backend.base_url, "/workers"))
    finally:
        await figures.aclose()
    return _counts(snap)


def _counts(snap: ServerSnapshot) -> RouterCounts:
    found = snap.metrics_url is not None
    processed = {w.url: w.processed or 0.0 for w in snap.workers} if found else {}
    policies = sorted({d.policy for d in snap.decisions})
    return RouterCounts([w.url for w in snap.workers], processed, policies, found)


async def run_router(
    target: RouterTarget, settings: BenchSettings, progress: Progress | None = None
) -> FleetRun:
    """The same requests as a pool's run, through the router; its warm-ups first, so
    that its counts before and after are of the measured requests alone."""
    if settings.warmup:
        await run_bench(target.backend, replace(settings, n=settings.warmup, warmup=0))
    measured = replace(settings, warmup=0)
    before = await read_router(target)
    report = await run_bench(target.backend, measured, progress=progress)
    after = await read_router(target)
    label = f"{ROUTER} ({', '.join(after.policies)})" if after.policies else ROUTER
    run = FleetRun(label, settings.concurrency, report, _served(before, after), [])
    run.via_router = True
    if before.metrics_found and after.metrics_found:
        routed = sum(after.processed.values()) - sum(before.processed.values())
        run.routed_extra = max(routed - len(report.results), 0.0)  # one each was ours
    return run


def _served(before: RouterCounts, after: RouterCounts) -> list[MemberFigures]:
    """Each worker's requests over the run, as the router counted them."""
    if not after.metrics_found:
        return []
    served = []
    for url in after.workers:
        n = int(after.processed.get(url, 0.0) - before.processed.get(url, 0.0))
        served.append(MemberFigures(_where(url), n, None, None, n, n, 0, 0))
    return served


def _where(url: str) -> str:
    return urlsplit(url).netloc or url


def same_workers(counts: RouterCounts, servers: list[str]) -> bool:
    """Whether the router's workers are the pool's servers (by host and port): a
    comparison with others is not of the same workers."""
    return {_where(url) for url in counts.workers} == {_where(url.rstrip("/")) for url in servers}
