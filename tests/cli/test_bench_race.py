"""`tachy bench --race URL#MODEL URL#MODEL`: each question raced on every route at once,
TTFT and rate P50/P95 per route and how often each won."""

from __future__ import annotations

import json

import pytest

from client.cli import main
from tests.backends.live_server import LiveServer, Script


def test_each_route_gets_every_question_and_the_quick_one_wins(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with (
        LiveServer(Script(tokens=["a", "b", "c"], models=["small"])) as quick,
        LiveServer(Script(tokens=["d", "e", "f"], delay_s=0.05, models=["big"])) as late,
    ):
        args = ["--race", f"{quick.url}#small", f"{late.url}#big", "-n", "4", "--json"]
        code = main(["bench", *args])
    out, err = capsys.readouterr()
    assert code == 0
    report = json.loads(out)
    assert report["races"] == 4
    small, big = report["routes"]
    assert small["model"] == "small" and big["model"] == "big"
    assert small["ttft_ms"]["n"] == big["ttft_ms"]["n"] == 4
    # the late server waits 50 ms before each token; the quick one does not
    assert big["ttft_ms"]["median"] > small["ttft_ms"]["median"] + 30
    assert small["first_token_wins"] == small["finish_wins"] == 4
    assert big["first_token_wins"] == big["finish_wins"] == 0
    assert len(quick.requests) == len(late.requests) == 4 + 1  # + one warm-up race
    heading = next(line for line in err.splitlines() if line.startswith("route"))
    assert "ttft p50" in heading and "ttft p95" in heading and "1st token" in heading
    row = next(line for line in err.splitlines() if "#small" in line or "small" in line.split())
    assert row.split()[-2:] == ["4", "4"]


def test_a_race_needs_two_routes(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["bench", "--race", "http://127.0.0.1:9#one"])
    assert code != 0
    assert "--race needs 2 to 4 routes" in capsys.readouterr().err
