"""`tachy lab` from the command line."""

from __future__ import annotations

import json
import signal
import socket
import subprocess
import sys
import threading

import httpx
import pytest

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


def test_a_bad_scenario_is_exit_code_2_and_names_what_there_is(capsys) -> None:
    assert main(["lab", "--scenario", "no-such-thing"]) == 2
    err = capsys.readouterr().err
    assert err.startswith(
        "tachy lab: 'no-such-thing' is not a preset, a bundled scenario or a file."
    )
    assert "Presets: instant, fast," in err and "Bundled scenarios: chaos," in err
    assert "retry-after-503" in err


def test_a_bundled_scenario_is_named_like_a_preset() -> None:
    url, process = _lab(["--scenario", "retry-after-503"])
    try:
        body = {"model": "tachy-lab", "messages": [{"role": "user", "content": "hi"}]}
        first = httpx.post(f"{url}/v1/chat/completions", json=body, timeout=60)
        again = httpx.post(f"{url}/v1/chat/completions", json=body, timeout=60)
    finally:
        process.terminate()
        process.wait(10)
    assert (first.status_code, again.status_code) == (503, 200)  # its sequence: 503, then ok


def _lab(arguments: list[str]) -> tuple[str, subprocess.Popen[str]]:
    """`tachy lab --port 0 ARGUMENTS` as its own process, and the URL it serves on."""
    process = subprocess.Popen(
        [sys.executable, "-m", "client", "lab", "--port", "0", *arguments],
        stdout=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
        text=True,
    )
    assert process.stdout is not None
    assert "tachy lab: " in process.stdout.readline()
    line = process.stdout.readline()
    url = line.split("client at ")[1] if "client at " in line else line.split("API: ")[1]
    return url.split(" ")[0].split("/api/chat")[0], process


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
        assert httpx.post(f"{url}/api/chat", json=body, timeout=60).json()["done"] is True
        assert httpx.post(f"{url}/v1/chat/completions", json=body, timeout=60).json()["choices"]
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
    url, recorder = _lab(["--upstream", upstream.url, "--record", str(path), "--scrub"])
    try:
        body = {"model": "tachy-lab", "messages": [{"role": "user", "content": "hi"}]}
        recorded = httpx.post(f"{url}/api/chat", json=body, timeout=60).content
        assert path.exists()  # saved before the reply's end went to the client
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
        replayed = httpx.post(f"{url}/api/chat", json=body, timeout=60).content
    finally:
        replaying.terminate()
        replaying.wait(10)
    assert replayed.count(b"\n") == recorded.count(b"\n") > 3  # scrubbed, same shape
    assert b'"done":true' in replayed


# SIGKILL cannot be handled: the reply is on disk only because it was written before
# its last bytes went to the client.
SIGNALS = [signal.SIGTERM, signal.SIGHUP, signal.SIGINT, signal.SIGKILL]


@pytest.mark.parametrize("stop", SIGNALS, ids=lambda s: s.name)
@pytest.mark.parametrize("path", ["/v1/chat/completions", "/api/chat"])
def test_a_reply_is_in_the_recording_whatever_stops_the_lab_right_after_it(
    tmp_path, stop: signal.Signals, path: str
) -> None:
    """The signal goes the moment the client has read the reply's end: the recording
    must already hold the whole reply, and the lab must leave cleanly."""
    from client.lab import run_in_thread

    upstream = run_in_thread("instant")
    record = tmp_path / "session.json"
    url, recorder = _lab(["--upstream", upstream.url, "--record", str(record)])
    try:
        body = {"model": "tachy-lab", "messages": [{"role": "user", "content": "hi"}]}
        with httpx.stream("POST", f"{url}{path}", json={**body, "stream": True}, timeout=60) as r:
            received = b"".join(r.iter_raw())
        recorder.send_signal(stop)
        assert recorder.wait(10) == (-stop if stop is signal.SIGKILL else 0)
    finally:
        if recorder.poll() is None:
            recorder.kill()
            recorder.wait()
        upstream.stop()
    (saved,) = json.loads(record.read_text())["recording"]["replies"]
    assert (saved["path"], saved["end"]) == (path, "eof")
    assert "".join(chunk["text"] for chunk in saved["chunks"]).encode() == received


SSE_REPLY = [
    b'data: {"choices":[{"index":0,"delta":{"role":"assistant","content":"Hi"}}]}\n\n',
    b'data: {"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}\n\n',
    b"data: [DONE]\n\n",
]


def _server_that_keeps_the_body_open(done: threading.Event) -> socket.socket:
    """An upstream whose SSE reply has all its events, [DONE] included, but whose body
    ends only when `done` is set (as a server may end its body a while after [DONE])."""
    listener = socket.create_server(("127.0.0.1", 0))

    def serve() -> None:
        connection, _ = listener.accept()
        with connection:
            request = b""
            while b"\r\n\r\n" not in request:
                request += connection.recv(65536)
            head = b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n"
            connection.sendall(head + b"Transfer-Encoding: chunked\r\n\r\n")
            for event in SSE_REPLY:
                connection.sendall(b"%x\r\n%s\r\n" % (len(event), event))
            done.wait(30)
            connection.sendall(b"0\r\n\r\n")

    threading.Thread(target=serve, daemon=True).start()
    return listener


def test_the_reply_is_on_disk_before_its_end_reaches_the_client(tmp_path) -> None:
    """Killed (no handler runs) the moment the client has read [DONE], while the upstream
    still holds the body open: the reply was saved before [DONE] went to the client."""
    done = threading.Event()
    listener = _server_that_keeps_the_body_open(done)
    upstream = f"http://127.0.0.1:{listener.getsockname()[1]}"
    record = tmp_path / "session.json"
    url, recorder = _lab(["--upstream", upstream, "--record", str(record)])
    try:
        body = {"model": "m", "messages": [{"role": "user", "content": "hi"}], "stream": True}
        with httpx.stream("POST", f"{url}/v1/chat/completions", json=body, timeout=60) as r:
            for line in r.iter_lines():
                if line == "data: [DONE]":
                    break
            recorder.kill()
            recorder.wait(10)
    finally:
        done.set()
        listener.close()
        if recorder.poll() is None:
            recorder.kill()
            recorder.wait()
    (saved,) = json.loads(record.read_text())["recording"]["replies"]
    assert "".join(chunk["text"] for chunk in saved["chunks"]).encode() == b"".join(SSE_REPLY)
