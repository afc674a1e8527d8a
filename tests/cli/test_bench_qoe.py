"""`tachy bench` reports Andes' QoE beside TTFT: a row with P50 and P5 and n, each
request's figure and the spread in --json."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from client.cli import main
from client.lab import RunningLab, run_in_thread, scenario_from_dict


@pytest.fixture
def lab_url() -> Iterator[str]:
    # A first token later than the reader expects (1 s): every answer scores under 1.
    dials = {"ttft": 1500, "tpot_ms": 2, "output_tokens": 10, "seed": 1}
    running: RunningLab = run_in_thread(scenario_from_dict(dials))
    yield running.url
    running.stop()


def test_bench_reports_qoe(lab_url: str, capsys: pytest.CaptureFixture[str]) -> None:
    args = ["bench", "--url", lab_url, "--api", "openai", "-m", "tachy-lab", "-n", "2"]
    assert main([*args, "--warmup", "0", "--json"]) == 0
    out, err = capsys.readouterr()
    data = json.loads(out)
    qoes = [r["qoe"] for r in data["requests"]]
    assert len(qoes) == 2 and all(0.0 < q < 1.0 for q in qoes)
    assert data["qoe"]["n"] == 2 and data["qoe"]["p5"] <= data["qoe"]["p50"] < 1.0
    row = next(line for line in err.splitlines() if line.startswith("qoe "))
    assert row.split()[:3] == ["qoe", "2", "P50"] and "P5" in row.split()
