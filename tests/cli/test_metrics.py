from __future__ import annotations

import csv
import io
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from client.cli import main
from client.core.metrics import RequestMetrics
from client.store.db import Database
from client.store.metrics_store import MetricsStore

SUMMARY_KEYS = {"n", "mean", "median", "p90", "p95", "p99"}
METRICS = ("ttft_ms", "ttfo_ms", "tpot_ms", "tokens_per_s", "e2el_ms")
# The table's columns, also in every request of --format json.
SHOWN = (
    "time",
    "server",
    "model",
    "ttft_ms",
    "ttfo_ms",
    "tpot_ms",
    "tokens_per_s",
    "qoe",
    "e2el_ms",
    "output_tokens",
    "tier",
    "cold",
    "outcome",
)


@pytest.fixture
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("TACHY_DATA_DIR", str(tmp_path))
    return tmp_path


@pytest.fixture
def stored(data_dir: Path) -> list[float]:
    """Ten requests: 'smol' on server A one per minute over the last 10 minutes, then
    two 'big' requests on server B three hours ago."""
    now = time.time()
    ttfts = [float(10 * (n + 1)) for n in range(10)]  # 10 ... 100 ms
    with Database() as db:
        store = MetricsStore(db)
        store.record(
            RequestMetrics(ttft_ms=900.0, tier="typing"),
            server="B",
            model="big",
            outcome="failed",
            at=now - 3 * 3600 - 60,
        )
        store.record(
            RequestMetrics(ttft_ms=1500.0, e2el_ms=1500.0, tier="slow"),
            server="B",
            model="big",
            outcome="complete",
            cold=True,
            at=now - 3 * 3600,
        )
        for n, ttft in enumerate(ttfts):
            metrics = RequestMetrics(
                ttft_ms=ttft,
                ttfo_ms=ttft + 5,
                tpot_ms=20.0,
                tokens_per_s=50.0,
                e2el_ms=ttft + 1000,
                output_tokens=51,
                tier="instant" if ttft < 100 else "fast",
            )
            store.record(
                metrics, server="A", model="smol", outcome="complete", at=now - 600 + 60 * n
            )
    return ttfts


def run_json(capsys: pytest.CaptureFixture[str], *args: str) -> dict:
    assert main(["metrics", "--format", "json", *args]) == 0
    return json.loads(capsys.readouterr().out)


def test_json_shape_matches_bench(stored: list[float], capsys: pytest.CaptureFixture[str]) -> None:
    data = run_json(capsys)
    assert set(data) == {"n", "requests", *METRICS, "qoe"}
    assert data["n"] == 12
    assert len(data["requests"]) == 12
    times = [r["time_unix"] for r in data["requests"]]
    assert [r["time"] for r in data["requests"]] == sorted(r["time"] for r in data["requests"])
    assert times == sorted(times)  # oldest first
    first = data["requests"][0]
    assert set(SHOWN) <= set(first)
    assert (first["model"], first["outcome"], first["tier"]) == ("big", "failed", "typing")
    assert data["requests"][1]["cold"] is True
    for name in METRICS:
        assert set(data[name]) == SUMMARY_KEYS
    assert data["ttft_ms"]["n"] == 12
    assert data["tpot_ms"]["n"] == 10  # requests without a value are left out


def test_filters_since_model_and_server(
    stored: list[float], capsys: pytest.CaptureFixture[str]
) -> None:
    recent = run_json(capsys, "--since", "1h")
    assert {r["model"] for r in recent["requests"]} == {"smol"}
    ttft = recent["ttft_ms"]
    # numpy-style linear percentiles of 10, 20, ..., 100
    assert ttft == {
        "n": 10,
        "mean": 55.0,
        "median": 55.0,
        "p90": 91.0,
        "p95": 95.5,
        "p99": pytest.approx(99.1),
    }
    assert len(run_json(capsys, "--since", "5m30s")["requests"]) == 5
    big = run_json(capsys, "--model", "big")
    assert [r["ttft_ms"] for r in big["requests"]] == [900.0, 1500.0]
    assert big["tpot_ms"] is None
    assert len(run_json(capsys, "--server", "A", "--model", "smol")["requests"]) == 10
    assert [r["ttft_ms"] for r in run_json(capsys, "--limit", "2")["requests"]] == [90.0, 100.0]


