"""`tachy models` and `tachy detect` against scripted servers on loopback."""

from __future__ import annotations

import json

import pytest

from client.cli import main
from client.lab import run_in_thread, scenario_from_dict
from tests.backends.live_server import LiveServer, Script
from tests.backends.test_live_http import closed_port


def test_models_lists_an_openai_server(capsys: pytest.CaptureFixture[str]) -> None:
    with LiveServer(Script(models=["alpha", "beta"])) as server:
        assert main(["models", "--url", server.url + "/v1"]) == 0
    out = capsys.readouterr().out
    assert "OpenAI-compatible server at" in out and "2 models" in out
    assert out.splitlines()[1:] == ["  alpha", "  beta"]


def test_models_names_a_vllm_and_counts_one_model(capsys: pytest.CaptureFixture[str]) -> None:
    """The lab speaks as vLLM does: /v1/models says owned_by "vllm"."""
    running = run_in_thread(scenario_from_dict({"seed": 1}))
    try:
        assert main(["models", "--url", running.url, "--api", "openai"]) == 0
    finally:
        running.stop()
    first = capsys.readouterr().out.splitlines()[0]
    assert first == f"vLLM server at {running.url}: 1 model"


def test_models_json_for_ollama(capsys: pytest.CaptureFixture[str]) -> None:
    with LiveServer(Script(api="ollama", models=["llama3.2:1b"])) as server:
        assert main(["models", "--url", server.url, "--json"]) == 0
    models = json.loads(capsys.readouterr().out)
    assert models[0]["name"] == "llama3.2:1b" and models[0]["loaded"] is False


def test_models_unreachable_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    url = f"http://127.0.0.1:{closed_port()}"
    assert main(["models", "--url", url, "--api", "ollama"]) == 2
    assert "Can't reach" in capsys.readouterr().err


def test_detect_finds_servers_on_given_ports(capsys: pytest.CaptureFixture[str]) -> None:
    with LiveServer(Script(api="ollama", models=["m1"])) as server:
        code = main(["detect", "--ports", f"{server.port},{closed_port()}", "--budget-ms", "2000"])
    out, err = capsys.readouterr()
    assert code == 0
    assert out == f"{server.url}  ollama  m1\n"
    assert "1 server(s)" in err


def test_detect_nothing_found(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["detect", "--ports", str(closed_port())]) == 1
    assert "tachy serve-local" in capsys.readouterr().err


def test_detect_one_url(capsys: pytest.CaptureFixture[str]) -> None:
    with LiveServer(Script(api="openai")) as server:
        assert main(["detect", "--url", server.url]) == 0
    assert capsys.readouterr().out == "openai\n"
