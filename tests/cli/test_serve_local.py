"""`tachy serve-local`: prints where the engine is, serves, and stops it on Ctrl-C."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys

import httpx
import psutil
import pytest

from client.backends.engine.local_engine import LOCAL_MODEL_NAME, free_port
from client.cli import main


@pytest.mark.engine
def test_serves_until_ctrl_c_then_stops_the_engine() -> None:
    port = free_port()
    tachy = subprocess.Popen(
        [sys.executable, "-m", "client", "serve-local", "--port", str(port)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,  # its own process group, like a terminal's foreground job
    )
    try:
        assert tachy.stdout is not None
        lines = dict(tachy.stdout.readline().split(" ", 1) for _ in range(4))
        info = {key: value.strip() for key, value in lines.items()}
        assert info["url"] == f"http://127.0.0.1:{port}"
        assert info["openai_url"] == f"http://127.0.0.1:{port}/v1"
        assert info["model"] == LOCAL_MODEL_NAME
        engine = psutil.Process(int(info["pid"]))
        models = httpx.get(f"{info['openai_url']}/models", timeout=60, trust_env=False)
        assert models.json()["data"][0]["id"] == LOCAL_MODEL_NAME

        os.killpg(tachy.pid, signal.SIGINT)  # Ctrl-C: the whole foreground group
        assert tachy.wait(timeout=120) == 0
        _gone, alive = psutil.wait_procs([engine], timeout=60)
        assert not alive
        assert "Local engine stopped." in (tachy.stderr.read() if tachy.stderr else "")
    finally:
        if tachy.poll() is None:
            tachy.kill()
            tachy.wait()


def test_port_in_use_is_a_clear_error(capsys: pytest.CaptureFixture[str]) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        code = main(["serve-local", "--port", str(port)])
    err = capsys.readouterr().err
    assert code == 1
    assert f"can't use port {port}: it is in use" in err
    assert "Traceback" not in err


@pytest.mark.parametrize(
    ("args", "sentence"),
    [
        (["--spec", "bogus"], "unknown speculative decoding 'bogus'"),
        (["--spec", "draft:/no/such/draft.gguf"], "no draft model file at /no/such/draft.gguf"),
        (["--threads", "0"], "--threads must be at least 1"),
    ],
)
def test_bad_engine_settings_are_one_sentence(
    args: list[str], sentence: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["serve-local", *args]) == 2
    err = capsys.readouterr().err
    assert sentence in err and "Traceback" not in err


@pytest.mark.engine
def test_spec_starts_the_engine_with_speculative_decoding() -> None:
    tachy = subprocess.Popen(
        [sys.executable, "-m", "client", "serve-local", "--spec", "ngram-simple"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        assert tachy.stdout is not None
        lines = dict(tachy.stdout.readline().split(" ", 1) for _ in range(4))
        url = lines["url"].strip()
        slots = httpx.get(f"{url}/slots", timeout=60, trust_env=False).json()
        assert slots[0]["speculative"] is True
        os.killpg(tachy.pid, signal.SIGINT)
        assert tachy.wait(timeout=120) == 0
        assert "Speculative decoding: ngram-simple" in (tachy.stderr.read() if tachy.stderr else "")
    finally:
        if tachy.poll() is None:
            tachy.kill()
            tachy.wait()
