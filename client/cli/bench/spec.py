"""`tachy bench --local --spec KIND`: speculative decoding against a run without it.

Two fresh local engines in turn, the same requests to each: first without speculative
decoding (the baseline), then with KIND. Printed: each run's decode tokens/s (the
engine's own `timings.predicted_per_second`, median over the measured requests), the
speed-up (with / without) and the acceptance rate (draft tokens accepted / drafted).
Without --temperature both runs decode greedily (temperature 0): the same text each time,
so the two runs differ only by the speculation.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from client.backends import OpenAICompatBackend
from client.backends.engine.engine_settings import EngineSettings
from client.backends.engine.local_engine import LocalEngine
from client.cli.bench import modes as bench_modes
from client.services.bench.export import exported
from client.services.bench.runner import BenchReport, BenchSettings, run_bench


@dataclass(frozen=True, slots=True)
class SpecRun:
    spec: str  # "" for the baseline
    decode_tokens_per_s: float | None  # median over the requests that reported it
    drafted: int
    accepted: int
    requests: int

    @property
    def acceptance(self) -> float | None:
        return self.accepted / self.drafted if self.drafted else None

    def as_dict(self) -> dict[str, Any]:
        return {
            "spec": self.spec or "off",
            "decode_tokens_per_s": self.decode_tokens_per_s,
            "drafted": self.drafted,
            "accepted": self.accepted,
            "acceptance": self.acceptance,
            "requests": self.requests,
        }


def spec_run(spec: str, report: BenchReport) -> SpecRun:
    servers = [r.metrics.server for r in report.warm_results if r.ok]
    rates = [rate for s in servers if (rate := s.figures().get("server_tokens_per_s"))]
    drafts = [d for s in servers for t in s.values() if (d := t.drafts()) is not None]
    return SpecRun(
        spec,
        statistics.median(rates) if rates else None,
        sum(drafted for drafted, _ in drafts),
        sum(accepted for _, accepted in drafts),
        len(servers),
    )


async def measure(spec: str, settings: BenchSettings, base: EngineSettings) -> BenchReport:
    engine = LocalEngine(settings=base.with_changes(spec=spec))
    await engine.start()
    backend = OpenAICompatBackend(engine.url)
    try:
        report = await run_bench(backend, replace(settings, model=engine.model))
    finally:
        await backend.aclose()
        await engine.stop()
    return report


async def compare(spec: str, settings: BenchSettings, args: argparse.Namespace) -> int:
    base = EngineSettings.default()
    if settings.temperature is None:
        settings = replace(settings, temperature=0.0)
    reports = [await measure("", settings, base), await measure(spec, settings, base)]
    baseline, speculative = spec_run("", reports[0]), spec_run(spec, reports[1])
    named = zip(("off", spec), reports, strict=True)
    bench_modes.export([r for name, rep in named for r in exported(rep.results, name)], args)
    json_target: str | None = args.json
    speed_up = (
        speculative.decode_tokens_per_s / baseline.decode_tokens_per_s
        if speculative.decode_tokens_per_s and baseline.decode_tokens_per_s
        else None
    )
    write_comparison(baseline, speculative, speed_up, json_target)
    return 0 if baseline.requests and speculative.requests else 1


def write_comparison(
    baseline: SpecRun, speculative: SpecRun, speed_up: float | None, json_target: str | None
) -> None:
    """The table on stdout (stderr when the JSON goes to stdout), the JSON to its target."""
    out = sys.stderr if json_target == "-" else sys.stdout
    out.write(format_comparison(baseline, speculative, speed_up))
    if json_target is None:
        return
    runs = {"baseline": baseline.as_dict(), "spec": speculative.as_dict()}
    text = json.dumps({**runs, "speed_up": speed_up}, indent=2)
    if json_target == "-":
        print(text)
    else:
        Path(json_target).write_text(text + "\n", encoding="utf-8")


def format_comparison(baseline: SpecRun, speculative: SpecRun, speed_up: float | None) -> str:
    lines = ["run            decode tokens/s  drafted  accepted  acceptance"]
    for run in (baseline, speculative):
        rate = "-" if run.decode_tokens_per_s is None else f"{run.decode_tokens_per_s:.1f}"
        share = "-" if run.acceptance is None else f"{run.acceptance * 100:.0f} %"
        name = run.spec or "off (baseline)"
        lines.append(f"{name:<14} {rate:>15}  {run.drafted:7d}  {run.accepted:8d}  {share:>10}")
    factor = "-" if speed_up is None else f"{speed_up:.2f}x"
    lines.append(f"speed-up with {speculative.spec}: {factor} (decode tokens/s, medians)")
    return "\n".join(lines) + "\n"
