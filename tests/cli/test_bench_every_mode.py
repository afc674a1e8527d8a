"""Every `tachy bench` mode honours --export and --json (issue 39, item 16): the pool,
the race, the cascade and the sweep write one row per measured request with the run it
belongs to, and `--json -` leaves stdout to the JSON alone. An answer with no text (the
model stopped at once) is counted and said, not silently left out of the TTFT row."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from client.cli import main
from tests.backends.live_server import LiveServer, Script


def _rows(path: Path) -> list[dict[str, str]]:
    with path.open(encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def test_the_pool_exports_each_policys_requests(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "pool.csv"
    with (
        LiveServer(Script(api="openai", tokens=["a", "b"], models=["m"])) as first,
        LiveServer(Script(api="openai", tokens=["a", "b"], models=["m"])) as second,
    ):
        pool = f"{first.url},{second.url}"
        args = ["--pool", pool, "--policy", "failover", "-m", "m", "-n", "3", "--warmup", "0"]
        code = main(["bench", "--api", "openai", *args, "--export", str(target), "--json", "-"])
    out, err = capsys.readouterr()
    assert code == 0, err
    runs = json.loads(out)  # stdout holds the JSON alone; the table went to stderr
    assert [r["policy"] for r in runs] == ["single server", "failover"]
    assert "single server" in err
    rows = _rows(target)
    assert len(rows) == 6
    assert {r["run"] for r in rows} == {"single server, concurrency 1", "failover, concurrency 1"}
    assert all(r["outcome"] == "stop" and float(r["ttft_ms"]) > 0 for r in rows)


def test_the_race_and_the_cascade_export_their_requests(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with (
        LiveServer(Script(tokens=["a", "b"], models=["small"])) as quick,
        LiveServer(Script(tokens=["c", "d"], models=["big"])) as late,
    ):
        race = ["--race", f"{quick.url}#small", f"{late.url}#big", "-n", "2"]
        assert main(["bench", *race, "--export", str(tmp_path / "race.json")]) == 0
        cascade = ["--fast", quick.url, "--strong", late.url, "-n", "4"]
        assert main(["bench", *cascade, "--export", str(tmp_path / "cascade.csv")]) == 0
    capsys.readouterr()
    raced = json.loads((tmp_path / "race.json").read_text(encoding="utf-8"))["requests"]
    assert len(raced) == 4 and len({r["run"] for r in raced}) == 2
    assert all(r["ttft_ms"] is not None for r in raced)
    cascaded = _rows(tmp_path / "cascade.csv")
    assert len(cascaded) == 4 and {r["run"] for r in cascaded} == {"fast", "strong"}


def test_the_sweep_exports_each_concurrency(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "sweep.csv"
    with LiveServer(Script(api="openai", tokens=["a"], models=["m"])) as server:
        args = ["--url", server.url, "--api", "openai", "-m", "m", "-n", "2", "--warmup", "0"]
        assert main(["bench", *args, "--sweep", "1,2", "--export", str(target)]) == 0
    capsys.readouterr()
    rows = _rows(target)
    # each level fills its slots twice: 2 requests at concurrency 1, 4 at 2
    assert [r["run"] for r in rows] == ["concurrency 1"] * 2 + ["concurrency 2"] * 4


def test_an_answer_with_no_text_is_counted(capsys: pytest.CaptureFixture[str]) -> None:
    with LiveServer(Script(api="openai", tokens=[], models=["m"])) as server:
        args = ["--url", server.url, "--api", "openai", "-m", "m", "-n", "3", "--warmup", "0"]
        code = main(["bench", *args, "--json", "-"])
    out, err = capsys.readouterr()
    report = json.loads(out)
    assert code == 0, err
    assert report["errors"] == 0 and report["empty_answers"] == 3
    assert report["ttft_ms"] is None  # no first token to time, and the table says why
    assert "3 of 3 answers had no text" in err
