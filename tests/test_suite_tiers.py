"""The suite's tiers: `pytest` runs the tests (behaviour, passes on a busy machine),
`pytest -m perf` the benchmarks (tests/perf: speed and memory goals), `pytest -m vllm`
the tests against a real vLLM (tests/vllm). All are CI steps and none may collect
nothing (pytest's exit code 5)."""

from __future__ import annotations

import os
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _collected(*args: str) -> tuple[int, list[str]]:
    """(exit code, test ids) of `pytest --collect-only` with these args."""
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "--co", "-q", "-p", "no:cacheprovider", *args],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        timeout=300,
    )
    return done.returncode, [line for line in done.stdout.splitlines() if "::" in line]


def test_the_default_run_leaves_every_benchmark_out() -> None:
    options = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    addopts = options["tool"]["pytest"]["ini_options"]["addopts"]
    assert addopts[:2] == ["-m", "not perf and not vllm"] and "--strict-markers" in addopts
    code, ids = _collected("tests/perf")
    assert code == 5 and ids == []  # nothing of tests/perf in plain `pytest`: all are perf
    code, benchmarks = _collected("-m", "perf", "tests/perf")
    assert code == 0 and len(benchmarks) > 10


def test_the_real_vllm_tier_is_its_own() -> None:
    """tests/vllm needs a vLLM started for the session: never in plain `pytest` or in the
    benchmarks, all of it in `pytest -m vllm`."""
    code, ids = _collected("tests/vllm")
    assert code == 5 and ids == []
    code, ids = _collected("-m", "perf", "tests/vllm")
    assert code == 5 and ids == []
    code, tier = _collected("-m", "vllm", "tests/vllm")
    assert code == 0 and len(tier) >= 8
    assert all(test_id.startswith("tests/vllm/") for test_id in _collected("-m", "vllm")[1])