def test_table_shows_requests_and_percentiles(
    stored: list[float], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["metrics", "--since", "1h"]) == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    assert lines[0].split() == list(SHOWN)
    assert lines[1].split()[1:] == [
        "A",
        "smol",
        "10.0",
        "15.0",
        "20.0",
        "50.0",
        "–",
        "1010.0",
        "51",
        "instant",
        "no",
        "complete",
    ]
    assert "10 requests" in out
    summary = {line.split()[0]: line.split()[1:] for line in lines if line.startswith("ttft_ms ")}
    assert summary["ttft_ms"] == ["10", "55.0", "55.0", "91.0", "95.5", "99.1"]


def test_qoe_has_its_median_and_low_tail(
    data_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with Database() as db:
        store = MetricsStore(db)
        for qoe in (1.0, 1.0, 0.86, 0.5, None):
            store.record(RequestMetrics(ttft_ms=200.0, qoe=qoe), server="A", model="m", outcome="x")
    data = run_json(capsys)
    assert [r["qoe"] for r in data["requests"]] == [1.0, 1.0, 0.86, 0.5, None]
    assert data["qoe"]["n"] == 4 and data["qoe"]["median"] == pytest.approx(0.93)
    assert data["qoe"]["p5"] == pytest.approx(0.554)
    assert main(["metrics"]) == 0
    out = capsys.readouterr().out
    assert "qoe (Andes; a reader at 6 tokens/s after 1 s): P50 0.93, P5 0.55 (n 4)" in out
    assert "0.86" in out.splitlines()[3]  # each request's, in its column


def test_csv_has_one_row_per_request(
    stored: list[float], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["metrics", "--format", "csv", "--model", "big"]) == 0
    rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    assert [r["ttft_ms"] for r in rows] == ["900.0", "1500.0"]
    assert rows[0]["tpot_ms"] == "" and rows[1]["cold"] == "True"
    assert rows[0]["time"].endswith("+00:00") and float(rows[0]["time_unix"]) > 0


def test_empty_store_says_so(data_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["metrics"]) == 0
    assert "No stored metrics yet" in capsys.readouterr().out
    assert list(data_dir.iterdir()) == []  # nothing created just to look
    data = run_json(capsys)
    assert data == {"n": 0, "requests": [], **dict.fromkeys((*METRICS, "qoe"))}


def test_no_match_says_how_many_are_stored(
    stored: list[float], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["metrics", "--model", "nope"]) == 0
    assert "No stored requests match these filters (12 stored in total)" in (
        capsys.readouterr().out
    )


@pytest.mark.parametrize("since", ["10x", "soon", "", "-1h"])
def test_bad_since_is_a_clear_error(
    data_dir: Path, capsys: pytest.CaptureFixture[str], since: str
) -> None:
    assert main(["metrics", f"--since={since}"]) == 2
    err = capsys.readouterr().err
    assert "--since" in err and "e.g. 90s, 10m, 2h, 7d" in err


def test_the_installed_command_prints_json(stored: list[float], data_dir: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "client", "metrics", "--format", "json", "--since", "1h"],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "TACHY_DATA_DIR": str(data_dir)},
    )
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["ttft_ms"]["median"] == 55.0


def test_a_reader_that_leaves_early_is_no_error(data_dir: Path) -> None:
    with Database() as db, db.transaction():
        store = MetricsStore(db)
        for n in range(1500):  # far more output than a pipe buffer holds
            store.record(RequestMetrics(ttft_ms=float(n)), server="A", model="m", outcome="x")
    command = [sys.executable, "-m", "client", "metrics", "--format", "json"]
    env = {**os.environ, "TACHY_DATA_DIR": str(data_dir)}
    with subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env) as p:
        assert p.stdout is not None and p.stderr is not None
        p.stdout.read(1)
        p.stdout.close()  # like `| head -c 1`
        errors = p.stderr.read()
        p.wait(timeout=60)
    assert b"Traceback" not in errors
    assert p.returncode in (0, 141)


def test_a_damaged_history_is_a_clear_error(
    data_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (data_dir / "tachy.sqlite3").write_bytes(b"this is not a database" * 100)
    assert main(["metrics"]) == 1
    err = capsys.readouterr().err
    assert "is damaged (file is not a database)" in err and "recovers what is readable" in err
    assert "No stored metrics" not in err


def test_a_file_in_place_of_the_data_folder_is_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "tachy"
    folder.write_text("not a folder")
    monkeypatch.setenv("TACHY_DATA_DIR", str(folder))
    assert main(["metrics"]) == 1
    captured = capsys.readouterr()
    assert f"{folder} is a file, not a folder" in captured.err
    assert "No stored metrics" not in captured.out + captured.err


def test_a_newer_history_is_refused(data_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with Database() as db:
        db.execute("PRAGMA user_version = 99")
    assert main(["metrics"]) == 1
    assert "newer Tachy" in capsys.readouterr().err
