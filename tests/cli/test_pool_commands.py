"""`tachy chat --pool` and `tachy bench --pool` against scripted servers on loopback:
the answer names its server, a refused server is passed over, the bench prints each
policy beside the first server alone."""

from __future__ import annotations

import json

import pytest

from client.cli import main
from tests.backends.live_server import LiveServer, Script
from tests.backends.test_live_http import closed_port


def test_chat_fails_over_and_says_which_server_answered(
    capsys: pytest.CaptureFixture[str],
) -> None:
    refused = f"http://127.0.0.1:{closed_port()}"
    with LiveServer(Script(api="openai", tokens=["Hi", "!"], models=["small"])) as server:
        pool = f"{refused},{server.url}"
        code = main(["chat", "--api", "openai", "--pool", pool, "-m", "small", "hi"])
    captured = capsys.readouterr()
    assert code == 0 and captured.out.startswith("Hi!")
    where = server.url.split("://", 1)[-1]
    assert f"answered by {where} (2 servers asked)" in captured.err
    assert len(server.requests) == 1 and server.requests[0]["model"] == "small"


def test_chat_names_an_unknown_pool(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["chat", "--pool", "Nowhere", "hi"])
    assert code != 0 and "No saved pool is called 'Nowhere'" in capsys.readouterr().err


def test_bench_prints_each_policy_beside_the_first_server(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with (
        LiveServer(Script(api="openai", tokens=["a", "b"], models=["m"])) as first,
        LiveServer(Script(api="openai", tokens=["a", "b"], models=["m"])) as second,
    ):
        pool = f"{first.url},{second.url}"
        policies = ["--policy", "failover,least-loaded"]
        runs_of = ["-m", "m", "-n", "3", "--warmup", "0", "--json", "-"]
        code = main(["bench", "--api", "openai", "--pool", pool, *policies, *runs_of])
    out, table = capsys.readouterr()
    assert code == 0
    assert "single server" in table and "failover" in table and "least-loaded" in table
    runs = json.loads(out)  # the JSON alone on stdout, the table on stderr
    assert [r["policy"] for r in runs] == ["single server", "failover", "least-loaded"]
    assert all(r["n"] == 3 and r["errors"] == 0 for r in runs)
    assert runs[1]["servers"][0]["wins"] == 3  # failover: the first server, every time
