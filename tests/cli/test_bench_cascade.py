"""`tachy bench --fast --strong`: TTFT percentiles per route, fallbacks counted."""

from __future__ import annotations

import json

import pytest

from client.cli import main
from client.services.bench import cascade as bench_cascade
from client.services.bench.cascade import MIXED_PROMPTS
from client.services.planning.router import route_by_rules
from tests.backends.live_server import LiveServer, Script
from tests.backends.test_live_http import closed_port


def test_the_mixed_prompts_reach_both_routes() -> None:
    tiers = [route_by_rules(p).tier.value for p in MIXED_PROMPTS]
    assert tiers.count("fast") == tiers.count("strong") == 4


def test_ttft_percentiles_per_route(capsys: pytest.CaptureFixture[str]) -> None:
    with (
        LiveServer(Script(tokens=["a", "b"], models=["small"])) as fast,
        LiveServer(Script(tokens=["c", "d"], delay_s=0.05, models=["big"])) as strong,
    ):
        code = main(["bench", "--fast", fast.url, "--strong", strong.url, "-n", "8", "--json"])
    out, err = capsys.readouterr()
    assert code == 0
    report = json.loads(out)
    assert report["n"] == 8 and report["errors"] == 0 and report["fallbacks"] == 0
    fast_ttft, strong_ttft = report["ttft_ms"]["fast"], report["ttft_ms"]["strong"]
    assert fast_ttft["n"] == strong_ttft["n"] == 4
    # the strong server waits 50 ms before each token; the fast one does not
    assert strong_ttft["median"] > fast_ttft["median"] + 30
    assert len(fast.requests) == len(strong.requests) == 4 + 1  # + one warm-up each
    assert "fast (small)" in err and "strong (big)" in err and "p95" in err


def test_a_dead_strong_server_is_answered_by_the_fast_one(
    capsys: pytest.CaptureFixture[str],
) -> None:
    dead = f"http://127.0.0.1:{closed_port()}#big"
    with LiveServer(Script(models=["small"])) as fast:
        code = main(["bench", "--fast", fast.url, "--strong", dead, "-n", "4", "--warmup", "0"])
    out = capsys.readouterr().out
    assert code == 0
    assert "4 requests, 2 fallbacks, 0 errors" in out
    rows = {line.split()[0]: line.split() for line in out.splitlines() if line.strip()}
    assert rows["fast"][2] == "4" and rows["strong"][2] == "0"


def test_a_silent_strong_server_falls_back_after_the_cascade_wait(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(bench_cascade, "FALLBACK_AFTER_S", 0.3)  # stands for its 10 s
    with (
        LiveServer(Script(models=["small"])) as fast,
        LiveServer(Script(api="ollama", hang_after=0)) as strong,
    ):
        args = ["--strong", f"{strong.url}#big", "-n", "2", "--warmup", "0", "--json"]
        code = main(["bench", "--fast", f"{fast.url}#small", *args])  # first-token 60 s
    assert code == 0
    report = json.loads(capsys.readouterr().out)
    assert report["n"] == 2 and report["fallbacks"] == 1 and report["errors"] == 0
    # as the window counts it: from the first request, the strong model's 0.3 s included
    # (its timer starts as the request goes out, a moment before it is stamped written)
    (fallen,) = [r for r in report["requests"] if r["route"] != r["answered_by"]]
    assert fallen["ttft_ms"] >= 200
