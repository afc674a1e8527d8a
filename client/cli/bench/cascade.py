"""`tachy bench --fast URL#MODEL --strong URL#MODEL`: TTFT percentiles per route of a
cascade (client/services/bench/cascade.py runs it)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from client.backends.stream import StreamTimeouts
from client.cli.bench import modes as bench_modes
from client.cli.common import cascade_args
from client.core.stats import Summary
from client.services.bench.cascade import (
    MIXED_PROMPTS,
    CascadeBenchSettings,
    CascadeReport,
    run_cascade_bench,
)
from client.services.planning.router import Tier


async def run(args: argparse.Namespace, prompt: str | None) -> int:
    settings = CascadeBenchSettings(
        n=args.n,
        warmup=args.warmup,
        max_tokens=args.max_tokens,
        prompts=(prompt,) if prompt else MIXED_PROMPTS,
        timeouts=StreamTimeouts(first_byte_s=60.0, stall_s=15.0),
    )
    async with cascade_args.CascadeRoutes(args.fast, args.strong, args.api_key) as routes:
        report = await run_cascade_bench(routes, settings)
        models = {route.tier: route.model for route in routes}
    _write(report, models, args.json)
    bench_modes.export(report.exported(), args)
    return 0 if report.errors < len(report.results) else 1


def _write(report: CascadeReport, models: dict[str, str], json_target: str | None) -> None:
    table = sys.stderr if json_target == "-" else sys.stdout
    table.write(format_cascade_report(report, models))
    table.flush()
    if json_target is None:
        return
    text = json.dumps(report.as_dict(), indent=2, ensure_ascii=False)
    if json_target == "-":
        print(text)
    else:
        Path(json_target).write_text(text + "\n", encoding="utf-8")


def format_cascade_report(report: CascadeReport, models: dict[str, str]) -> str:
    lines = [
        f"cascade: {len(report.results)} requests, {report.fallbacks} fallbacks, "
        f"{report.errors} errors",
        "",
        f"{'ttft_ms by route':<28}"
        + "".join(f"{h:>10}" for h in ("n", "median", "p90", "p95", "p99")),
    ]
    for tier in Tier:
        lines.append(_row(f"{tier.value} ({models.get(tier.value, '-')})", report.ttft(tier.value)))
    return "\n".join(lines) + "\n"


def _row(name: str, summary: Summary | None) -> str:
    if summary is None:
        return f"{name:<28}{'0':>10}" + f"{'-':>10}" * 4
    values = (summary.median, summary.p90, summary.p95, summary.p99)
    return f"{name:<28}{summary.n:>10}" + "".join(f"{v:>10.1f}" for v in values)
