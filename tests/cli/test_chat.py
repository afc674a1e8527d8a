"""`tachy chat` end to end against a scripted server on loopback."""

from __future__ import annotations

import io
import json
import os
import signal
import subprocess
import sys

import pytest

from client.cli import main
from client.lab import run_in_thread, scenario_from_dict
from tests.backends.live_server import LiveServer, Script
from tests.backends.test_live_http import closed_port


def test_streams_exactly_the_text_and_a_summary(capsys: pytest.CaptureFixture[str]) -> None:
    with LiveServer(Script(tokens=["Hello", ", ", "wörld 🚀"])) as server:
        code = main(["chat", "--url", server.url, "-m", "fake-model", "hi"])
    out, err = capsys.readouterr()
    assert code == 0
    assert out == "Hello, wörld 🚀"  # exactly the text: a pipe gets no added newline
    assert "ttft" in err and "tokens/s" in err and "3 output tokens" in err
    # ... and the figures start a line of their own (`tachy chat … | cat` on a terminal).
    assert err.startswith("\n") and err.count("\n") >= 2
    assert "Traceback" not in err


def test_first_model_and_options_are_sent(capsys: pytest.CaptureFixture[str]) -> None:
    with LiveServer(Script(models=["first", "second"])) as server:
        args = [
            "chat",
            "--url",
            server.url,
            "--system",
            "be brief",
            "--max-tokens",
            "9",
            "--temperature",
            "0.5",
            "--seed",
            "3",
            "question",
        ]
        assert main(args) == 0
    body = server.requests[0]
    assert body["model"] == "first"
    assert body["messages"] == [
        {"role": "system", "content": "be brief"},
        {"role": "user", "content": "question"},
    ]
    assert (body["max_tokens"], body["temperature"], body["seed"]) == (9, 0.5, 3)


def test_ollama_detected_automatically(capsys: pytest.CaptureFixture[str]) -> None:
    with LiveServer(Script(api="ollama", tokens=["a", "b"])) as server:
        assert main(["chat", "--url", server.url, "hi"]) == 0
    assert capsys.readouterr().out == "ab"
    assert server.requests[0]["stream"] is True


def test_json_events_and_metrics(capsys: pytest.CaptureFixture[str]) -> None:
    with LiveServer(Script(tokens=["x", "y"])) as server:
        assert main(["chat", "--url", server.url, "--api", "openai", "--json", "hi"]) == 0
    every = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    lines = [line for line in every if line["event"] != "state"]
    names = [line["event"] for line in lines]
    # The plan first: its predicted wait (tests/cli/test_chat_learns.py), then the stream.
    assert names == ["plan", "started", "token", "token", "usage", "done", "metrics"]
    states = [line["state"] for line in every if line["event"] == "state"]
    assert states[-3:] == ["reading", "answering", "done"]  # the window's states
    assert lines[2] == {"event": "token", "text": "x", "kind": "answer"}
    assert lines[5]["reason"] == "stop" and lines[5]["text"] == "xy"
    assert lines[-1]["output_tokens"] == 2 and lines[-1]["ttft_ms"] > 0


