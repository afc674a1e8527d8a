"""Every command taking --url answers a bad address with one sentence and exit 2,
before it starts anything (no engine, no request, no traceback)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from client.cli import EXIT_BAD_ADDRESS, main

COMMANDS = [["chat", "hello"], ["bench"], ["models"], ["detect"]]
ADDRESSES = ["http://[::1:bad", "ftp://x", "http://h:99999"]


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: c[0])
@pytest.mark.parametrize("address", ADDRESSES)
def test_bad_url_is_one_sentence_and_exit_2(
    command: list[str], address: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main([command[0], "--url", address, *command[1:]]) == EXIT_BAD_ADDRESS == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.splitlines() == [captured.err.strip()]  # one line
    assert captured.err.startswith(f"'{address}' is not a server address: ")


def test_ftp_is_unsupported_not_unreachable(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["models", "--url", "ftp://x"]) == 2
    err = capsys.readouterr().err
    assert "not supported" in err and "Can't reach" not in err


def test_the_real_process_prints_no_traceback() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "client", "chat", "--url", "http://[::1:bad", "hi"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2
    assert "Traceback" not in done.stderr and "InvalidURL" not in done.stderr
    assert (
        done.stderr.strip() == "'http://[::1:bad' is not a server address: invalid port: ':1:bad'."
    )
