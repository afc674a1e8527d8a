"""`tachy bench --export FILE.csv|FILE.json`: one row per measured request, the way
AIPerf and GuideLLM export their per-request records, for a spreadsheet or pandas."""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any

from client.core.stats import percentile
from client.services.bench.runner import BenchReport, RequestResult

COLUMNS = (
    "index", "start_s", "ttft_ms", "ttfo_ms", "tpot_ms", "itl_mean_ms", "itl_p99_ms",
    "e2el_ms", "output_tokens", "output_tokens_estimated", "chunks", "tokens_per_s",
    "cold", "outcome", "error",
)  # fmt: skip


class ExportError(ValueError):
    """The export file's name or place cannot be used; the message says why."""


def request_rows(report: BenchReport) -> list[dict[str, Any]]:
    ordered = sorted(report.results, key=lambda r: r.started_at)
    origin = ordered[0].started_at if ordered else 0.0
    return [_row(i, r, origin) for i, r in enumerate(ordered)]


def _row(index: int, result: RequestResult, origin: float) -> dict[str, Any]:
    m = result.metrics
    gaps = sorted(m.itl_ms)
    return {
        "index": index,
        "start_s": round(result.started_at - origin, 6),
        "ttft_ms": m.ttft_ms,
        "ttfo_ms": m.ttfo_ms,
        "tpot_ms": m.tpot_ms,
        "itl_mean_ms": sum(gaps) / len(gaps) if gaps else None,
        "itl_p99_ms": percentile(gaps, 99) if gaps else None,
        "e2el_ms": m.e2el_ms,
        "output_tokens": m.output_tokens,
        "output_tokens_estimated": m.output_tokens_estimated,
        "chunks": m.chunks,
        "tokens_per_s": m.tokens_per_s,
        "cold": result.cold,
        "outcome": result.outcome,
        "error": result.error,
        "itl_ms": list(m.itl_ms),  # JSON only: CSV keeps one value per cell
    }


def write_export(report: BenchReport, target: Path) -> None:
    suffix = target.suffix.lower()
    if suffix not in (".csv", ".json"):
        raise ExportError(f"--export {target}: the name must end in .csv or .json")
    rows = request_rows(report)
    try:
        if suffix == ".json":
            text = json.dumps({"requests": rows}, indent=2)
            target.write_text(text + "\n", encoding="utf-8")
            return
        with target.open("w", newline="", encoding="utf-8") as handle:
            writer = csv.DictWriter(handle, fieldnames=COLUMNS, extrasaction="ignore")
            writer.writeheader()
            writer.writerows(rows)
    except OSError as exc:
        raise ExportError(f"can't write {target}: {exc.strerror or exc}") from exc
