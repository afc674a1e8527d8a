"""`tachy bench`: the table, the JSON, exit codes, --local --cold."""

from __future__ import annotations

import io
import json
from pathlib import Path

import psutil
import pytest

from client.backends.engine.local_engine import LocalEngine, free_port
from client.backends.kinds.registry import decode_report
from client.cli import main
from client.cli.bench import ProgressBar, format_report
from client.core.metrics import RequestMetrics
from client.services.bench.runner import BenchReport, BenchSettings, RequestResult

STAT_COLUMNS = ("n", "mean", "median", "p90", "p95", "p99")


def _engine_pids() -> set[int]:
    return {
        child.pid
        for child in psutil.Process().children(recursive=True)
        if "local_engine" in " ".join(child.cmdline())
    }


@pytest.mark.engine
def test_json_to_stdout_and_the_table_to_stderr(
    local_engine: LocalEngine, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(
        ["bench", "--url", local_engine.openai_url, "-n", "3", "--max-tokens", "6", "--json"]
    )
    out, err = capsys.readouterr()
    assert code == 0
    data = json.loads(out)  # nothing else on stdout
    assert (data["n"], data["errors"], data["api"]) == (3, 0, "openai")  # --api auto: detected
    assert data["model"] == local_engine.model  # no -m: the server's first model
    for name in ("ttft_ms", "ttfo_ms", "tpot_ms", "itl_ms", "e2el_ms", "tokens_per_s"):
        assert set(data[name]) == set(STAT_COLUMNS)
    assert data["ttft_ms"]["n"] == 3 and data["ttft_ms"]["median"] > 0
    assert len(data["requests"]) == 3 and data["cold"] is None
    # llama-server counts its tokens: nothing estimated, the server's prompt time kept
    assert not any(r["output_tokens_estimated"] for r in data["requests"])
    assert all(r["server_timings"]["llamacpp"]["prompt_n"] > 0 for r in data["requests"])
    header = next(line for line in err.splitlines() if line.startswith("metric"))
    assert header.split() == ["metric", *STAT_COLUMNS]
    assert any(line.split()[:2] == ["ttft_ms", "3"] for line in err.splitlines())
    assert "output tokens estimated" not in err


@pytest.mark.engine
def test_json_file_and_the_table_on_stdout(
    local_engine: LocalEngine, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "bench.json"
    args = ["bench", "--url", local_engine.url, "--api", "openai", "-m", local_engine.model]
    code = main([*args, "-n", "2", "--warmup", "0", "--max-tokens", "4", "--json", str(target)])
    out, _err = capsys.readouterr()
    assert code == 0
    assert json.loads(target.read_text())["n"] == 2
    assert any(line.startswith("tokens_per_s") for line in out.splitlines())


def test_unreachable_server_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    url = f"http://127.0.0.1:{free_port()}"
    code = main(["bench", "--url", url, "--api", "openai", "-m", "x", "-n", "2", "--warmup", "0"])
    out, err = capsys.readouterr()
    assert code == 2
    assert out == ""
    assert err.count("\n") == 1 and "Can't reach the server" in err


def test_missing_prompt_file_exits_1(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["bench", "--url", "http://127.0.0.1:9", "--prompt-file", str(tmp_path / "no")])
    assert code == 1
    assert capsys.readouterr().err == (
        f"tachy bench: can't read the prompt file {tmp_path / 'no'}: no such file or directory.\n"
    )


@pytest.mark.engine
def test_local_cold_restarts_the_engine_and_leaves_nothing_running(
    local_engine: LocalEngine, capsys: pytest.CaptureFixture[str]
) -> None:
    before = _engine_pids()
    code = main(["bench", "--local", "--cold", "-n", "2", "--max-tokens", "4", "--json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    data = json.loads(out)
    assert data["cold"]["cold"] is True and data["cold"]["error"] is None
    assert [r["cold"] for r in data["requests"]] == [True, False, False]
    assert "cold first request: ttft" in err
    assert _engine_pids() == before  # its own engine is stopped, the session one kept


def test_table_shows_server_timings_and_the_cold_request() -> None:
    server = {"llamacpp": {"prompt_ms": 12.0, "predicted_per_second": 60.0}}
    metrics = RequestMetrics(ttft_ms=50.0, ttfo_ms=50.0, e2el_ms=80.0, output_tokens=4)
    metrics.server = decode_report(server)
    cold = RequestResult(1.0, "http://s", "m", RequestMetrics(ttft_ms=300.0), cold=True)
    report = BenchReport(
        "http://s",
        "openai",
        BenchSettings(model="m"),
        [cold, RequestResult(2.0, "http://s", "m", metrics)],
    )
    text = format_report(report)
    assert "server-reported:" in text
    assert any(
        line.split()[:3] == ["server_tokens_per_s", "1", "60.0"] for line in text.splitlines()
    )
    assert "cold first request: ttft 300.0 ms" in text
    assert any(line.split()[:2] == ["tpot_ms", "0"] for line in text.splitlines())


def test_progress_bar_waits_a_second_then_draws() -> None:
    quiet = io.StringIO()
    ProgressBar(quiet)(1, 4)
    assert quiet.getvalue() == ""  # a fast run shows no bar
    shown = io.StringIO()
    bar = ProgressBar(shown, width=4, delay_s=0)
    bar(2, 4)
    bar.finish()
    assert shown.getvalue() == "\r[##..] 2/4\n"


LOAD_MS = 1500.0  # a request that waited for it takes longer, however busy the machine


def test_cold_with_warming_times_the_first_message_a_user_sends(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Against the lab's cold-start preset (Ollama API, a 1.5 s load): --cold alone
    reports the load in the first request; with --warming the model is loaded by the
    app's warm-up first, so the first request does not wait for it."""
    from dataclasses import replace

    from client.lab.scenarios.scenario import Distribution, preset
    from client.lab.server import run_in_thread

    scenario = replace(
        preset("cold-start"), load_ms=LOAD_MS, ttft=Distribution("fixed", 60.0), output_tokens=4
    )
    lab = run_in_thread(scenario)
    try:
        args = ["bench", "--url", lab.url, "--api", "ollama", "-n", "2", "--json"]
        assert main([*args, "--cold"]) == 0
        cold = json.loads(capsys.readouterr().out)
        assert main([*args, "--cold", "--warming"]) == 0
        out, err = capsys.readouterr()
        warmed = json.loads(out)
    finally:
        lab.stop()
    assert cold["cold"]["ttft_ms"] >= LOAD_MS and not cold["warmed_before_first"]
    assert warmed["warmed_before_first"] and "first request after warming: ttft" in err
    assert warmed["cold"]["ttft_ms"] < LOAD_MS  # the load happened in the warm-up, not here


@pytest.mark.engine
def test_bench_spec_prints_the_speed_up_beside_the_baseline(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "spec.json"
    code = "\n".join(f"def f{i}(x):\n    return x + {i}\n" for i in range(6))
    prompt = f"Repeat this code exactly:\n\n{code}"
    args = ["bench", "--local", "--spec", "ngram-simple", "-n", "2", "--max-tokens", "48"]
    assert main([*args, "--prompt", prompt, "--json", str(target)]) == 0
    out = capsys.readouterr().out
    assert "off (baseline)" in out and "speed-up with ngram-simple: " in out
    data = json.loads(target.read_text())
    assert data["baseline"]["drafted"] == 0 and data["baseline"]["decode_tokens_per_s"] > 0
    assert data["spec"]["spec"] == "ngram-simple" and data["spec"]["drafted"] > 0
    assert 0 < data["spec"]["acceptance"] <= 1
    assert data["speed_up"] == pytest.approx(
        data["spec"]["decode_tokens_per_s"] / data["baseline"]["decode_tokens_per_s"]
    )
