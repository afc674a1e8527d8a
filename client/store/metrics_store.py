"""Per-request latency metrics, kept so the HUD and `tachy metrics` see past sessions.

Names and definitions are those of shared/DESIGN.md (client.core.metrics). A row is
written once per request, after it ends, so recording never touches the streaming hot
path; the ui calls it through `await db.run(...)` (see client/store/db.py).
"""

from __future__ import annotations

import json
import re
import sqlite3
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from typing import Any

from client.core.metrics import FIGURE_FIELDS, MetricFigures, RequestMetrics, figures_of
from client.core.server_timings import ServerReport
from client.store.db import Database
from client.store.stage_records import (
    StageRecord,
    StoredStage,
    StoredStages,
    decode_stages,
    stored_form,
)

# The request_metrics table's columns, in its order (the schema: client/store/db.py).
_COLUMNS = (
    "id",
    "time",
    "server",
    "model",
    "message_id",
    *FIGURE_FIELDS,
    "tier",
    "cold",
    "outcome",
    "stages",
    "server_timings",
)
# What `tachy metrics --format csv|json` and the HUD's export write, in this order: the
# columns but the row id and the JSON ones, with the time also in unix seconds.
EXPORT_FIELDS = (
    "time",
    "time_unix",
    *(name for name in _COLUMNS if name not in ("id", "time", "stages", "server_timings")),
)
# The metrics summarised with percentiles, under the same names as `tachy bench --json`.
SUMMARY_FIELDS = ("ttft_ms", "ttfo_ms", "tpot_ms", "tokens_per_s", "e2el_ms")


@dataclass(slots=True, kw_only=True)
class MetricsRecord(MetricFigures):
    """One stored request: its figures, and where and when it ran. time: unix seconds,
    UTC; tier: the tier at the thresholds of the moment it was stored."""

    id: int
    time: float
    server: str
    model: str
    message_id: int | None = None
    tier: str | None = None
    cold: bool = False
    outcome: str = ""
    stages: StoredStages = field(default_factory=dict)  # as stored: decode_stages reads them
    server_timings: dict[str, dict[str, float]] = field(default_factory=dict)

    @property
    def stage_records(self) -> list[StageRecord]:
        """Its stages, typed (client/store/stage_records.py; old rows too)."""
        return decode_stages(self.stages)

    def as_dict(self) -> dict[str, Any]:
        data = asdict(self)
        return {name: data[name] for name in _COLUMNS}  # the table's order: id, time ...


def _json(text: str) -> Any:
    return {} if text == "{}" else json.loads(text)  # most rows have no stages/timings


def _record(row: sqlite3.Row) -> MetricsRecord:
    values = dict(zip(_COLUMNS, row, strict=True))
    values["output_tokens_estimated"] = values["output_tokens_estimated"] == 1
    values["cold"] = values["cold"] == 1
    values["stages"] = _json(values["stages"])
    values["server_timings"] = _json(values["server_timings"])
    return MetricsRecord(**values)


