"""`tachy lab` from the command line."""

from __future__ import annotations

import subprocess
import sys
import time

import httpx

from client.cli import build_parser, main


def test_arguments_and_defaults() -> None:
    args = build_parser().parse_args(["lab"])
    assert (args.host, args.port, args.scenario, args.upstream) == (
        "127.0.0.1",
        11435,
        "fast",
        None,
    )
    args = build_parser().parse_args(
        ["lab", "--port", "0", "--scenario", "slow", "--upstream", "http://127.0.0.1:8080"]
    )
    assert (args.port, args.scenario, args.upstream) == (0, "slow", "http://127.0.0.1:8080")


def test_a_bad_scenario_is_exit_code_2(capsys) -> None:
    assert main(["lab", "--scenario", "no-such-thing"]) == 2
    assert "neither a preset" in capsys.readouterr().err


def test_tachy_lab_serves_both_protocols_on_one_port() -> None:
    process = subprocess.Popen(
        [sys.executable, "-m", "client", "lab", "--port", "0", "--scenario", "instant"],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout is not None
        assert "scenario 'instant'" in process.stdout.readline()
        url = process.stdout.readline().split("Ollama API: ")[1].split("/api/chat")[0]
        assert url.startswith("http://127.0.0.1:")
        body = {
            "model": "tachy-lab",
            "messages": [{"role": "user", "content": "hi"}],
            "stream": False,
        }
        assert httpx.post(f"{url}/api/chat", json=body, timeout=10).json()["done"] is True
        assert httpx.post(f"{url}/v1/chat/completions", json=body, timeout=10).json()["choices"]
    finally:
        process.terminate()
        process.wait(10)


def test_record_needs_an_upstream_and_scrub_needs_record(capsys) -> None:
    assert main(["lab", "--record", "out.json"]) == 2
    assert main(["lab", "--scrub"]) == 2
    assert "--record needs --upstream URL" in capsys.readouterr().err


def test_tachy_lab_records_a_server_and_replays_it(tmp_path) -> None:
    from client.lab import run_in_thread

    upstream = run_in_thread("instant")
    path = tmp_path / "session.json"
    command = [sys.executable, "-m", "client", "lab", "--port", "0"]
    recorder = subprocess.Popen(
        [*command, "--upstream", upstream.url, "--record", str(path), "--scrub"],
        stdout=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
        text=True,
    )
    try:
        assert recorder.stdout is not None
        assert "recording" in recorder.stdout.readline()
        url = recorder.stdout.readline().split("client at ")[1].split(" ")[0]
        body = {"model": "tachy-lab", "messages": [{"role": "user", "content": "hi"}]}
        recorded = httpx.post(f"{url}/api/chat", json=body, timeout=10).content
        for _ in range(100):  # the file is written by a thread once the reply has ended
            if path.exists():
                break
            time.sleep(0.05)
    finally:
        recorder.terminate()
        recorder.wait(10)
        upstream.stop()
    replaying = subprocess.Popen(
        [*command, "--scenario", str(path)], stdout=subprocess.PIPE, text=True
    )
    try:
        assert replaying.stdout is not None
        assert "scenario 'session'" in replaying.stdout.readline()
        url = replaying.stdout.readline().split("Ollama API: ")[1].split("/api/chat")[0]
        replayed = httpx.post(f"{url}/api/chat", json=body, timeout=10).content
    finally:
        replaying.terminate()
        replaying.wait(10)
    assert replayed.count(b"\n") == recorded.count(b"\n") > 3  # scrubbed, same shape
    assert b'"done":true' in replayed
