"""The `tachy bench` options beyond a fixed-concurrency table: request rate, SLOs and
goodput, per-request export, the PNG report and the concurrency sweep."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from client.backends.reasons import os_words
from client.services.bench.export import (
    ExportedRequest,
    ExportError,
    exported,
    write_export,
    write_requests,
)
from client.services.bench.figures import SloError, parse_slo
from client.services.bench.runner import BenchReport
from client.services.bench.sweep import (
    KNEE_FACTOR,
    KNEE_MIN_N,
    SweepError,
    SweepPoint,
    knee,
    parse_levels,
    tier_crossings,
    too_few,
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--request-rate",
        type=_rate,
        metavar="PER_S",
        help="send requests as a Poisson process at this rate instead of a fixed concurrency",
    )
    parser.add_argument(
        "--max-concurrency",
        type=_positive,
        metavar="N",
        help="with --request-rate: at most N requests in flight",
    )
    parser.add_argument("--seed", type=int, default=0, help="seed of the arrival times (0)")
    parser.add_argument(
        "--slo",
        type=_slo,
        metavar="NAME=MS,...",
        help="service-level objectives for goodput, e.g. ttft=300,tpot=50 (also itl, e2el)",
    )
    parser.add_argument(
        "--export", type=Path, metavar="FILE", help="per-request figures to FILE.csv or FILE.json"
    )
    parser.add_argument(
        "--report", type=Path, metavar="FILE.png", help="draw histograms and a timeline to a PNG"
    )
    parser.add_argument(
        "--sweep",
        type=_levels,
        metavar="1,2,4,8",
        help="run at each concurrency and print (and with --report draw) the curve",
    )


def conflict(args: argparse.Namespace) -> str | None:
    """A sentence when options that cannot go together were given, else None."""
    if args.sweep and args.request_rate:
        return "--sweep varies the concurrency; it can't be combined with --request-rate"
    if args.max_concurrency and not args.request_rate:
        return "--max-concurrency caps --request-rate runs; use --concurrency otherwise"
    if args.sweep and args.cold:
        return "--sweep measures warm requests; it can't be combined with --cold"
    return None


def settings_extras(args: argparse.Namespace) -> dict[str, Any]:
    return {
        "request_rate": args.request_rate,
        "max_concurrency": args.max_concurrency,
        "seed": args.seed,
        "slo": args.slo,
    }


def run_lines(report: BenchReport) -> list[str]:
    """Throughput and goodput lines under the percentile table."""
    figures = report.figures()
    lines = [
        f"throughput: {figures.request_throughput:.2f} requests/s, "
        f"{figures.output_throughput:.1f} output tokens/s over {figures.duration_s:.2f} s"
    ]
    if report.settings.request_rate:
        lines.append(f"arrivals: Poisson at {report.settings.request_rate:g} requests/s")
    if (good := report.goodput()) is not None:
        slo = ", ".join(f"{k} <= {v:g} ms" for k, v in good["slo_ms"].items())
        lines.append(
            f"goodput: {good['requests']} of {len(report.warm_results)} requests met {slo} "
            f"({good['fraction']:.0%}, {good['per_s']:.2f}/s)"
        )
    return lines


def write_files(report: BenchReport, args: argparse.Namespace) -> None:
    """--export and --report; a failure is one sentence on stderr, the table stays."""
    if args.export is not None:
        try:
            write_export(report, args.export)
        except ExportError as error:
            print(f"tachy bench: {error}", file=sys.stderr)
    if args.report is not None:
        from client.ui.demo.bench_report import save_bench_report  # Qt only when asked

        try:
            save_bench_report(report, args.report)
        except OSError as error:
            print(f"tachy bench: can't save {args.report}: {os_words(error)}.", file=sys.stderr)


def export(requests: Sequence[ExportedRequest], args: argparse.Namespace) -> None:
    """--export for the modes that are not a plain run (sweep, pool, race, cascade,
    spec): each request with the run it belongs to; a failure is one sentence."""
    if args.export is None:
        return
    try:
        write_requests(requests, args.export)
    except ExportError as error:
        print(f"tachy bench: {error}", file=sys.stderr)


SWEEP_HEADER = (
    f"{'concurrency':>11}{'n':>5}{'ttft_p50':>10}{'ttft_p95':>10}{'p95 95% bounds':>18}"
    f"{'tokens/s':>10}{'errors':>8}"
)


def format_sweep(points: list[SweepPoint]) -> str:
    lines = [SWEEP_HEADER]
    for p in points:
        bounds = _bounds(p.ttft_p95_low_ms, p.ttft_p95_high_ms)
        lines.append(
            f"{p.concurrency:>11}{p.ttft_n:>5}{_fmt(p.ttft_p50_ms):>10}{_fmt(p.ttft_p95_ms):>10}"
            f"{bounds:>18}{p.output_throughput:>10.1f}{p.errors:>8}"
        )
    if any(p.ttft_p95_high_ms is None and p.ttft_p95_low_ms is not None for p in points):
        lines.append("(?: a P95's upper bound needs at least 73 requests at its level)")
    lines.append(knee_sentence(points))
    for bound, level, before in tier_crossings(points):
        where = f"between concurrency {before} and {level}" if before else f"at concurrency {level}"
        lines.append(f"TTFT P95 crosses {bound:.0f} ms {where}")
    return "\n".join(lines) + "\n"


def knee_sentence(points: list[SweepPoint]) -> str:
    """The knee, or why the sweep cannot name one."""
    found = knee(points)
    if found is not None:
        return (
            f"knee: concurrency {found} (the last level whose TTFT P95 stays within "
            f"{KNEE_FACTOR}x; at least {KNEE_MIN_N} requests a level)"
        )
    few = too_few(points)
    if not few:
        return "knee: none (no level had a successful request)"
    levels = ", ".join(str(p.concurrency) for p in few)
    return (
        f"knee: not decided: concurrency {levels} had fewer than {KNEE_MIN_N} successful "
        f"requests, and a P95 of so few is nearly their slowest, so noise would decide. "
        f"Run with -n {KNEE_MIN_N} or more (the bounds beside each P95 show how far it can move)"
    )


def write_sweep(points: list[SweepPoint], args: argparse.Namespace) -> None:
    table_stream = sys.stderr if args.json == "-" else sys.stdout
    table_stream.write(format_sweep(points))
    table_stream.flush()
    if args.json is not None:
        data = {
            "sweep": [p.as_dict() for p in points],
            "knee": knee(points),
            "knee_note": knee_sentence(points),
            "knee_min_n": KNEE_MIN_N,
            "tier_crossings": [
                {"bound_ms": b, "concurrency": c, "after": a} for b, c, a in tier_crossings(points)
            ],
        }
        text = json.dumps(data, indent=2)
        if args.json == "-":
            print(text)
        else:
            Path(args.json).write_text(text + "\n", encoding="utf-8")
    export([r for p in points for r in exported(p.report.results, _at(p))], args)
    if args.report is not None:
        from client.ui.demo.bench_report import save_sweep_report

        try:
            save_sweep_report(points, knee(points), args.report)
        except OSError as error:
            print(f"tachy bench: can't save {args.report}: {os_words(error)}.", file=sys.stderr)


def _at(point: SweepPoint) -> str:
    return f"concurrency {point.concurrency}"


def _bounds(low: float | None, high: float | None) -> str:
    """'26.0 .. 31.5'; '?' for a side too few requests can bound."""
    if low is None and high is None:
        return "-"
    return f"{_fmt(low) if low is not None else '?'} .. {_fmt(high) if high is not None else '?'}"


def _fmt(value: float | None) -> str:
    return "-" if value is None else f"{value:.1f}"


def _rate(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError("must be a number of requests per second") from None
    if value <= 0:
        raise argparse.ArgumentTypeError("must be more than 0")
    return value


def _positive(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError("must be at least 1")
    return value


def _slo(text: str) -> dict[str, float]:
    try:
        return parse_slo(text)
    except SloError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def _levels(text: str) -> list[int]:
    try:
        return parse_levels(text)
    except SweepError as error:
        raise argparse.ArgumentTypeError(str(error)) from None