_DURATION_PART = re.compile(r"(\d+(?:\.\d+)?)\s*(ms|s|m|h|d|w)", re.IGNORECASE)
_SECONDS_PER_UNIT = {"ms": 0.001, "s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604800}


def parse_duration(text: str) -> float:
    """Seconds in "90s", "10m", "2h", "7d", "1w" or "1h30m". ValueError otherwise."""
    cleaned = text.strip().lower()
    parts = list(_DURATION_PART.finditer(cleaned))
    if not cleaned or "".join(p.group(0) for p in parts).replace(" ", "") != cleaned.replace(
        " ", ""
    ):
        raise ValueError(
            f"cannot read the duration {text!r}: use a number and a unit, e.g. 90s, 10m, 2h, 7d"
        )
    return sum(float(p.group(1)) * _SECONDS_PER_UNIT[p.group(2).lower()] for p in parts)


class MetricsStore:
    def __init__(self, db: Database) -> None:
        self.db = db

    def record(
        self,
        metrics: RequestMetrics,
        *,
        server: str,
        model: str,
        outcome: str,
        message_id: int | None = None,
        cold: bool = False,
        stages: Iterable[StageRecord | StoredStage] | StoredStages | None = None,
        at: float | None = None,
    ) -> int:
        """Store one request's metrics; returns the row id.

        stages: its StageRecords (client/store/stage_records.py encodes them), or JSON
        as older callers give it; server timings come from `metrics.server`.
        at: unix seconds (default: now).
        """
        values: dict[str, Any] = figures_of(metrics)
        values.update(
            tier=metrics.tier,
            time=self.db.clock() if at is None else at,
            server=server,
            model=model,
            message_id=message_id,
            cold=bool(cold),
            outcome=str(outcome),
            stages=json.dumps(stored_form(stages)),
            server_timings=json.dumps(metrics.server.encode()),
        )
        names = ", ".join(values)
        cursor = self.db.execute(
            f"INSERT INTO request_metrics ({names}) VALUES ({', '.join('?' * len(values))})",
            tuple(values.values()),
        )
        assert cursor.lastrowid is not None
        return cursor.lastrowid

    def set_paint_ms(self, record_id: int, paint_ms: float) -> None:
        """The ui learns paint_ms after the row may be written."""
        self.db.execute(
            "UPDATE request_metrics SET paint_ms = ? WHERE id = ?", (paint_ms, record_id)
        )

    def set_server_timings(self, record_id: int, server: ServerReport) -> None:
        """A figure learnt of the request after its row was written (what type-ahead
        saved it, client/services/warming/type_ahead.py) goes with its server's."""
        self.db.execute(
            "UPDATE request_metrics SET server_timings = ? WHERE id = ?",
            (json.dumps(server.encode()), record_id),
        )

    def query(
        self,
        since_s: float | None = None,
        model: str | None = None,
        server: str | None = None,
        limit: int | None = None,
        *,
        include_cold: bool = True,
    ) -> list[MetricsRecord]:
        """Requests oldest first. since_s: a unix time in seconds (keep rows at or after
        it); limit: the most recent `limit` rows (still oldest first)."""
        conditions: list[str] = []
        params: list[Any] = []
        for condition, value in (
            ("time >= ?", since_s),
            ("model = ?", model),
            ("server = ?", server),
        ):
            if value is not None:
                conditions.append(condition)
                params.append(value)
        if not include_cold:
            conditions.append("cold = 0")
        where = f"WHERE {' AND '.join(conditions)}" if conditions else ""
        sql = (
            f"SELECT {', '.join(_COLUMNS)} FROM request_metrics {where} ORDER BY time DESC, id DESC"
        )
        if limit is not None:
            sql += " LIMIT ?"
            params.append(limit)
        rows = self.db.query(sql, params)
        return [_record(row) for row in reversed(rows)]

    def last_ttfts(self, recent: int = 5000) -> dict[tuple[str, str], float]:
        """The last measured ttft_ms of each (server, model) among the most recent
        requests (a range of row ids: a few ms however long the history), for the
        model picker."""
        rows = self.db.query(
            "SELECT server, model, ttft_ms FROM request_metrics WHERE id IN ("
            " SELECT max(id) FROM request_metrics"
            " WHERE id > (SELECT coalesce(max(id), 0) FROM request_metrics) - ?"
            " AND ttft_ms IS NOT NULL GROUP BY server, model)",
            (recent,),
        )
        return {(str(server), str(model)): float(ttft) for server, model, ttft in rows}

    def count(self) -> int:
        return int(self.db.query("SELECT count(*) FROM request_metrics")[0][0])

    def for_messages(self, message_ids: Iterable[int]) -> dict[int, list[MetricsRecord]]:
        """Each message's requests, oldest first (a Continue adds a second one)."""
        found: dict[int, list[MetricsRecord]] = {}
        rows = self.db.query_in(
            f"SELECT {', '.join(_COLUMNS)} FROM request_metrics WHERE message_id IN ({{ids}}) "
            "ORDER BY time, id",
            list(message_ids),
        )
        for row in rows:
            record = _record(row)
            assert record.message_id is not None
            found.setdefault(record.message_id, []).append(record)
        return found
