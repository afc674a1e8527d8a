"""`tachy chat` predicts its wait from answers the app got before, whoever asked: the
root's TTFT predictors learn from every answer (client/services/warming/ttft_learning.py)
and keep it per server and model in the settings store."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from client.cli import main
from client.lab import run_in_thread, scenario_from_dict
from client.services.servers.servers import ServerChoice
from client.services.storage.stores import open_stores
from client.services.tachy import Tachy
from tests.backends.test_live_http import closed_port

MODEL = "tachy-lab:latest"


async def _ask_through_the_window_free_tachy(url: str) -> float:
    """One answer through the app's own root, as the window sends it; its TTFT."""
    stores = open_stores()
    tachy = Tachy(stores, warm_models=False)
    try:
        choice = ServerChoice("Lab", url, "openai")
        backend = await tachy.backend(choice)
        session = tachy.use(backend, MODEL, choice)
        generation = session.generate(None, "Why is the sky blue?")
        async for _event in generation:
            pass
        assert generation.finished is not None
        ttft = generation.finished.metrics.ttft_ms
        assert ttft is not None
        return ttft
    finally:
        await tachy.aclose()  # saves what the predictor learned
        stores.close()


def _chat_json(url: str, data_dir: Path) -> list[dict[str, object]]:
    args = ["chat", "--url", url, "--api", "openai", "-m", MODEL, "--json", "And why red?"]
    env = {**os.environ, "TACHY_DATA_DIR": str(data_dir)}
    done = subprocess.run(
        [sys.executable, "-m", "client", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return [json.loads(line) for line in done.stdout.splitlines()]


def _plan_here(
    url: str, data_dir: Path, monkeypatch: pytest.MonkeyPatch, out: pytest.CaptureFixture[str]
) -> dict[str, object]:
    """The plan line of the same `tachy chat --json` in this process (one Python start
    less; the first test here is the one that starts a new process)."""
    monkeypatch.setenv("TACHY_DATA_DIR", str(data_dir))
    out.readouterr()
    args = ["chat", "--url", url, "--api", "openai", "-m", MODEL, "--json", "And why red?"]
    assert main(args) == 0
    lines = [json.loads(line) for line in out.readouterr().out.splitlines()]
    return next(line for line in lines if line["event"] == "plan")


async def test_a_new_chat_process_predicts_from_an_answer_the_app_got(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TACHY_DATA_DIR", str(tmp_path))
    running = run_in_thread(scenario_from_dict({"ttft": 40, "tpot_ms": 1, "output_tokens": 3}))
    try:
        first = _chat_json(running.url, tmp_path / "elsewhere")  # nothing learned there
        await _ask_through_the_window_free_tachy(running.url)
        second = _chat_json(running.url, tmp_path)
    finally:
        running.stop()
    [plan] = [line for line in first if line["event"] == "plan"]
    assert plan["predicted_ttft_ms"] is None  # no answer of this server and model yet
    assert second[0]["event"] == "plan"  # before the request
    predicted = second[0]["predicted_ttft_ms"]
    assert isinstance(predicted, float) and predicted > 0


def test_tachy_bench_teaches_the_same_predictor(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("TACHY_DATA_DIR", str(tmp_path))
    running = run_in_thread(scenario_from_dict({"ttft": 40, "tpot_ms": 1, "output_tokens": 3}))
    try:
        args = ["bench", "--url", running.url, "--api", "openai", "-m", MODEL, "-n", "2"]
        assert main(args) == 0
        plan = _plan_here(running.url, tmp_path, monkeypatch, capsys)
    finally:
        running.stop()
    predicted = plan["predicted_ttft_ms"]
    assert isinstance(predicted, float) and predicted > 0


def _learns_from(
    command: list[str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    out: pytest.CaptureFixture[str],
) -> object:
    """The plan line's prediction of a plain `tachy chat` after `command` (a cascade
    or a pool through the same lab server) answered once."""
    running = run_in_thread(scenario_from_dict({"ttft": 40, "tpot_ms": 1, "output_tokens": 3}))
    try:
        before = _plan_here(running.url, tmp_path / "elsewhere", monkeypatch, out)
        monkeypatch.setenv("TACHY_DATA_DIR", str(tmp_path))
        assert main([part.format(url=running.url) for part in command]) == 0
        plan = _plan_here(running.url, tmp_path, monkeypatch, out)
    finally:
        running.stop()
    assert before["predicted_ttft_ms"] is None
    return plan["predicted_ttft_ms"]


def test_a_cascade_answer_teaches_the_predictor_of_the_model_that_answered(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    ends = ["--fast", "{url}#" + MODEL, "--strong", "{url}#" + MODEL]
    predicted = _learns_from(["chat", *ends, "hi"], tmp_path, monkeypatch, capsys)
    assert isinstance(predicted, float) and predicted > 0


def test_a_pool_answer_teaches_the_predictor(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    pool = "{url},http://127.0.0.1:" + str(closed_port())  # a pool is two servers or more
    command = ["chat", "--api", "openai", "--pool", pool, "-m", MODEL, "hi"]
    predicted = _learns_from(command, tmp_path, monkeypatch, capsys)
    assert isinstance(predicted, float) and predicted > 0
