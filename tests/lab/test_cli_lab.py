"""`tachy lab` from the command line."""

from __future__ import annotations

import subprocess
import sys

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
