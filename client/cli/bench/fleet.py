"""`tachy bench --pool URL,URL,URL [--policy hedged] [--sweep 1,4,16] [--router URL]`: a
pool's time to first token beside its first server's alone, with the requests sent twice
(and beside routers in front of the same servers: cli/bench/router.py).

    concurrency 4, 100 answers each
    route                 P50 ms    P95 ms    P99 ms  sent twice  extra reqs
    single server           61.2      79.0    2061.3        0.0%        0.0%
    hedged                  60.8      78.1     151.0        6.0%        6.0%
    hedged: P99 2061.3 -> 151.0 ms, cut 13.7x (goal 5x) at 6.0% extra requests (goal <= 10%)
    per server (hedged): 127.0.0.1:8001 wins 40, P50 60.1 ms, P95 75.3 ms ...
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from dataclasses import replace
from pathlib import Path

from client.cli.bench import modes as bench_modes
from client.cli.bench import router as bench_router
from client.cli.common import pool_args
from client.cli.common.chat_common import EXIT_FAILED
from client.services.bench.export import exported
from client.services.bench.fleet import SINGLE, FleetRun, p99_cut, run_fleet
from client.services.bench.runner import BenchSettings
from client.services.fleet.pool import Policy
from client.services.hud.server_load import ServerLoads
from client.services.storage.stores import Stores
from client.services.tachy import Tachy

GOAL_CUT = 5.0  # the hedged P99 is at most a fifth of the single server's ...
GOAL_EXTRA = 0.10  # ... for at most 10 % more requests (issue 31)


async def run(args: argparse.Namespace, prompt: str) -> int:
    tachy = Tachy(Stores(), warm_models=False)
    try:
        pool = pool_args.find_pool(tachy, args, None)
        chosen = pool_args.policies(args.policy)
        async with pool_args.OpenPool(tachy, replace(pool, policy=chosen[0]), _key(args)) as fleet:
            model = args.model or pool.model or (await fleet.list_models())[0].name
            settings = BenchSettings(
                model=model,
                prompt=prompt,
                n=args.n,
                warmup=args.warmup,  # a hedged pool's own: at least HEDGE_WARMUP
                max_tokens=args.max_tokens,
            )
            levels = args.sweep or [args.concurrency]
            runs = await run_fleet(fleet.backends, pool, settings, chosen, levels, ServerLoads)
            if args.router:
                routers = await bench_router.open_routers(args, _key(args))
                try:
                    runs += await bench_router.run_routers(routers, pool, settings, levels)
                finally:
                    for router in routers:
                        await router.backend.aclose()
    finally:
        await tachy.aclose()
    table = sys.stderr if args.json == "-" else sys.stdout  # stdout: the JSON alone
    table.write(format_fleet(runs))
    table.flush()
    bench_modes.export([r for run in runs for r in exported(run.report.results, _named(run))], args)
    if args.json:
        text = json.dumps([run.as_dict() for run in runs], indent=2)
        if args.json == "-":
            print(text)
        else:
            await asyncio.to_thread(Path(args.json).write_text, text + "\n", encoding="utf-8")
    return 0 if any(r.report.figures().completed for r in runs) else EXIT_FAILED


def _named(run: FleetRun) -> str:
    return f"{run.label}, concurrency {run.concurrency}"


def _key(args: argparse.Namespace) -> str | None:
    return str(args.api_key) if args.api_key else None


def format_fleet(runs: list[FleetRun]) -> str:
    lines: list[str] = []
    for level in sorted({run.concurrency for run in runs}):
        at = [run for run in runs if run.concurrency == level]
        lines += ["", f"concurrency {level}, {len(at[0].report.warm_results)} answers each"]
        lines.append(_row("route", "P50 ms", "P95 ms", "P99 ms", "sent twice", "extra reqs"))
        lines += [_run_row(run) for run in at]
        for run in at:
            if run.label == Policy.HEDGED.value:
                lines.append(_cut_line(runs, run))
        lines += bench_router.comparison_lines(runs, level)
        for run in at:
            if run.via_router:
                lines.append(bench_router.workers_line(run))
            elif run.label != SINGLE:
                lines.append(_servers_line(run))
    return "\n".join(lines).lstrip("\n") + "\n"


def _row(*cells: str) -> str:
    name, *rest = cells
    return f"{name:<22}" + "".join(f"{cell:>12}" for cell in rest)


def _run_row(run: FleetRun) -> str:
    ttft = run.ttft
    figures = (
        ("-", "-", "-")
        if ttft is None
        else tuple(f"{v:.1f}" for v in (ttft.median, ttft.p95, ttft.p99))
    )
    twice = "-" if run.via_router else f"{run.sent_twice:.1%}"  # the router's own: not known
    extra = f"{run.extra_requests:.1%}" if run.extra_known else "-"
    return _row(run.label, *figures, twice, extra)


def _cut_line(runs: list[FleetRun], hedged: FleetRun) -> str:
    cut = p99_cut(runs, hedged.concurrency, hedged.label)
    single = next(r for r in runs if r.label == SINGLE and r.concurrency == hedged.concurrency)
    if cut is None or single.ttft is None or hedged.ttft is None:
        return "hedged: no P99 to compare"
    return (
        f"hedged: P99 {single.ttft.p99:.1f} -> {hedged.ttft.p99:.1f} ms, cut {cut:.1f}x "
        f"(goal {GOAL_CUT:g}x) at {hedged.extra_requests:.1%} extra requests "
        f"(goal <= {GOAL_EXTRA:.0%})"
    )


def _servers_line(run: FleetRun) -> str:
    parts = []
    for server in run.servers:
        p50 = "-" if server.p50_ms is None else f"{server.p50_ms:.1f}"
        p95 = "-" if server.p95_ms is None else f"{server.p95_ms:.1f}"
        parts.append(f"{server.name} wins {server.wins}, P50 {p50} ms, P95 {p95} ms")
    return f"per server ({run.label}): " + "; ".join(parts)
