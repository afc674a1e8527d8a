"""`tachy bench --export FILE.csv|FILE.json`: one row per measured request, the way
AIPerf and GuideLLM export their per-request records, for a spreadsheet or pandas.

Every mode exports (issue 39): a plain run, each concurrency of a sweep, each policy of
a pool, each route of a race and of a cascade; the `run` column says which.

    write_export(report, Path("r.csv"))                       # a plain run
    write_requests(exported(point.report.results, "concurrency 4"), Path("sweep.json"))
"""

from __future__ import annotations

import csv
import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from client.core.metrics import RequestMetrics
from client.core.stats import percentile
from client.services.bench.runner import BenchReport, RequestResult

COLUMNS = (
    "index", "run", "start_s", "ttft_ms", "ttfo_ms", "tpot_ms", "itl_mean_ms", "itl_p99_ms",
    "e2el_ms", "prompt_tokens", "output_tokens", "output_tokens_estimated", "chunks",
    "tokens_per_s", "cold", "outcome", "empty", "error",
)  # fmt: skip


class ExportError(ValueError):
    """The export file's name or place cannot be used; the message says why."""


@dataclass(frozen=True, slots=True)
class ExportedRequest:
    """One measured request of any mode, as the export writes it."""

    run: str  # the run it belongs to: "" for a plain bench, a policy, a route ...
    metrics: RequestMetrics
    outcome: str  # the Done reason, or "failed"
    error: str | None = None
    cold: bool = False
    started_at: float | None = None  # wall-clock seconds; None: not kept by the mode

    @property
    def empty(self) -> bool:
        """Completed with no text: the model stopped at once (no first token to time)."""
        return self.error is None and self.metrics.ttft_ms is None


def exported(results: Iterable[RequestResult], run: str = "") -> list[ExportedRequest]:
    return [
        ExportedRequest(run, r.metrics, r.outcome, r.error, r.cold, r.started_at) for r in results
    ]


def request_rows(requests: Sequence[ExportedRequest]) -> list[dict[str, Any]]:
    starts = [r.started_at for r in requests if r.started_at is not None]
    origin = min(starts) if starts else 0.0
    return [_row(i, r, origin) for i, r in enumerate(requests)]


def _row(index: int, request: ExportedRequest, origin: float) -> dict[str, Any]:
    m = request.metrics
    gaps = sorted(m.itl_ms)
    start = request.started_at
    return {
        "index": index,
        "run": request.run,
        "start_s": None if start is None else round(start - origin, 6),
        "ttft_ms": m.ttft_ms,
        "ttfo_ms": m.ttfo_ms,
        "tpot_ms": m.tpot_ms,
        "itl_mean_ms": sum(gaps) / len(gaps) if gaps else None,
        "itl_p99_ms": percentile(gaps, 99) if gaps else None,
        "e2el_ms": m.e2el_ms,
        "prompt_tokens": m.prompt_tokens,
        "output_tokens": m.output_tokens,
        "output_tokens_estimated": m.output_tokens_estimated,
        "chunks": m.chunks,
        "tokens_per_s": m.tokens_per_s,
        "cold": request.cold,
        "outcome": request.outcome,
        "empty": request.empty,
        "error": request.error,
        "itl_ms": list(m.itl_ms),  # JSON only: CSV keeps one value per cell
    }


def write_export(report: BenchReport, target: Path) -> None:
    """A plain run's requests, in the order they started."""
    ordered = sorted(report.results, key=lambda r: r.started_at)
    write_requests(exported(ordered), target)


def write_requests(requests: Sequence[ExportedRequest], target: Path) -> None:
    suffix = target.suffix.lower()
    if suffix not in (".csv", ".json"):
        raise ExportError(f"--export {target}: the name must end in .csv or .json")
    rows = request_rows(requests)
    try:
        if suffix == ".json":
            text = json.dumps({"requests": rows}, indent=2, ensure_ascii=False)
            target.write_text(text + "\n", encoding="utf-8")
            return
        with target.open("w", newline="", encoding="utf-8") as handle:
            writer = csv.DictWriter(handle, fieldnames=COLUMNS, extrasaction="ignore")
            writer.writeheader()
            writer.writerows(rows)
    except OSError as exc:
        raise ExportError(f"can't write {target}: {exc.strerror or exc}") from exc
