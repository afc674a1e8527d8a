"""`tachy bench --race URL#MODEL URL#MODEL ...`: n questions raced on 2-4 routes at once,
TTFT and rate P50/P95 per route and how often each won (client/services/bench/race.py).

    tachy bench --race http://127.0.0.1:11434#qwen2.5:0.5b local -n 10
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from client.backends.errors import TachyError
from client.cli.bench import modes as bench_modes
from client.cli.common import cascade_args
from client.core.stats import Summary
from client.services.bench.race import RaceBenchReport, RaceBenchSettings, run_race_bench
from client.services.race.race import MAX_ROUTES, MIN_ROUTES


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--race",
        type=cascade_args.endpoint,
        nargs="+",
        metavar="URL#MODEL",
        help=f"race each question on {MIN_ROUTES} to {MAX_ROUTES} routes at once "
        "(URL#MODEL, URL or 'local') and compare them",
    )


def wanted(args: argparse.Namespace) -> bool:
    ends = args.race
    if ends is not None and not MIN_ROUTES <= len(ends) <= MAX_ROUTES:
        raise TachyError(f"--race needs {MIN_ROUTES} to {MAX_ROUTES} routes (URL#MODEL ...).")
    return ends is not None


async def run(args: argparse.Namespace, prompt: str) -> int:
    settings = RaceBenchSettings(
        n=args.n, prompt=prompt, max_tokens=args.max_tokens, warmup=args.warmup
    )
    async with cascade_args.OpenRoutes(args.race, args.api_key) as routes:
        report = await run_race_bench(routes, settings)
    _write(report, args.json)
    bench_modes.export(report.exported(), args)
    return 0 if any(route.completed for route in report.routes) else 1


def _write(report: RaceBenchReport, json_target: str | None) -> None:
    table = sys.stderr if json_target == "-" else sys.stdout
    table.write(format_race_report(report))
    table.flush()
    if json_target is None:
        return
    text = json.dumps(report.as_dict(), indent=2, ensure_ascii=False)
    if json_target == "-":
        print(text)
    else:
        Path(json_target).write_text(text + "\n", encoding="utf-8")


HEADINGS = ("n", "ttft p50", "ttft p95", "tok/s p50", "tok/s p95", "1st token", "1st done")


def format_race_report(report: RaceBenchReport) -> str:
    lines = [
        f"race: {report.races} questions on {len(report.routes)} routes at once, "
        f"max {report.settings.max_tokens} tokens",
        "",
        f"{'route':<36}" + "".join(f"{h:>10}" for h in HEADINGS),
    ]
    for route in report.routes:
        ttft, rate = route.ttft(), route.rate()
        cells = [
            str(len(route.completed)),
            *_p50_p95(ttft),
            *_p50_p95(rate),
            str(route.first_token_wins),
            str(route.finish_wins),
        ]
        lines.append(f"{_cut(route.name, 35):<36}" + "".join(f"{c:>10}" for c in cells))
    failed = [r for r in report.routes if r.errors]
    lines.extend(f"{r.name}: {r.errors} answers did not complete" for r in failed)
    return "\n".join(lines) + "\n"


def _p50_p95(summary: Summary | None) -> tuple[str, str]:
    if summary is None:
        return "-", "-"
    return f"{summary.median:.1f}", f"{summary.p95:.1f}"


def _cut(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"