def test_json_says_waiting_while_the_server_sends_nothing(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A server that accepts the request and sends nothing: the state is "waiting" (not
    "reading"), then "failed" when the first-token timeout gives up."""
    running = run_in_thread(scenario_from_dict({"fault": {"kind": "never_answer"}}))
    try:
        args = ["chat", "--url", running.url, "--api", "openai", "-m", "tachy-lab", "--json"]
        code = main([*args, "--first-token-timeout", "0.5", "hi"])
    finally:
        running.stop()
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    states = [line["state"] for line in lines if line["event"] == "state"]
    assert code == 1
    assert "waiting" in states and states[-1] == "failed"
    assert "reading" not in states and "loading" not in states


def test_stages_on_stderr(capsys: pytest.CaptureFixture[str]) -> None:
    with LiveServer(Script(tokens=["x"])) as server:
        assert main(["chat", "--url", server.url, "--stages", "hi"]) == 0
    out, err = capsys.readouterr()
    assert out == "x"
    # The turn's states, in the window's words (client/services/chat/turn_state.py).
    assert err.index("Reading your question") < err.index("Answering") < err.index("Done")
    assert "understanding" not in err


def test_stages_say_the_wait_for_a_server_that_sends_nothing(
    capsys: pytest.CaptureFixture[str],
) -> None:
    running = run_in_thread(scenario_from_dict({"fault": {"kind": "never_answer"}}))
    try:
        args = ["chat", "--url", running.url, "--api", "openai", "-m", "tachy-lab", "--stages"]
        code = main([*args, "--first-token-timeout", "0.5", "hi"])
    finally:
        running.stop()
    err = capsys.readouterr().err
    assert code == 1
    assert err.index("Waiting for the server") < err.index("Failed")
    assert "Reading your question" not in err and "Loading the model" not in err


def test_api_key_from_environment(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TEST_TACHY_KEY", "sk-123")
    with LiveServer(Script(tokens=["x"])) as server:
        args = ["chat", "--url", server.url, "--api", "openai", "--api-key-env", "TEST_TACHY_KEY"]
        assert main([*args, "hi"]) == 0
        assert main([*args[:-1], "TEST_TACHY_MISSING", "hi"]) == 1
    assert server.headers[0]["Authorization"] == "Bearer sk-123"
    assert "TEST_TACHY_MISSING is not set" in capsys.readouterr().err


def test_unreachable_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(
        ["chat", "--url", f"http://127.0.0.1:{closed_port()}", "--api", "openai", "-m", "m", "hi"]
    )
    out, err = capsys.readouterr()
    assert code == 2 and out == ""
    assert "Can't reach the server" in err and "Traceback" not in err


def test_unreachable_with_auto_detection_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["chat", "--url", f"http://127.0.0.1:{closed_port()}", "hi"]) == 2
    assert "Can't reach" in capsys.readouterr().err


def test_server_error_exits_1_with_the_servers_message(capsys: pytest.CaptureFixture[str]) -> None:
    script = Script(status=404, body=b'{"error":{"message":"model nope does not exist"}}')
    with LiveServer(script) as server:
        assert main(["chat", "--url", server.url, "-m", "nope", "hi"]) == 1
    err = capsys.readouterr().err
    assert "no model named 'nope'" in err and "Traceback" not in err


def test_interrupted_stream_exits_3_and_keeps_the_text(capsys: pytest.CaptureFixture[str]) -> None:
    with LiveServer(Script(tokens=["kept ", "lost"], reset_after=1)) as server:
        assert main(["chat", "--url", server.url, "-m", "fake-model", "hi"]) == 3
    out, err = capsys.readouterr()
    assert out == "kept " and "interrupted" in err


def test_sigint_stops_the_server_and_keeps_the_partial_text() -> None:
    # 100 s of answer: a Ctrl-C on a busy machine still comes long before its end
    script = Script(tokens=[f"t{i} " for i in range(2000)], delay_s=0.05)
    with LiveServer(script) as server:
        process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "client",
                "chat",
                "--url",
                server.url,
                "--api",
                "openai",
                "-m",
                "fake-model",
                "hi",
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env={**os.environ, "PYTHONUNBUFFERED": "1"},
        )
        try:
            assert process.stdout is not None
            first = process.stdout.read(3)  # blocks until the answer streams
            assert first == b"t0 "
            process.send_signal(signal.SIGINT)
            assert server.disconnected.wait(60), "the command did not hang up"
            out, err = process.communicate(timeout=60)
        finally:
            if process.poll() is None:
                process.kill()
                process.wait()
    assert process.returncode == 130
    text = (first + out).decode()
    words = text.split()
    assert words == [f"t{i}" for i in range(len(words))]  # every word that came, in order
    assert 1 <= len(words) < 2000
    assert "stopped" in err.decode() and "Traceback" not in err.decode()


def test_message_from_stdin(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO("a long question\nover two lines\n"))
    with LiveServer(Script(tokens=["ok"])) as server:
        assert main(["chat", "--url", server.url, "-"]) == 0
    assert server.requests[0]["messages"][-1]["content"] == "a long question\nover two lines\n"
    assert capsys.readouterr().out == "ok"


def test_json_says_a_stall_mid_answer_and_the_answer_going_on(
    capsys: pytest.CaptureFixture[str],
) -> None:
    fault = {"kind": "stall", "after_tokens": 3, "seconds": 3.0}
    dials = {"ttft": 20, "tpot_ms": 5, "output_tokens": 8, "fault": fault}
    running = run_in_thread(scenario_from_dict(dials))
    try:
        args = ["chat", "--url", running.url, "--api", "openai", "-m", "tachy-lab", "--json"]
        code = main([*args, "hi"])
    finally:
        running.stop()
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    states = [line["state"] for line in lines if line["event"] == "state"]
    assert code == 0
    stalled = states.index("stalled")  # the window's state, from the same signals
    assert states[stalled - 1] == "answering" and states[stalled + 1] == "answering"
    assert states[-1] == "done"
