from __future__ import annotations

from dataclasses import fields

import pytest

from client.backends.kinds.registry import decode_report, timings_of
from client.core.metrics import FIGURE_FIELDS, RequestMetrics, compute_metrics, figures_of
from client.core.timeline import RequestTimeline
from client.store.conversations.history import HistoryStore
from client.store.metrics_store import MetricsRecord, MetricsStore, parse_duration


def sample(ttft: float, **extra: object) -> RequestMetrics:
    values: dict[str, object] = dict(
        ttft_ms=ttft,
        ttfo_ms=ttft + 1,
        tpot_ms=20.0,
        tokens_per_s=50.0,
        e2el_ms=ttft + 500,
        output_tokens=26,
        tier="fast",
    )
    values.update(extra)
    return RequestMetrics(**values)  # type: ignore[arg-type]


def test_record_round_trips_every_field(metrics_store: MetricsStore, history: HistoryStore) -> None:
    chat = history.create_conversation()
    message = history.add_message(chat.id, "assistant", "x")
    metrics = sample(
        120.5,
        headers_ms=3.25,
        paint_ms=0.8,
        prompt_tokens=12,
        output_tokens_estimated=True,
        chunks=25,
        server=decode_report({"llamacpp": {"predicted_n": 26.0, "prompt_ms": 9.5}}),
    )
    stages = {"request_written": 0.0, "first_token": 120.5}
    record_id = metrics_store.record(
        metrics,
        server="http://127.0.0.1:8080",
        model="smol",
        outcome="complete",
        message_id=message.id,
        cold=True,
        stages=stages,
        at=1_700_000_000.5,
    )
    [record] = metrics_store.query()
    assert record.id == record_id and record.time == 1_700_000_000.5
    assert (record.server, record.model, record.message_id) == (
        "http://127.0.0.1:8080",
        "smol",
        message.id,
    )
    assert (record.ttft_ms, record.ttfo_ms, record.tpot_ms, record.tokens_per_s) == (
        120.5,
        121.5,
        20.0,
        50.0,
    )
    assert (record.e2el_ms, record.headers_ms, record.paint_ms) == (620.5, 3.25, 0.8)
    assert (record.prompt_tokens, record.output_tokens, record.output_tokens_estimated) == (
        12,
        26,
        True,
    )
    assert (record.chunks, record.tier, record.cold, record.outcome) == (
        25,
        "fast",
        True,
        "complete",
    )
    assert record.stages == stages
    assert record.server_timings == {"llamacpp": {"predicted_n": 26.0, "prompt_ms": 9.5}}
    assert figures_of(record) == figures_of(metrics)  # and any figure added later
    metrics_store.set_paint_ms(record_id, 1.5)
    assert metrics_store.query()[0].paint_ms == 1.5


def test_the_table_has_a_column_for_each_field_of_the_record(
    metrics_store: MetricsStore,
) -> None:
    """A figure added to client.core.metrics needs a migration that adds its column."""
    columns = [row[1] for row in metrics_store.db.query("PRAGMA table_info(request_metrics)")]
    assert sorted(columns) == sorted(f.name for f in fields(MetricsRecord))
    assert set(FIGURE_FIELDS) < set(columns)


def test_records_computed_metrics_from_a_timeline(metrics_store: MetricsStore) -> None:
    timeline = RequestTimeline()
    metrics = compute_metrics(timeline, server_timings=[timings_of("ollama", {"eval_count": 3})])
    metrics_store.record(metrics, server="s", model="m", outcome="failed")
    [record] = metrics_store.query()
    assert record.ttft_ms is None and record.tier is None
    assert record.server_timings == {"ollama": {"eval_count": 3}}


def test_query_filters_order_and_limit(metrics_store: MetricsStore) -> None:
    rows = [(1000.0, "a", "m1"), (2000.0, "b", "m1"), (3000.0, "a", "m2"), (4000.0, "a", "m1")]
    for n, (at, server, model) in enumerate(rows):
        metrics_store.record(
            sample(float(n)), server=server, model=model, outcome="complete", at=at, cold=n == 0
        )
    times = lambda records: [r.time for r in records]  # noqa: E731
    assert times(metrics_store.query()) == [1000.0, 2000.0, 3000.0, 4000.0]
    assert times(metrics_store.query(since_s=2000.0)) == [2000.0, 3000.0, 4000.0]
    assert times(metrics_store.query(model="m1")) == [1000.0, 2000.0, 4000.0]
    assert times(metrics_store.query(server="a", model="m1")) == [1000.0, 4000.0]
    assert times(metrics_store.query(limit=2)) == [3000.0, 4000.0]  # the last two, oldest first
    assert times(metrics_store.query(include_cold=False)) == [2000.0, 3000.0, 4000.0]
    assert metrics_store.query(model="nope") == []
    assert metrics_store.count() == 4


def test_metrics_survive_a_purged_conversation_unlinked(
    metrics_store: MetricsStore, history: HistoryStore
) -> None:
    chat = history.create_conversation()
    message = history.add_message(chat.id, "assistant", "x")
    metrics_store.record(
        sample(10.0), server="s", model="m", outcome="complete", message_id=message.id
    )
    metrics_store.record(
        sample(20.0), server="s", model="m", outcome="complete", message_id=message.id
    )
    assert [r.ttft_ms for r in metrics_store.for_messages([message.id])[message.id]] == [10, 20]
    history.purge(chat.id)
    assert [r.message_id for r in metrics_store.query()] == [None, None]
    assert metrics_store.for_messages([message.id]) == {}


@pytest.mark.parametrize(
    ("text", "seconds"),
    [
        ("90s", 90),
        ("10m", 600),
        ("2h", 7200),
        ("7d", 604800),
        ("1w", 604800),
        ("1h30m", 5400),
        ("1.5h", 5400),
        (" 10M ", 600),
        ("250ms", 0.25),
    ],
)
def test_parse_duration(text: str, seconds: float) -> None:
    assert parse_duration(text) == pytest.approx(seconds)


@pytest.mark.parametrize("text", ["", "10", "m", "10x", "ten minutes", "-5m", "5m garbage"])
def test_parse_duration_rejects(text: str) -> None:
    with pytest.raises(ValueError, match="duration"):
        parse_duration(text)
