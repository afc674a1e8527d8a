"""`tachy bench` modes from the command line against the lab: --slo, --export, --report,
--request-rate, --sweep (table, JSON, PNG) and one sentence for a bad option."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtGui import QImage

from client.cli import main
from client.lab import RunningLab, run_in_thread, scenario_from_dict


@pytest.fixture
def lab_url() -> Iterator[str]:
    dials = {"ttft": 30, "tpot_ms": 2, "output_tokens": 10, "capacity": 2, "seed": 1}
    running: RunningLab = run_in_thread(scenario_from_dict(dials))
    yield running.url
    running.stop()


def _bench(url: str, *extra: str) -> list[str]:
    return ["bench", "--url", url, "--api", "openai", "-m", "tachy-lab", *extra]


def test_slo_export_and_report(
    lab_url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    png, csv_file = tmp_path / "report.png", tmp_path / "requests.csv"
    args = ["-n", "6", "--slo", "ttft=1000,tpot=100", "--export", str(csv_file)]
    code = main(_bench(lab_url, *args, "--report", str(png), "--json"))
    out, err = capsys.readouterr()
    assert code == 0
    data = json.loads(out)
    assert data["goodput"]["requests"] == 6 and data["goodput"]["fraction"] == 1.0
    assert data["request_throughput"] > 0 and data["output_throughput"] > 0
    assert "goodput: 6 of 6 requests met ttft <= 1000 ms, tpot <= 100 ms" in err
    assert "throughput:" in err
    assert len(csv_file.read_text().splitlines()) == 7  # a header and 6 requests
    image = QImage(str(png))
    assert not image.isNull() and image.width() == 1200 and image.height() > 800


def test_request_rate(lab_url: str, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(_bench(lab_url, "-n", "5", "--request-rate", "50", "--json"))
    data = json.loads(capsys.readouterr().out)
    assert code == 0 and data["request_rate"] == 50.0 and data["completed"] == 5


def test_sweep_prints_the_curve_knee_and_tier_crossings(
    lab_url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    png = tmp_path / "sweep.png"
    args = ["-n", "30", "--sweep", "1,2,4", "--report", str(png), "--json"]
    code = main(_bench(lab_url, *args))
    out, err = capsys.readouterr()
    assert code == 0
    data = json.loads(out)
    assert [p["concurrency"] for p in data["sweep"]] == [1, 2, 4]
    assert [p["ttft_n"] for p in data["sweep"]] == [30, 30, 30]
    assert data["knee"] == 2  # the lab's capacity
    assert "knee: concurrency 2" in err and data["knee_note"] in err
    header = ["concurrency", "n", "ttft_p50", "ttft_p95", "p95", "95%", "bounds", "tokens/s"]
    assert any(line.split() == [*header, "errors"] for line in err.splitlines())
    row = next(line.split() for line in err.splitlines() if line.split()[:2] == ["1", "30"])
    assert row[5:7] == ["..", "?"]  # 30 requests bound a P95 from below only
    assert not QImage(str(png)).isNull()


def test_sweep_of_few_requests_says_it_cannot_name_a_knee(
    lab_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(_bench(lab_url, "-n", "4", "--sweep", "1,2", "--json"))
    out, err = capsys.readouterr()
    data = json.loads(out)
    assert code == 0 and data["knee"] is None
    assert "knee: not decided: concurrency 1, 2 had fewer than 30 successful requests" in err
    assert "Run with -n 30 or more" in data["knee_note"]


@pytest.mark.parametrize(
    ("option", "words"),
    [
        (["--slo", "fast=3"], "is not an SLO"),
        (["--sweep", "1,x"], "give concurrency levels"),
        (["--request-rate", "0"], "must be more than 0"),
    ],
)
def test_bad_options_get_one_sentence(
    lab_url: str, option: list[str], words: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exited:
        main(_bench(lab_url, *option))
    assert exited.value.code == 2
    err = capsys.readouterr().err
    assert words in err and "Traceback" not in err


def test_options_that_do_not_go_together(lab_url: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(_bench(lab_url, "--sweep", "1,2", "--request-rate", "5")) == 2
    assert "can't be combined with --request-rate" in capsys.readouterr().err
    assert main(_bench(lab_url, "--max-concurrency", "3")) == 2
    assert "--max-concurrency caps --request-rate runs" in capsys.readouterr().err
