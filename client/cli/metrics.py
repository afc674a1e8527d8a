"""`tachy metrics`: the stored per-request latency metrics and their percentiles.

--format json prints {"n", "requests": [...oldest first], "ttft_ms": {"n", "mean", "median",
"p90", "p95", "p99"}, "ttfo_ms": ..., "tpot_ms": ..., "tokens_per_s": ..., "e2el_ms": ...,
"qoe": {... and "p5"}} with the names `tachy bench --json` uses; a summary is null when no
request has that value. qoe is Andes' QoE of each answer (client/core/qoe.py): its low
tail (p5) is what matters. --format csv prints one row per request (for spreadsheets).
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import sqlite3
import sys
import time
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any, TextIO

from client.backends.reasons import os_words
from client.core.stats import summarize
from client.services.hud.reading_quality import (
    READER_FIRST_TOKEN_S,
    READER_TOKENS_PER_S,
    qoe_spread,
)
from client.store.conversations.export import iso_time
from client.store.db import Database, DatabaseTooNew, database_path
from client.store.metrics_store import (
    EXPORT_FIELDS,
    SUMMARY_FIELDS,
    MetricsRecord,
    MetricsStore,
    parse_duration,
)

SUMMARISED = (*SUMMARY_FIELDS, "qoe")
TABLE_COLUMNS = (
    "time",
    "server",
    "model",
    "ttft_ms",
    "ttfo_ms",
    "tpot_ms",
    "tokens_per_s",
    "qoe",
    "e2el_ms",
    "output_tokens",
    "tier",
    "cold",
    "outcome",
)
CSV_COLUMNS = EXPORT_FIELDS


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--since", metavar="DURATION", help="only requests in the last DURATION, e.g. 10m, 2h, 7d"
    )
    parser.add_argument("--model", dest="metrics_model", metavar="M", help="only this model")
    parser.add_argument("--server", metavar="S", help="only this server (its URL)")
    parser.add_argument("--format", choices=["table", "csv", "json"], default="table")
    parser.add_argument("--limit", type=int, metavar="N", help="only the last N requests")


def run(args: argparse.Namespace) -> int:
    since_s: float | None = None
    if args.since is not None:
        try:
            since_s = time.time() - parse_duration(args.since)
        except ValueError as error:
            print(f"tachy metrics: --since: {error}", file=sys.stderr)
            return 2
    if args.limit is not None and args.limit < 1:
        print("tachy metrics: --limit must be at least 1", file=sys.stderr)
        return 2
    model = getattr(args, "metrics_model", None) or getattr(args, "model", None)
    path = database_path()
    if path.parent.exists() and not path.parent.is_dir():
        print(
            f"tachy metrics: cannot read the history: {path.parent} is a file, not a "
            "folder. Move it away or set TACHY_DATA_DIR (see `tachy doctor`).",
            file=sys.stderr,
        )
        return 1
    if not path.exists():  # do not create a history just to say it is empty
        return _report(args.format, [], "No stored metrics yet: chat with a model first.")
    try:
        with Database(path) as db:
            store = MetricsStore(db)
            records = store.query(
                since_s=since_s, model=model, server=args.server, limit=args.limit
            )
            total = store.count() if not records else len(records)
    except DatabaseTooNew as error:
        print(f"tachy metrics: {error}", file=sys.stderr)
        return 1
    except sqlite3.DatabaseError as error:  # not a database, or damaged
        print(
            f"tachy metrics: the history at {path} is damaged ({error}). Start `tachy`: "
            "it keeps the damaged file and recovers what is readable (see `tachy doctor`).",
            file=sys.stderr,
        )
        return 1
    except OSError as error:  # the folder or the file refuses (permission, read-only)
        print(
            f"tachy metrics: cannot open the history at {path}: {os_words(error)}.",
            file=sys.stderr,
        )
        return 1
    empty = (
        "No stored metrics yet: chat with a model first."
        if total == 0
        else f"No stored requests match these filters ({total} stored in total)."
    )
    try:
        return _report(args.format, records, empty)
    except BrokenPipeError:  # `tachy metrics | head`: the reader left, which is fine
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())  # so the exit flush does not complain
        return 141  # 128 + SIGPIPE, as other Unix tools end


def _report(output_format: str, records: list[MetricsRecord], empty_message: str) -> int:
    out = sys.stdout
    if output_format == "json":
        json.dump(as_json(records), out, indent=2)
        out.write("\n")
        if not records:
            print(empty_message, file=sys.stderr)
    elif not records:
        print(empty_message, file=out if output_format == "table" else sys.stderr)
    elif output_format == "csv":
        write_csv(records, out)
    else:
        write_table(records, out)
    return 0


def summaries(records: Sequence[MetricsRecord]) -> dict[str, dict[str, float] | None]:
    result: dict[str, dict[str, float] | None] = {}
    for name in SUMMARISED:
        summary = summarize(getattr(r, name) for r in records)
        result[name] = summary.as_dict() if summary else None
    spread = qoe_spread(r.qoe for r in records)
    if result["qoe"] is not None and spread.p5 is not None:
        result["qoe"]["p5"] = spread.p5
    return result


def request_dict(record: MetricsRecord) -> dict[str, Any]:
    """time: ISO 8601 UTC (as `tachy bench` and the HUD export), time_unix: seconds."""
    data = record.as_dict()
    data["time_unix"] = record.time
    data["time"] = iso_time(record.time)
    return data


def as_json(records: Sequence[MetricsRecord]) -> dict[str, Any]:
    return {"n": len(records), "requests": [request_dict(r) for r in records], **summaries(records)}


def write_csv(records: Sequence[MetricsRecord], out: TextIO) -> None:
    writer = csv.DictWriter(out, fieldnames=CSV_COLUMNS, extrasaction="ignore", lineterminator="\n")
    writer.writeheader()
    for record in records:
        writer.writerow({k: ("" if v is None else v) for k, v in request_dict(record).items()})


def _cell(name: str, value: Any) -> str:
    if value is None:
        return "–"
    if name == "time":
        return datetime.fromtimestamp(value, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:.2f}" if name == "qoe" else f"{value:.1f}"
    return str(value)


def _table(header: Sequence[str], rows: list[list[str]], out: TextIO) -> None:
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(header)]
    for row in [list(header), *rows]:
        out.write("  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip() + "\n")


def write_table(records: Sequence[MetricsRecord], out: TextIO) -> None:
    rows = []
    for record in records:
        row = [_cell(name, getattr(record, name)) for name in TABLE_COLUMNS]
        if record.output_tokens_estimated and record.output_tokens is not None:
            row[TABLE_COLUMNS.index("output_tokens")] = f"~{record.output_tokens}"
        rows.append(row)
    _table(TABLE_COLUMNS, rows, out)
    out.write(f"\n{len(records)} requests (~ = token count estimated from chunks)\n\n")
    summary_rows = []
    for name, summary in summaries(records).items():
        if summary is None:
            summary_rows.append([name, "0", "–", "–", "–", "–", "–"])
            continue
        keys = ("n", "mean", "median", "p90", "p95", "p99")
        digits = 2 if name == "qoe" else 1
        summary_rows.append(
            [name, *(f"{summary[k]:.0f}" if k == "n" else f"{summary[k]:.{digits}f}" for k in keys)]
        )
    _table(("metric", "n", "mean", "median", "p90", "p95", "p99"), summary_rows, out)
    out.write(qoe_line(records))


def qoe_line(records: Sequence[MetricsRecord]) -> str:
    """The QoE's median and low tail, with the reader they assume."""
    spread = qoe_spread(r.qoe for r in records)
    if spread.p50 is None or spread.p5 is None:
        return ""
    return (
        f"\nqoe (Andes; a reader at {READER_TOKENS_PER_S:g} tokens/s after "
        f"{READER_FIRST_TOKEN_S:g} s): P50 {spread.p50:.2f}, P5 {spread.p5:.2f} (n {spread.n})\n"
    )
