"""`tachy chat`, `models` and `bench` against a server that is still loading its model:
they say "Loading the model…", wait, and go on when it is ready, within their limit.
The lab's `starts_loading` plays llama.cpp's server in the seconds after its port opens
(its load begins at the first request, so no timing luck is needed); the last test does
it with the real local engine, started by `tachy serve-local` a moment before."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator

import pytest

from client.backends.engine.local_engine import free_port
from client.cli import main
from client.lab import RunningLab, run_in_thread, scenario_from_dict
from client.lab.dialects.llamacpp_wire import LOADING_BODY
from client.services.chat.turn_state import STATE_WORDS, TurnState
from tests.backends.test_live_http import closed_port

LOADING_LINE = "Loading the model…"
FAST = {"ttft": 5, "tpot_ms": 1, "output_tokens": 6, "seed": 1, "server": "llamacpp"}


@pytest.fixture
def starting_lab() -> Iterator[RunningLab]:
    """A llama.cpp-like lab whose model loads for 0.6 s from its first request."""
    lab = run_in_thread(scenario_from_dict({**FAST, "starts_loading": True, "load_ms": 600}))
    yield lab
    lab.stop()


def test_chat_waits_for_the_model_and_says_so(
    starting_lab: RunningLab, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["chat", "--url", starting_lab.url, "--api", "openai", "hi"])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert out  # the answer's text
    lines = err.splitlines()
    assert lines[0] == LOADING_LINE
    assert lines[1].startswith("The model is loaded (")
    assert "ttft" in lines[-1]


def test_chat_json_says_the_loading_state_the_words_on_stderr_say(
    starting_lab: RunningLab, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 39, item 6: llama-server lists its models while loading and answers the
    rest 503 "Loading model": that is the loading state, never "reading"."""
    code = main(["chat", "--json", "--url", starting_lab.url, "--api", "openai", "hi"])
    out, err = capsys.readouterr()
    assert code == 0, err
    states = [r["state"] for r in map(json.loads, out.splitlines()) if r["event"] == "state"]
    assert states[0] == "loading" and states[-1] == "done"
    assert "reading" not in states[: states.index("loading") + 1]
    assert err.splitlines()[0] == LOADING_LINE == f"{STATE_WORDS[TurnState.LOADING]}…"


def test_models_and_bench_wait_for_the_model(capsys: pytest.CaptureFixture[str]) -> None:
    for command in (["models"], ["bench", "-n", "1", "--warmup", "0", "--max-tokens", "4"]):
        scenario = scenario_from_dict({**FAST, "starts_loading": True, "load_ms": 300})
        lab = run_in_thread(scenario)
        try:
            code = main([*command, "--url", lab.url, "--api", "openai"])
        finally:
            lab.stop()
        out, err = capsys.readouterr()
        assert code == 0, err
        assert LOADING_LINE in err.splitlines()
        assert "tachy-lab" in out or "ttft" in out


def test_past_the_first_token_limit_it_says_how_long_it_waited(
    capsys: pytest.CaptureFixture[str],
) -> None:
    lab = run_in_thread(scenario_from_dict({**FAST, "starts_loading": True, "load_ms": 60_000}))
    try:
        args = ["chat", "--url", lab.url, "--api", "openai", "--first-token-timeout", "0.3"]
        code = main([*args, "hi"])
    finally:
        lab.stop()
    err = capsys.readouterr().err
    assert code == 1
    assert err.splitlines()[0] == LOADING_LINE
    assert "The server was still loading its model after 0.3 s. Keep waiting" in err


def test_a_closed_port_cannot_be_reached_now(capsys: pytest.CaptureFixture[str]) -> None:
    url = f"http://127.0.0.1:{closed_port()}"
    assert main(["chat", "--url", url, "hi"]) == 2
    err = capsys.readouterr().err
    assert err == (
        f"Can't reach the server at {url} now (nothing is listening on its port). "
        "Check that it is running, or choose another server.\n"
    )


def _port_open(port: int) -> bool:
    try:
        socket.create_connection(("127.0.0.1", port), timeout=1).close()
    except OSError:
        return False
    return True


def _first_answer(port: int) -> bytes:
    """What the server answers to the first GET /health: its body."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as probe:
        probe.sendall(b"GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        answer = b""
        while chunk := probe.recv(65536):
            answer += chunk
    return answer.partition(b"\r\n\r\n")[2]


@pytest.mark.engine
def test_chat_the_moment_serve_local_opens_its_port(capsys: pytest.CaptureFixture[str]) -> None:
    port = free_port()
    serving = subprocess.Popen(
        [sys.executable, "-m", "client", "serve-local", "--port", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    try:
        while not _port_open(port):  # the event this test needs: the port opens
            assert serving.poll() is None, serving.stderr.read() if serving.stderr else ""
            time.sleep(0.005)  # a refused connection returns at once: don't spin
        first = _first_answer(port)
        url = f"http://127.0.0.1:{port}"
        code = main(["chat", "--url", url, "--max-tokens", "8", "--temperature", "0", "hi"])
        out, err = capsys.readouterr()
    finally:
        os.killpg(serving.pid, signal.SIGINT)
        try:
            serving.wait(timeout=120)
        finally:  # never left behind: a stray server keeps pytest from ending
            if serving.poll() is None:
                os.killpg(serving.pid, signal.SIGKILL)
                serving.wait()
    assert code == 0, err
    assert out.strip()
    if first != b'{"status":"ok"}':  # it was still loading: as the lab answers then
        assert first == LOADING_BODY
    loaded = [line for line in err.splitlines() if line.startswith("The model is loaded")]
    print(f"first answer {first!r}; chat waited: {loaded}", file=sys.stderr)
