"""`tachy bench --pool URL,URL --policy hedged --router URL[,URL]`: routers in front of the
pool's servers, timed with the same requests at the same concurrency as the pool, so a
hedged Tachy pool and a router's policy stand side by side (docs/pools.md).

    route                   P50 ms      P95 ms      P99 ms  sent twice  extra reqs
    hedged                    61.0        78.3       151.0        6.0%        6.0%
    router (power_of_two)     60.9        79.5      2060.2           -        0.0%
    hedged vs router (power_of_two): P99 151.0 vs 2060.2 ms (hedged 13.6x lower),
      extra requests 6.0% vs 0.0%                                   (one line)
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import replace

from client.backends import make_backend
from client.backends.base import Backend
from client.services.bench.fleet import FleetRun
from client.services.bench.router_run import RouterTarget, read_router, run_router, same_workers
from client.services.bench.runner import BenchSettings
from client.services.fleet.pool import Policy, ServerPool


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--router",
        type=_urls,
        metavar="URL[,URL]",
        help="with --pool: also time these routers, in front of the pool's servers, with the "
        "same requests (a vLLM router's policy and retries are read from its metrics)",
    )
    parser.add_argument(
        "--router-metrics",
        type=_urls,
        metavar="URL[,URL]",
        help="with --router: each router's own metrics address (its --prometheus-port), in "
        "the same order (default: port 29000 of its host)",
    )


def conflict(args: argparse.Namespace) -> str | None:
    if args.router and not args.pool:
        return "--router is timed beside a pool: give its workers with --pool URL,URL"
    if args.router_metrics and not args.router:
        return "--router-metrics goes with --router"
    if args.router_metrics and len(args.router_metrics) > len(args.router):
        return "--router-metrics has more addresses than --router"
    return None


async def open_routers(args: argparse.Namespace, key: str | None) -> list[RouterTarget]:
    metrics: list[str] = args.router_metrics or []
    targets = []
    for index, url in enumerate(args.router):
        backend: Backend = await make_backend(url, args.api, key)
        given = metrics[index] if index < len(metrics) else None
        targets.append(RouterTarget(backend, given))
    return targets


async def run_routers(
    targets: list[RouterTarget], pool: ServerPool, settings: BenchSettings, levels: list[int]
) -> list[FleetRun]:
    """Each router at each concurrency; a sentence on stderr when a router's workers are
    not the pool's servers (its figures then compare other machines)."""
    servers = [member.choice.url for member in pool.members]
    for target in targets:
        if not same_workers(await read_router(target), servers):
            print(
                f"tachy bench: the router at {target.backend.base_url} does not route to the "
                "pool's servers alone; its figures are not of the same workers.",
                file=sys.stderr,
            )
    runs = []
    for level in levels:
        for target in targets:
            runs.append(await run_router(target, replace(settings, concurrency=level)))
    return runs


def comparison_lines(runs: list[FleetRun], level: int) -> list[str]:
    """The hedged pool beside each router at one concurrency."""
    at = [run for run in runs if run.concurrency == level]
    hedged = next((run for run in at if run.label == Policy.HEDGED.value), None)
    if hedged is None or hedged.ttft is None:
        return []
    lines = []
    for router in (run for run in at if run.via_router):
        if router.ttft is None:
            lines.append(f"hedged vs {router.label}: the router gave no first token to time")
            continue
        p99, theirs = hedged.ttft.p99, router.ttft.p99
        lower = _lower(p99, theirs)
        extra = f"{router.extra_requests:.1%}" if router.extra_known else "not known"
        lines.append(
            f"hedged vs {router.label}: P99 {p99:.1f} vs {theirs:.1f} ms{lower}, "
            f"extra requests {hedged.extra_requests:.1%} vs {extra}"
        )
    return lines


def _lower(hedged: float, router: float) -> str:
    if hedged > 0 and router > hedged:
        return f" (hedged {router / hedged:.1f}x lower)"
    if router > 0 and hedged > router:
        return f" (router {hedged / router:.1f}x lower)"
    return ""


def workers_line(run: FleetRun) -> str:
    if not run.servers:
        return f"per worker ({run.label}): not known (its metrics were not found)"
    served = "; ".join(f"{server.name} served {server.wins}" for server in run.servers)
    return f"per worker ({run.label}): {served}"


def _urls(text: str) -> list[str]:
    urls = [part.strip() for part in text.split(",") if part.strip()]
    if not urls:
        raise argparse.ArgumentTypeError("needs at least one address")
    return urls
